#!/usr/bin/env python3
"""Benchmarks CPU model.so files from pt2c against PyTorch, in one process, on the same
inputs and the same thread count.

    ~/.cache/pt2c/venv/bin/python tools/bench_cpu.py MODEL.py MODEL.so [MODEL.py MODEL.so ...]
        [--threads 1,2] [--runs 10] [--warmup 3] [--no-compile] [--no-aoti] [--markdown]

MODEL.so is `pt2c MODEL.py -o MODEL.so` (a CPU build: `--cpu native` for this machine);
`-` in its place times PyTorch alone. The systems, on model.py's example_inputs():
  pt2c           the model.so through ctypes (pt2c_model_run on torch tensors' memory;
                 pt2c_set_num_threads(T) where the .so has it, ABI 6)
  eager          model.py's module under torch.no_grad()
  compile        torch.compile(module) (Inductor CPU, default mode); --no-compile skips it
  aoti           AOTInductor: torch._inductor.aoti_compile_and_package on
                 torch.export.export(module, inputs), run through aoti_load_package;
                 --no-aoti skips it (slow to compile on few cores)
PyTorch gets torch.set_num_threads(T). Inductor's CPU code is specialized to the thread
count it was compiled under, so compile and aoti are compiled again for every T (compile
and export times are printed). For each model and thread count: pt2c's outputs (and
compile's and aoti's) against eager's, as max|out - ref| / max|ref| in the model's own
dtypes (bf16 against eager bf16); then `--warmup` rounds and `--runs` timed rounds, each
`--rounds` rounds, each running every system in turn: `--warmup` untimed calls, then
`--runs` timed calls (blocks alternate, so drift on a shared machine hits all systems
alike, and the warm-up, at least 0.5 s, absorbs the OpenMP workers the previous system
left spinning); the median wall time of one call per system over all rounds. Prints a table
(`--markdown`: a markdown table) with eager/pt2c, compile/pt2c and aoti/pt2c (above 1:
pt2c is faster), then the geometric mean of each ratio per thread count.

Caveats. On a machine with as many threads as cores, anything else running (a build)
stalls multi-threaded runs at their barriers: the load average is printed with the
machine. PyTorch's OpenMP workers (libgomp) spin for a while after each parallel region
before they sleep: measured on mlp_large with 2 threads, pt2c called right after eager
took 11.7 ms against 6.1 ms with OMP_WAIT_POLICY=PASSIVE, hence the warm-up per block. --aoti-cache DIR keeps the
AOTInductor packages for the next invocation.

model.py is loaded as pt2c's exporter loads it (compiler/exporter/pt2c_exporter/
model_loader.py: `model` an nn.Module or a function returning one, `example_inputs` a
tuple or a function returning one), in eval mode. Multi-graph models (`signatures`) are
not supported. Exit status 1 when pt2c's output check exceeds --tolerance (default 1e-3
for fp32 outputs, 1e-2 for fp16, 5e-2 for bf16) or a system fails; the timings are
printed anyway.
"""
import argparse
import ctypes
import gc
import hashlib
import math
import os
import pathlib
import platform
import statistics
import sys
import tempfile
import time

import torch
import torch._inductor  # noqa: F401  (aoti_compile_and_package, aoti_load_package)

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "compiler" / "exporter"))
sys.path.insert(0, str(REPO / "tools"))

from eager_reference import flatten  # noqa: E402  (outputs in pt2c's order)

PT2C_OK = 0
# pt2c_dtype (runtime/include/pt2c/pt2c.h) <-> torch
PT2C_DTYPES = {torch.float32: 1, torch.float64: 2, torch.float16: 3, torch.bfloat16: 4,
               torch.int64: 5, torch.int32: 6, torch.int16: 7, torch.int8: 8, torch.uint8: 9,
               torch.bool: 10}
TORCH_DTYPES = {v: k for k, v in PT2C_DTYPES.items()}


class Tensor(ctypes.Structure):  # pt2c_tensor
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


class TensorInfo(ctypes.Structure):  # pt2c_tensor_info
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


WARMUP_SECONDS = 0.5


def tensor_array(tensors):
    """A pt2c_tensor[] over torch tensors' memory (None: an absent input), and what keeps
    its dims alive. The tensors must be contiguous and outlive the array."""
    array, keep = (Tensor * max(1, len(tensors)))(), []
    for i, t in enumerate(tensors):
        if t is None:
            continue  # zero-initialized: absent
        if t.dtype not in PT2C_DTYPES:
            raise ValueError(f"pt2c has no dtype for {t.dtype}")
        dims = (ctypes.c_int64 * max(1, t.dim()))(*t.shape)
        keep.append(dims)
        array[i] = Tensor(t.data_ptr(), PT2C_DTYPES[t.dtype], t.dim(), dims)
    return array, keep


