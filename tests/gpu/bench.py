#!/usr/bin/env python3
"""Benchmarks a prebuilt CUDA model.so against PyTorch on the same GPU, in one process.

The bundle comes from tests/gpu/make_mlp_cuda_bundle.sh (NAME_cuda.so, model.py,
data/input*.npy and the eager CPU references data/ref*.npy):

    python3 bench.py BUNDLE [--runs 500] [--warmup 50] [--tolerance 1e-4]

First the numerics: pt2c_model_run_device on torch CUDA tensors against the CPU
references (and torch eager on the GPU against them too, which shows that model.py built
the same weights here). Then the median time per run, measured with CUDA events around
each call on the current stream after a warm-up, of:
  pt2c                      pt2c_model_run_device through ctypes (one CUDA graph launch,
                            GEMMs through cuBLASLt)
  pt2c, own kernels         the same .so with PT2C_CUBLASLT=0 PT2C_CUDNN=0 (no cuBLASLt,
                            no cuDNN)
  pt2c, no graph            the same .so with PT2C_CUDA_GRAPH=0 (one launch per step)
  pt2c, TF32                the same .so with PT2C_CUDA_TF32=1 (checked at 1e-2 only)
  torch eager               model.py's module on the GPU, under torch.no_grad()
  torch.compile             torch.compile(module)
  reduce-overhead           torch.compile(module, mode="reduce-overhead") (CUDA graphs)
fp32 everywhere; TF32 stays off in torch (its default for matmuls) and in pt2c (its
default; PT2C_CUDA_TF32=1 turns it on). Prints a markdown table; exit status 1 when a
numerics check fails.
"""
import argparse
import copy
import os
import pathlib
import statistics
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from run_mlp_cuda import PT2C_OK, Library, relative_error, tensors  # noqa: E402
# Outputs in the order of the references (a transformers ModelOutput is a dict); the
# bundle carries tools/eager_reference.py.
from eager_reference import flatten, load  # noqa: E402


def load_net(path):
    """model.py's network on the GPU in eval mode: `model` may be an nn.Module or a
    function returning one, as the exporter allows (eager_reference.load)."""
    return load(path)[0].cuda().eval()


def use_torchs_cudnn():
    """Points the runtime (PT2C_LIBCUDNN) at the libcudnn.so.9 torch loads, which need not
    be on the loader path (pip's nvidia-cudnn wheel), unless the caller chose one."""
    if os.environ.get("PT2C_LIBCUDNN") or not torch.backends.cudnn.is_available():
        return
    torch.backends.cudnn.version()  # loads it
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "libcudnn.so" in line}
    if paths:
        os.environ["PT2C_LIBCUDNN"] = sorted(paths)[0]
        print(f"cuDNN: {sorted(paths)[0]} (version {torch.backends.cudnn.version()})")


def add_bundle_arguments(parser):
    """The bundle, the .so in it and its model.py: what bench.py and profile_kernels.py
    both take."""
    parser.add_argument("bundle", type=pathlib.Path)
    parser.add_argument("--so", help="the model in the bundle (default: its only *_cuda.so)")
    parser.add_argument("--model", help="model.py (default: BUNDLE/model.py)")


def open_bundle(args):
    """(bundle folder, the .so, its inputs on the GPU): TF32 off in torch, torch's cuDNN
    for the runtime (use_torchs_cudnn)."""
    bundle = args.bundle.resolve()
    so = bundle / args.so if args.so else next(iter(sorted(bundle.glob("*_cuda.so"))), None)
    if so is None or not so.exists():
        sys.exit(f"no *_cuda.so in {bundle} (or --so)")
    inputs = sorted((bundle / "data").glob("input*.npy"), key=lambda p: int(p.stem[5:]))
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    use_torchs_cudnn()
    return bundle, so, [torch.from_numpy(np.load(p)).cuda() for p in inputs]


