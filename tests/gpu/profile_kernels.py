#!/usr/bin/env python3
"""Lists the GPU kernels of one forward pass of a pt2c model and of torch.compile
(reduce-overhead) on the same inputs, with their GPU time: where the time goes.

    python3 profile_kernels.py BUNDLE [--model model.py] [--runs 20] [--top 25]

The bundle is the one bench.py takes. torch.profiler (CUPTI) records every kernel the
process launches, so it sees pt2c's own kernels, cuDNN's and cuBLASLt's as well as
torch's. Kernels are grouped by name; times are GPU microseconds per forward pass
(averaged over --runs passes, after a warm-up), so the sum is the GPU busy time, not the
latency (launch gaps are not in it: compare with bench.py's medians).
"""
import argparse
import collections
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench import Pt2cRunner, add_bundle_arguments, load_module, open_bundle  # noqa: E402


def kernel_table(fn, runs):
    """{kernel name: (launches, total us)} per forward pass of fn."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    activities = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    table = collections.defaultdict(lambda: [0, 0.0])
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        if event.name.startswith(("Memcpy", "Memset")) and event.device_time_total == 0:
            continue
        entry = table[event.name]
        entry[0] += 1
        entry[1] += event.device_time_total
    return {name: (count / runs, total / runs) for name, (count, total) in table.items()}


def print_table(title, table, top):
    total = sum(us for _, us in table.values())
    launches = sum(count for count, _ in table.values())
    print(f"\n## {title}: {launches:.0f} kernels, {total:.1f} us GPU time per pass\n")
    print("| us | % | launches | kernel |")
    print("|---:|---:|---:|---|")
    for name, (count, us) in sorted(table.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"| {us:.1f} | {100 * us / max(total, 1e-9):.0f} | {count:.0f} | {name[:110]} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_bundle_arguments(parser)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-torch", action="store_true", help="profile pt2c only")
    args = parser.parse_args()
    bundle, so, xs = open_bundle(args)
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}; {so.name}")
    print_table("pt2c (CUDA graph)", kernel_table(Pt2cRunner(so, xs, {}), args.runs), args.top)
    if args.no_torch:
        return
    net = load_module(args.model or bundle / "model.py").model().cuda().eval()
    with torch.no_grad():
        overhead = torch.compile(net, mode="reduce-overhead")
        print_table("torch.compile reduce-overhead",
                    kernel_table(lambda: overhead(*xs), args.runs), args.top)


if __name__ == "__main__":
    main()