class Pt2cModel:
    """One model.so, loaded with ctypes: created once, run on fixed input and output
    tensors (the outputs are allocated here, from the model's output info)."""

    def __init__(self, path):
        self.path = pathlib.Path(path).resolve()
        lib = self.lib = ctypes.CDLL(str(self.path))
        lib.pt2c_abi_version.restype = ctypes.c_uint32
        lib.pt2c_last_error.restype = ctypes.c_char_p
        lib.pt2c_model_create.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.pt2c_model_destroy.argtypes = [ctypes.c_void_p]
        for name in ("pt2c_model_num_inputs", "pt2c_model_num_outputs"):
            getattr(lib, name).argtypes = [ctypes.c_void_p]
        for name in ("pt2c_model_input_info", "pt2c_model_output_info"):
            getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_int32,
                                           ctypes.POINTER(TensorInfo)]
        lib.pt2c_model_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(Tensor), ctypes.c_int32,
                                       ctypes.POINTER(Tensor), ctypes.c_int32]
        self.has_output_shape = hasattr(lib, "pt2c_model_output_shape")  # ABI 4
        if self.has_output_shape:
            lib.pt2c_model_output_shape.argtypes = [
                ctypes.c_void_p, ctypes.POINTER(Tensor), ctypes.c_int32, ctypes.c_int32,
                ctypes.POINTER(ctypes.c_int64)]
        self.has_threads = hasattr(lib, "pt2c_set_num_threads")  # ABI 6
        if self.has_threads:
            lib.pt2c_set_num_threads.argtypes = [ctypes.c_int32]
            lib.pt2c_num_threads.restype = ctypes.c_int32
        self.abi = lib.pt2c_abi_version()
        model = ctypes.c_void_p()
        self.check(lib.pt2c_model_create(ctypes.byref(model)), "pt2c_model_create")
        self.model = model

    def error(self):
        return self.lib.pt2c_last_error().decode(errors="replace")

    def check(self, status, what):
        if status != PT2C_OK:
            raise RuntimeError(f"{what}: status {status}: {self.error()}")

    def info(self, kind, index):
        info = TensorInfo()
        self.check(getattr(self.lib, f"pt2c_model_{kind}_info")(self.model, index,
                                                                 ctypes.byref(info)),
                   f"pt2c_model_{kind}_info({index})")
        return TORCH_DTYPES.get(info.dtype), [info.dims[d] for d in range(info.rank)]

    def set_threads(self, threads):
        """pt2c_set_num_threads where the .so has it; -> the count runs use, or None."""
        if not self.has_threads:
            return None
        self.check(self.lib.pt2c_set_num_threads(threads), "pt2c_set_num_threads")
        return self.lib.pt2c_num_threads()

    def bind(self, inputs):
        """Fixes the inputs (torch tensors or None) and allocates the outputs."""
        self.inputs = [None if x is None else x.contiguous() for x in inputs]
        self.ins, self.keep_in = tensor_array(self.inputs)
        self.outputs = []
        for i in range(self.lib.pt2c_model_num_outputs(self.model)):
            dtype, dims = self.info("output", i)
            if dtype is None:
                raise RuntimeError(f"output {i} has a dtype this script does not know")
            if any(d < 0 for d in dims):  # dynamic dimensions: the sizes for these inputs
                if not self.has_output_shape:
                    raise RuntimeError(f"output {i} has dynamic dims {dims} and this .so has "
                                       "no pt2c_model_output_shape")
                out = (ctypes.c_int64 * max(1, len(dims)))()
                self.check(self.lib.pt2c_model_output_shape(
                    self.model, self.ins, len(self.inputs), i, out),
                    f"pt2c_model_output_shape({i})")
                dims = list(out[:len(dims)])
            self.outputs.append(torch.empty(dims, dtype=dtype))
        self.outs, self.keep_out = tensor_array(self.outputs)

    def __call__(self):
        self.check(self.lib.pt2c_model_run(self.model, self.ins, len(self.inputs), self.outs,
                                           len(self.outputs)), "pt2c_model_run")
        return self.outputs

    def close(self):
        self.lib.pt2c_model_destroy(self.model)
        self.model = None