def median_ms(fn, runs, warmup):
    """Median of `runs` CUDA-event timings of fn() on the current stream, in ms."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(runs)]
    for start, end in events:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) for start, end in events)


class Pt2cRunner:
    """pt2c_model_run_device on fixed torch tensors, on the current torch stream."""

    def __init__(self, so, xs, env):
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)  # the runtime reads these at create
        try:
            self.lib = Library(so)
            self.model = self.lib.create()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        self.bind(xs)

    def bind(self, xs):
        """Fresh output tensors (new pointers) for inputs `xs`."""
        self.xs = xs  # kept alive
        self.outs = [torch.empty(shape, dtype=torch.from_numpy(np.empty(0, dtype)).dtype,
                                 device="cuda") for dtype, shape in self.lib.outputs(self.model)]
        self.ins, self.keep_in = tensors([(x.data_ptr(), np.dtype(str(x.dtype)[6:]),
                                           tuple(x.shape)) for x in xs])
        self.outs_t, self.keep_out = tensors([(o.data_ptr(), np.dtype(str(o.dtype)[6:]),
                                               tuple(o.shape)) for o in self.outs])
        self.num_inputs = len(xs)

    def rebound(self, xs):
        """The same model on other tensors."""
        other = copy.copy(self)
        other.bind(xs)
        return other

    def __call__(self):
        status = self.lib.lib.pt2c_model_run_device(
            self.model, self.ins, self.num_inputs, self.outs_t, len(self.outs),
            torch.cuda.current_stream().cuda_stream)
        if status != PT2C_OK:
            raise RuntimeError(f"pt2c_model_run_device: status {status}: {self.lib.error()}")
        return self.outs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_bundle_arguments(parser)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--skip-own-kernels", action="store_true",
                        help="check but do not time PT2C_CUBLASLT=0 PT2C_CUDNN=0 (our naive "
                             "convolution kernels take seconds per CNN run)")
    parser.add_argument("--quick", action="store_true",
                        help="pt2c, torch eager and reduce-overhead only (no pt2c variants, "
                             "no default torch.compile): one torch compile per model")
    parser.add_argument("--kernels", type=int, metavar="TOP", default=0,
                        help="then profile one pass of pt2c and of reduce-overhead: kernel "
                             "launches and GPU time, and pt2c's TOP kernels by time")
    args = parser.parse_args()
    bundle, so, xs = open_bundle(args)
    refs = [np.load(p) for p in sorted((bundle / "data").glob("ref*.npy"),
                                       key=lambda p: int(p.stem[3:]))]
    net = load_net(args.model or bundle / "model.py")
    failed = False

    def check(name, outs, tolerance=args.tolerance):
        nonlocal failed
        outs = flatten(outs)
        error = max(relative_error(o.detach().cpu().numpy(), r) for o, r in zip(outs, refs))
        ok = error <= tolerance
        failed |= not ok
        print(f"{'PASS' if ok else 'FAIL'}  {name}: max|out - ref| / max|ref| = {error:.3g}",
              flush=True)
        return error

    variants = {}
    pt2c = Pt2cRunner(so, xs, {})
    variants["pt2c"] = (pt2c, check("pt2c (cuBLASLt + CUDA graph)", pt2c()))
    # The graph bakes in the caller's pointers: new tensors must give a new graph.
    other = pt2c.rebound([x.clone() for x in xs])
    check("pt2c, the same model on new input and output tensors", other())
    check("pt2c, back on the first tensors", pt2c())
    if not args.quick:
        add_pt2c_variants(so, xs, variants, check, args.skip_own_kernels)
    with torch.no_grad():
        eager = lambda: net(*xs)  # noqa: E731
        variants["torch eager"] = (eager, check("torch eager (GPU)", eager()))
        if not args.quick:
            compiled = torch.compile(net)
            variants["torch.compile"] = (lambda: compiled(*xs),
                                         check("torch.compile", compiled(*xs)))
        overhead = torch.compile(net, mode="reduce-overhead")
        for _ in range(3):  # cudagraph trees record on the third call
            overhead(*xs)
        variants["reduce-overhead"] = (lambda: overhead(*xs),
                                       check("torch.compile reduce-overhead", overhead(*xs)))
        times = {}
        for name, (fn, _) in variants.items():  # printed as they come: big models are slow
            times[name] = median_ms(fn, args.runs, args.warmup)
            print(f"{name}: {times[name]:.4f} ms", flush=True)

    name = so.name[:-len("_cuda.so")]
    print(f"\nGPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"CUDA {torch.version.cuda}; median of {args.runs} runs after {args.warmup} "
          f"warm-up runs, CUDA events, ms per run (max rel error vs CPU eager)\n")
    print("| model | " + " | ".join(variants) + " |")
    print("|---" * (len(variants) + 1) + "|")
    print(f"| {name} | " + " | ".join(f"{times[v]:.4f} ({variants[v][1]:.1e})"
                                      for v in variants) + " |")
    speedup = times["reduce-overhead"] / times["pt2c"]
    print(f"\npt2c vs reduce-overhead: {speedup:.2f}x; vs eager: "
          f"{times['torch eager'] / times['pt2c']:.2f}x")
    if args.kernels:
        print_kernel_counts(variants["pt2c"][0], variants["reduce-overhead"][0], args.kernels)
    sys.exit(1 if failed else 0)


def add_pt2c_variants(so, xs, variants, check, skip_own_kernels):
    """The same .so without cuBLASLt and cuDNN, without the CUDA graph, with TF32."""
    own = Pt2cRunner(so, xs, {"PT2C_CUBLASLT": "0", "PT2C_CUDNN": "0"})
    own_error = check("pt2c, own kernels (PT2C_CUBLASLT=0 PT2C_CUDNN=0)", own())
    if not skip_own_kernels:
        variants["pt2c, own kernels"] = (own, own_error)
    nograph = Pt2cRunner(so, xs, {"PT2C_CUDA_GRAPH": "0"})
    variants["pt2c, no graph"] = (nograph,
                                  check("pt2c, no graph (PT2C_CUDA_GRAPH=0)", nograph()))
    tf32 = Pt2cRunner(so, xs, {"PT2C_CUDA_TF32": "1"})
    variants["pt2c, TF32"] = (tf32, check("pt2c, TF32 (PT2C_CUDA_TF32=1)", tf32(), 1e-2))


def print_kernel_counts(pt2c, overhead, top):
    """One line per runner (`kernels per pass: ...`, which bench_zoo.py collects), then
    pt2c's `top` kernels by GPU time (profile_kernels.py's table)."""
    from profile_kernels import kernel_table, print_table, profile
    runs = 10
    tables = {}
    with torch.no_grad():
        for name, fn in (("pt2c", pt2c), ("reduce-overhead", overhead)):
            tables[name] = kernel_table(profile(fn, runs), runs)
    print("kernels per pass: " + "; ".join(
        f"{name} {sum(c for c, _ in t.values()):.0f} ({sum(us for _, us in t.values()):.1f} us GPU)"
        for name, t in tables.items()))
    print_table("pt2c", tables["pt2c"], top)
    print_table("reduce-overhead", tables["reduce-overhead"], top)


if __name__ == "__main__":
    main()
