#!/usr/bin/env python3
"""Lists the GPU kernels of one forward pass of a pt2c model and of torch.compile
(reduce-overhead) on the same inputs, with their GPU time: where the time goes.

    python3 profile_kernels.py BUNDLE [--model model.py] [--runs 20] [--top 25]

The bundle is the one bench.py takes. torch.profiler (CUPTI) records every kernel the
process launches, so it sees pt2c's own kernels, cuDNN's and cuBLASLt's as well as
torch's. Kernels are grouped by name; times are GPU microseconds per forward pass
(averaged over --runs passes, after a warm-up), so the sum is the GPU busy time, not the
latency. --gaps adds the idle time between consecutive kernels (the GPU waiting on the
next launch), per pass and by the pair of kernels around it: where latency goes beyond
the kernels' own time.
"""
import argparse
import collections
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench import Pt2cRunner, add_bundle_arguments, load_net, open_bundle  # noqa: E402


def profile(fn, runs):
    """[(name, start us, end us)] of every kernel of `runs` calls of fn, by start time."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    activities = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    kernels = []
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        if event.name.startswith(("Memcpy", "Memset")) and event.device_time_total == 0:
            continue
        kernels.append((event.name, event.time_range.start, event.time_range.end))
    return sorted(kernels, key=lambda k: k[1])


def kernel_table(kernels, runs):
    """{kernel name: (launches, total us)} per forward pass."""
    table = collections.defaultdict(lambda: [0, 0.0])
    for name, start, end in kernels:
        entry = table[name]
        entry[0] += 1
        entry[1] += end - start
    return {name: (count / runs, total / runs) for name, (count, total) in table.items()}


def print_gaps(title, kernels, runs, top):
    """Idle time between consecutive kernels, per pass, and the kernel pairs it lies
    between. Gaps over 100 us are the host between passes (the profiler's own work), not
    the model's, and are left out."""
    pairs = collections.defaultdict(lambda: [0, 0.0])
    idle = []
    for (before, _, end), (after, start, _) in zip(kernels, kernels[1:]):
        gap = start - end
        if gap <= 0 or gap > 100:
            continue
        idle.append(gap)
        entry = pairs[(before[:55], after[:55])]
        entry[0] += 1
        entry[1] += gap
    total = sum(idle) / runs
    print(f"\n## {title}: {total:.1f} us idle between kernels per pass, "
          f"{len(idle) / runs:.0f} gaps, {sum(g > 2 for g in idle) / runs:.0f} over 2 us\n")
    print("| idle us per pass | gaps per pass | mean us | before | after |")
    print("|---:|---:|---:|---|---|")
    for (before, after), (count, us) in sorted(pairs.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"| {us / runs:.1f} | {count / runs:.0f} | {us / count:.2f} | {before} | {after} |")


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
    parser.add_argument("--gaps", action="store_true",
                        help="also list the idle time between kernels")
    args = parser.parse_args()
    bundle, so, xs = open_bundle(args)
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}; {so.name}")
    runners = [("pt2c (CUDA graph)", Pt2cRunner(so, xs, {}))]
    if not args.no_torch:
        net = load_net(args.model or bundle / "model.py")
        with torch.no_grad():
            overhead = torch.compile(net, mode="reduce-overhead")
            overhead(*xs)
        runners.append(("torch.compile reduce-overhead", lambda: overhead(*xs)))
    for title, fn in runners:
        with torch.no_grad():
            kernels = profile(fn, args.runs)
        print_table(title, kernel_table(kernels, args.runs), args.top)
        if args.gaps:
            print_gaps(title, kernels, args.runs, args.top)


if __name__ == "__main__":
    main()