def load_model(path):
    """(module in eval mode, inputs) as pt2c's exporter loads model.py (model_loader);
    tools/eager_reference.py's loader where the exporter's package does not import."""
    try:
        from pt2c_exporter import model_loader
    except ImportError:
        from eager_reference import load
        return load(path)
    shown = os.path.basename(path)
    module = model_loader._import_file(path)
    net = model_loader._load_module_object(module, shown)
    if hasattr(module, "signatures") and not hasattr(module, "example_inputs"):
        raise SystemExit(f"{path}: multi-graph models (`signatures`) are not supported; "
                         "bench_cpu.py times forward on example_inputs")
    inputs = model_loader._attribute(module, shown, "example_inputs",
                                     model_loader._INPUTS_EXPECTED)
    if callable(inputs) and not isinstance(inputs, torch.Tensor):
        inputs = model_loader._call(inputs, shown, "example_inputs()")
    model_loader._check_inputs(inputs, shown)
    return net.eval(), tuple(inputs)


def model_name(path):
    path = pathlib.Path(path)
    return path.parent.name if path.stem == "model" else path.stem


def relative_error(outs, refs):
    """max over outputs of max|out - ref| / max|ref|, in float64 (nan: counts differ)."""
    outs, refs = flatten(outs), flatten(refs)
    if len(outs) != len(refs):
        print(f"    {len(outs)} outputs, eager has {len(refs)}", flush=True)
        return math.nan
    worst = 0.0
    for out, ref in zip(outs, refs):
        if tuple(out.shape) != tuple(ref.shape):
            print(f"    output shape {tuple(out.shape)}, eager's {tuple(ref.shape)}", flush=True)
            return math.nan
        out, ref = out.detach().double(), ref.detach().double()
        scale = float(ref.abs().max()) if ref.numel() else 0.0
        diff = float((out - ref).abs().max()) if ref.numel() else 0.0
        worst = max(worst, diff / scale if scale > 0 else diff)
    return worst


def tolerance_for(refs, tolerance):
    if tolerance is not None:
        return tolerance
    dtypes = {t.dtype for t in flatten(refs)}
    # bf16 keeps 8 significant bits: where another system rounds at other points than
    # eager (Inductor keeps fused intermediates in f32), a 12-layer encoder differs by ~3%.
    return 5e-2 if torch.bfloat16 in dtypes else 1e-2 if torch.float16 in dtypes else 1e-3


def machine():
    name, flags = platform.processor() or "?", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    name = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
                if name != "?" and flags:
                    break
    except OSError:
        pass
    shown = [f for f in ("avx2", "avx512f", "avx512_bf16", "avx512_vnni", "amx_tile") if f in flags]
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"CPU: {name}; flags: {' '.join(shown) or 'none of avx2/avx512'}; "
            f"{os.cpu_count()} cores ({usable} usable); torch {torch.__version__}; "
            f"python {platform.python_version()}; load average "
            + " ".join(f"{x:.2f}" for x in os.getloadavg()))


def aoti_package(net, inputs, threads, cache_dir, tag):
    """(callable, seconds to export, seconds to compile, reused?) for AOTInductor under
    the current thread count; cache_dir keeps packages between invocations."""
    path = None
    if cache_dir:
        cache_dir.mkdir(parents=True, exist_ok=True)
        path = cache_dir / f"{tag}_t{threads}_torch{torch.__version__.replace('+', '_')}.pt2"
        if path.exists():
            return torch._inductor.aoti_load_package(str(path)), 0.0, 0.0, True
    start = time.perf_counter()
    exported = torch.export.export(net, inputs)
    exported_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory(prefix="bench_cpu_aoti_") as scratch:
        # Loading extracts the package, so a package of our own can go at once.
        path = path or pathlib.Path(scratch) / f"{tag}.pt2"
        start = time.perf_counter()
        package = torch._inductor.aoti_compile_and_package(exported, package_path=str(path))
        compiled_s = time.perf_counter() - start
        del exported
        return torch._inductor.aoti_load_package(package), exported_s, compiled_s, False


def fmt_ms(value):
    return "-" if value is None else f"{value:.3f}"


def fmt_ratio(num, den):
    return "-" if num is None or den is None else f"{num / den:.2f}x"


def bench_one(name, net, inputs, pt2c, threads, args, tag, failures):
    """Checks and times every system on one model at one thread count; -> the table row.
    What it compiles is dropped on return."""
    torch.set_num_threads(threads)
    label = f"  [{name}, {threads} thread{'s' if threads > 1 else ''}]"
    with torch.no_grad():
        refs = net(*inputs)
    tolerance = tolerance_for(refs, args.tolerance)
    systems = {}  # name -> zero-argument callable
    errors = {}
    if pt2c is not None:
        used = pt2c.set_threads(threads)
        if used is not None and used != threads:
            print(f"{label} pt2c_num_threads() is {used}", flush=True)
        try:
            errors["pt2c"] = relative_error(pt2c(), refs)
            systems["pt2c"] = pt2c
        except RuntimeError as e:
            print(f"{label} pt2c: FAILED: {e}", flush=True)
            failures.append(f"{name} T={threads}: pt2c: {e}")

    def eager():
        with torch.no_grad():
            return net(*inputs)
    systems["eager"] = eager

    if not args.no_compile:
        try:
            torch._dynamo.reset()  # Inductor specialized the last one to its threads
            compiled = torch.compile(net)

            def run_compiled(compiled=compiled):
                with torch.no_grad():
                    return compiled(*inputs)
            start = time.perf_counter()
            out = run_compiled()
            print(f"{label} torch.compile: first call (compile) "
                  f"{time.perf_counter() - start:.1f}s", flush=True)
            errors["compile"] = relative_error(out, refs)
            systems["compile"] = run_compiled
        except Exception as e:  # noqa: BLE001  (report, time the others)
            print(f"{label} torch.compile: FAILED: {type(e).__name__}: {e}", flush=True)
            failures.append(f"{name} T={threads}: torch.compile: {type(e).__name__}")

    if not args.no_aoti:
        try:
            loaded, exported_s, compiled_s, reused = aoti_package(
                net, inputs, threads, args.aoti_cache, tag)
            print(f"{label} AOTInductor: " + (
                f"package reused from {args.aoti_cache}" if reused else
                f"torch.export {exported_s:.1f}s, aoti_compile_and_package "
                f"{compiled_s:.1f}s"), flush=True)

            def run_aoti(loaded=loaded):
                with torch.no_grad():
                    return loaded(*inputs)
            errors["aoti"] = relative_error(run_aoti(), refs)
            systems["aoti"] = run_aoti
        except Exception as e:  # noqa: BLE001
            print(f"{label} AOTInductor: FAILED: {type(e).__name__}: {e}", flush=True)
            failures.append(f"{name} T={threads}: AOTInductor: {type(e).__name__}")

    for system, error in errors.items():
        ok = error <= tolerance  # nan: False
        print(f"{label} {system} vs eager: max|out - ref| / max|ref| = {error:.3g}"
              + ("" if ok else f"  EXCEEDS {tolerance:g}"), flush=True)
        if not ok and system == "pt2c":  # torch's own numerics are only shown
            failures.append(f"{name} T={threads}: {system} error {error:.3g}")

    # Blocks, not single calls, per system: the block's warm-up absorbs the previous
    # system's leftovers. OpenMP workers keep spinning after a parallel region (libgomp
    # for milliseconds, the runtime of Inductor's compiled code for up to ~200 ms, Intel
    # OpenMP's default KMP_BLOCKTIME), on the cores the next system needs: measured on
    # mobilenet_v3_large with 2 threads, pt2c took 15.7 ms after 2 warm-up calls and 7.9 ms
    # after 20. So the warm-up lasts --warmup calls and at least WARMUP_SECONDS.
    times = {system: [] for system in systems}
    for _ in range(args.rounds):
        for system, fn in systems.items():
            start = time.perf_counter()
            calls = 0
            while calls < args.warmup or time.perf_counter() - start < WARMUP_SECONDS:
                fn()
                calls += 1
            for _ in range(args.runs):
                start = time.perf_counter()
                fn()
                times[system].append((time.perf_counter() - start) * 1e3)
    median = {system: statistics.median(t) for system, t in times.items()}
    print(label + " " + ", ".join(f"{s} {m:.3f} ms" for s, m in median.items()),
          flush=True)
    return {"model": name, "threads": threads, "error": errors.get("pt2c"),
            **{s: median.get(s) for s in ("pt2c", "eager", "compile", "aoti")}}


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("pairs", nargs="+", metavar="MODEL.py MODEL.so",
                        help="model.py and its pt2c model.so (`-`: no pt2c), repeated")
    parser.add_argument("--threads", default="1,2",
                        help="thread counts, comma-separated (default 1,2)")
    parser.add_argument("--runs", type=int, default=10,
                        help="timed calls per system and round (default 10)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="rounds over the systems (default 2)")
    parser.add_argument("--warmup", type=int, default=3,
                        help="untimed calls per system before each timed block, lasting at least "
                             "0.5 s (default 3)")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("--no-aoti", action="store_true", help="skip AOTInductor")
    parser.add_argument("--aoti-cache", type=pathlib.Path, default=None,
                        help="keep AOTInductor packages here and reuse them on later runs "
                             "(keyed by model.py's contents, thread count, torch version)")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="largest max|out - ref| / max|ref| against eager (default 1e-3, "
                             "1e-2 for fp16, 5e-2 for bf16 outputs)")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("expected MODEL.py MODEL.so pairs")
    pairs = list(zip(args.pairs[0::2], args.pairs[1::2]))
    for model_py, so in pairs:
        if not model_py.endswith(".py") or not os.path.isfile(model_py):
            parser.error(f"{model_py}: not a model.py file (arguments are MODEL.py MODEL.so pairs)")
        if so != "-" and not os.path.isfile(so):
            parser.error(f"{so}: no such file (`-` times PyTorch alone)")
    thread_counts = [int(t) for t in args.threads.split(",") if t.strip()]
    if (not thread_counts or min(thread_counts) < 1 or args.runs < 1 or args.warmup < 0
            or args.rounds < 1):
        parser.error("--threads needs counts >= 1, --runs >= 1, --rounds >= 1, --warmup >= 0")

    print(machine(), flush=True)
    print(f"median ms per call over {args.rounds} rounds of {args.runs} timed calls per "
          f"system, each block after {args.warmup} warm-up calls", flush=True)
    rows, failures = [], []
    for model_py, so in pairs:
        name = model_name(model_py)
        print(f"\n== {name}: {model_py}" + (f", {so}" if so != "-" else ", no pt2c"), flush=True)
        start = time.perf_counter()
        net, inputs = load_model(model_py)
        print(f"  model.py loaded in {time.perf_counter() - start:.1f}s; inputs "
              + ", ".join("None" if x is None else f"{x.dtype}{list(x.shape)}" for x in inputs),
              flush=True)
        tag = f"{name}_{hashlib.sha256(pathlib.Path(model_py).read_bytes()).hexdigest()[:12]}"
        pt2c = None
        if so != "-":
            try:
                pt2c = Pt2cModel(so)
                pt2c.bind(inputs)
                print(f"  pt2c: {pt2c.path.name}, ABI {pt2c.abi}"
                      + ("" if pt2c.has_threads else ", no pt2c_set_num_threads (its default "
                                                      "thread count throughout)"), flush=True)
            except (OSError, RuntimeError, ValueError) as e:
                print(f"  pt2c: FAILED: {e}", flush=True)
                failures.append(f"{name}: pt2c: {e}")
                pt2c = None

        for threads in thread_counts:
            rows.append(bench_one(name, net, inputs, pt2c, threads, args, tag, failures))
            gc.collect()
        torch._dynamo.reset()
        if pt2c is not None:
            pt2c.close()
        del net, inputs
        gc.collect()

    header = ["model", "threads", "pt2c ms", "eager ms", "compile ms", "aoti ms",
              "eager/pt2c", "compile/pt2c", "aoti/pt2c", "pt2c err"]
    table = [[r["model"], str(r["threads"]), fmt_ms(r["pt2c"]), fmt_ms(r["eager"]),
              fmt_ms(r["compile"]), fmt_ms(r["aoti"]), fmt_ratio(r["eager"], r["pt2c"]),
              fmt_ratio(r["compile"], r["pt2c"]), fmt_ratio(r["aoti"], r["pt2c"]),
              "-" if r["error"] is None else f"{r['error']:.1e}"] for r in rows]
    print()
    print(machine())
    print(f"median ms per call over {args.rounds} rounds of {args.runs} timed calls per system "
          f"({args.warmup} warm-up calls before each block); ratios above 1: pt2c is faster; "
          "pt2c err: max|out - ref| / max|ref| against eager\n")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for line in table:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(h), *(len(line[i]) for line in table)) for i, h in enumerate(header)]
        print("  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in
                        enumerate(zip(header, widths))))
        for line in table:
            print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                            enumerate(zip(line, widths))))
    print()
    for threads in thread_counts:
        parts = []
        for system in ("eager", "compile", "aoti"):
            ratios = [r[system] / r["pt2c"] for r in rows
                      if r["threads"] == threads and r[system] and r["pt2c"]]
            if ratios:
                geomean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
                parts.append(f"{system}/pt2c {geomean:.2f}x over {len(ratios)} "
                             f"model{'s' if len(ratios) > 1 else ''}")
        print(f"geomean, {threads} thread{'s' if threads > 1 else ''}: "
              + ("; ".join(parts) if parts else "no pt2c timings"))
    if failures:
        print("\nproblems:\n  " + "\n  ".join(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
