#!/usr/bin/env python3
"""Checks a prebuilt CUDA model.so on a machine with an NVIDIA GPU (no Bazel, no pt2c).

The bundle comes from tests/gpu/make_mlp_cuda_bundle.sh on the build machine:

    BUNDLE/mlp_cuda.so         pt2c examples/mlp/model.py --target cuda (the bundle
                               script's --model makes NAME_cuda.so for another model)
    BUNDLE/cpp_host            the C++ host (examples/cpp_host), optional
    BUNDLE/data/input0.npy     inputs, and PyTorch eager (CPU) outputs for them:
    BUNDLE/data/ref0.npy       tools/eager_reference.py

    python3 run_mlp_cuda.py BUNDLE [--tolerance 1e-3] [--so NAME_cuda.so]

Checks, each printed as PASS/FAIL/SKIP, exit status 1 on any FAIL:
  1. cpp_host runs the .so (host memory, pt2c_model_run) within the tolerance;
  2. the same through ctypes, three runs in a row (weights stay, arena is reused);
  3. pt2c_model_run_device on torch CUDA tensors on a non-default torch stream, then on
     five more sets of output tensors and the first again (a CUDA graph per set for the
     first four, then copies through the staging buffers) (skipped without torch);
  4. a wrong input dtype is refused with PT2C_ERROR_DTYPE, a null model with an error.
The metric is max|out - ref| / max|ref| (fp32: 1e-3 by default).
Needs numpy; torch (with CUDA) for check 3.
"""
import argparse
import ctypes
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

PT2C_OK, PT2C_ERROR_DTYPE = 0, 3
PT2C_DEVICE_CUDA = 1
PT2C_I32 = 6
DTYPES = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.float16): 3,
          np.dtype(np.int64): 5, np.dtype(np.int32): 6, np.dtype(np.int16): 7,
          np.dtype(np.int8): 8, np.dtype(np.uint8): 9, np.dtype(np.bool_): 10,
          # bf16 travels as its bit patterns (NumPy has none), as tools/eager_reference.py
          # writes it
          np.dtype(np.uint16): 4}
NUMPY_OF = {v: k for k, v in DTYPES.items()}


def as_float(array):
    """bf16 bit patterns (uint16) as the float32 values they stand for; others as they are."""
    if array.dtype == np.uint16:
        return (array.astype(np.uint32) << 16).view(np.float32)
    return array


def to_torch(array):
    """A NumPy array as a torch tensor on the GPU (bf16 bit patterns as int16, same bits)."""
    import torch
    return torch.from_numpy(array.view(np.int16) if array.dtype == np.uint16 else array).cuda()


class Tensor(ctypes.Structure):  # pt2c_tensor
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


class TensorInfo(ctypes.Structure):  # pt2c_tensor_info
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


results = []


def report(name, ok, detail=""):
    status = {True: "PASS", False: "FAIL", None: "SKIP"}[ok]
    results.append(ok)
    print(f"{status}  {name}{': ' + detail if detail else ''}", flush=True)


def relative_error(out, ref):
    out, ref = as_float(out), as_float(ref)
    scale = float(np.abs(ref).max())
    diff = float(np.abs(out.astype(np.float64) - ref.astype(np.float64)).max())
    return diff / scale if scale > 0 else diff


class Library:
    def __init__(self, path):
        self.lib = ctypes.CDLL(str(path))
        lib = self.lib
        lib.pt2c_abi_version.restype = ctypes.c_uint32
        lib.pt2c_last_error.restype = ctypes.c_char_p
        lib.pt2c_model_create.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.pt2c_model_destroy.argtypes = [ctypes.c_void_p]
        lib.pt2c_model_device.argtypes = [ctypes.c_void_p]
        for name in ("pt2c_model_num_inputs", "pt2c_model_num_outputs"):
            getattr(lib, name).argtypes = [ctypes.c_void_p]
        for name in ("pt2c_model_input_info", "pt2c_model_output_info"):
            getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_int32,
                                           ctypes.POINTER(TensorInfo)]
        run_args = [ctypes.c_void_p, ctypes.POINTER(Tensor), ctypes.c_int32,
                    ctypes.POINTER(Tensor), ctypes.c_int32]
        lib.pt2c_model_run.argtypes = run_args
        lib.pt2c_model_run_device.argtypes = run_args + [ctypes.c_void_p]

    def error(self):
        return self.lib.pt2c_last_error().decode()

    def create(self):
        model = ctypes.c_void_p()
        status = self.lib.pt2c_model_create(ctypes.byref(model))
        if status != PT2C_OK:
            raise RuntimeError(f"pt2c_model_create: status {status}: {self.error()}")
        return model

    def outputs(self, model):
        infos = []
        for i in range(self.lib.pt2c_model_num_outputs(model)):
            info = TensorInfo()
            assert self.lib.pt2c_model_output_info(model, i, ctypes.byref(info)) == PT2C_OK
            infos.append((NUMPY_OF[info.dtype], tuple(info.dims[d] for d in range(info.rank))))
        return infos


def tensors(arrays_or_pointers):
    """pt2c_tensor array over (pointer, dtype, shape) triples; keeps dims alive."""
    keep, array = [], (Tensor * len(arrays_or_pointers))()
    for i, (pointer, dtype, shape) in enumerate(arrays_or_pointers):
        dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        keep.append(dims)
        array[i] = Tensor(pointer, DTYPES[np.dtype(dtype)], len(shape), dims)
    return array, keep


def check_cpp_host(bundle, so, inputs, refs, tolerance):
    host = bundle / "cpp_host"
    if not host.exists():
        return report("cpp_host (host memory)", None, "no cpp_host in the bundle")
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(host), str(so), "--output-dir", out,
               "--tolerance", str(tolerance)]
        for p in inputs:
            cmd += ["--input", str(p)]
        for p in refs:
            cmd += ["--reference", str(p)]
        result = subprocess.run(cmd, capture_output=True, text=True)
        print(result.stdout + result.stderr, end="")
        errors = [relative_error(np.load(pathlib.Path(out) / f"{i}.npy"), np.load(r))
                  for i, r in enumerate(refs) if (pathlib.Path(out) / f"{i}.npy").exists()]
        ok = result.returncode == 0 and len(errors) == len(refs) and max(errors) <= tolerance
        report("cpp_host (host memory)", ok, f"exit {result.returncode}, rel {errors}")


def check_host_memory(lib, model, inputs, refs, tolerance):
    xs = [np.ascontiguousarray(np.load(p)) for p in inputs]
    ref_arrays = [np.load(p) for p in refs]
    outs = [np.empty(shape, dtype) for dtype, shape in lib.outputs(model)]
    ins, keep_in = tensors([(x.ctypes.data, x.dtype, x.shape) for x in xs])
    outs_t, keep_out = tensors([(o.ctypes.data, o.dtype, o.shape) for o in outs])
    worst = 0.0
    for _ in range(3):
        for o in outs:
            o.view(np.uint8).fill(0xFF)  # a NaN in f16, bf16 and f32 alike
        status = lib.lib.pt2c_model_run(model, ins, len(xs), outs_t, len(outs))
        if status != PT2C_OK:
            return report("pt2c_model_run (host memory, 3 runs)", False,
                          f"status {status}: {lib.error()}")
        worst = max([worst] + [relative_error(o, r) for o, r in zip(outs, ref_arrays)])
    report("pt2c_model_run (host memory, 3 runs)", worst <= tolerance, f"rel {worst:.3g}")

    bad = xs[0].astype(np.int32)
    wrong, keep_bad = tensors([(bad.ctypes.data, bad.dtype, bad.shape)] +
                              [(x.ctypes.data, x.dtype, x.shape) for x in xs[1:]])
    status = lib.lib.pt2c_model_run(model, wrong, len(xs), outs_t, len(outs))
    report("wrong dtype is refused", status == PT2C_ERROR_DTYPE, lib.error())


def check_device_memory(lib, model, inputs, refs, tolerance):
    try:
        import torch
    except ImportError:
        return report("pt2c_model_run_device (torch tensors, own stream)", None, "no torch")
    if not torch.cuda.is_available():
        return report("pt2c_model_run_device (torch tensors, own stream)", None,
                      "torch sees no GPU")
    arrays = [np.load(p) for p in inputs]
    xs = [to_torch(a) for a in arrays]
    infos = lib.outputs(model)

    def unwritten():
        """Output tensors with all bits set (a NaN in f16, bf16 and f32 alike), which
        show where a run writes nothing."""
        return [to_torch(np.full(int(np.prod(shape)) * np.dtype(dtype).itemsize, 0xFF,
                                 np.uint8).view(dtype).reshape(shape))
                for dtype, shape in infos]

    def run_into(torch_outs):
        """Queues one run on `stream` writing `torch_outs`; returns its status."""
        pt2c_outs, keep = tensors([(o.data_ptr(), np.dtype(dtype), shape)
                                   for o, (dtype, shape) in zip(torch_outs, infos)])
        with torch.cuda.stream(stream):
            return lib.lib.pt2c_model_run_device(model, ins, len(xs), pt2c_outs,
                                                 len(torch_outs),
                                                 ctypes.c_void_p(stream.cuda_stream))

    def errors_of(torch_outs):
        return [relative_error(o.cpu().numpy().view(np.dtype(dtype)), np.load(r))
                for o, (dtype, _), r in zip(torch_outs, infos, refs)]

    outs = unwritten()
    ins, keep_in = tensors([(x.data_ptr(), a.dtype, a.shape) for x, a in zip(xs, arrays)])
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    status = run_into(outs)
    if status != PT2C_OK:
        return report("pt2c_model_run_device (torch tensors, own stream)", False,
                      f"status {status}: {lib.error()}")
    stream.synchronize()
    errors = errors_of(outs)
    report("pt2c_model_run_device (torch tensors, own stream)", max(errors) <= tolerance,
           f"rel {errors}")

    # Output tensors that move: a graph per set for the first four sets (the runtime's
    # kCudaGraphsPerModel), then copies through the staging buffers; every run's result
    # is checked, the first set's last.
    sets = [unwritten() for _ in range(5)] + [outs]
    for torch_outs in sets:
        status = run_into(torch_outs)
        if status != PT2C_OK:
            return report("pt2c_model_run_device on six sets of output tensors", False,
                          f"status {status}: {lib.error()}")
    stream.synchronize()
    errors = [e for torch_outs in sets for e in errors_of(torch_outs)]
    report("pt2c_model_run_device on six sets of output tensors (graphs, then staging)",
           max(errors) <= tolerance, f"max rel {max(errors):.3g}")

    # Time queued runs (no copies): what the device path is for.
    outs_t, keep_out = tensors([(o.data_ptr(), np.dtype(dtype), shape)
                                for o, (dtype, shape) in zip(outs, infos)])
    runs = 100
    start = time.perf_counter()
    for _ in range(runs):
        lib.lib.pt2c_model_run_device(model, ins, len(xs), outs_t, len(outs),
                                      ctypes.c_void_p(stream.cuda_stream))
    stream.synchronize()
    elapsed = (time.perf_counter() - start) / runs
    print(f"      {runs} device runs: {elapsed * 1e6:.1f} us each "
          f"({torch.cuda.get_device_name()})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=pathlib.Path)
    parser.add_argument("--tolerance", type=float, default=1e-3)
    parser.add_argument("--so", help="the model in the bundle (default: its only *_cuda.so)")
    args = parser.parse_args()
    bundle = args.bundle.resolve()
    candidates = [bundle / args.so] if args.so else sorted(bundle.glob("*_cuda.so"))
    if len(candidates) != 1 or not candidates[0].exists():
        sys.exit(f"expected one *_cuda.so in {bundle} (or --so), found {candidates}")
    so = candidates[0]
    print(f"model: {so.name}")
    data = bundle / "data"
    inputs = sorted(data.glob("input*.npy"), key=lambda p: int(p.stem[5:]))
    refs = sorted(data.glob("ref*.npy"), key=lambda p: int(p.stem[3:]))
    if not inputs or not refs:
        sys.exit(f"no input*.npy / ref*.npy in {data}")

    check_cpp_host(bundle, so, inputs, refs, args.tolerance)
    lib = Library(so)
    # Version 2 brought pt2c_model_run_device, which check 3 uses.
    report("ABI version >= 2", lib.lib.pt2c_abi_version() >= 2, str(lib.lib.pt2c_abi_version()))
    try:
        model = lib.create()
    except RuntimeError as error:
        report("pt2c_model_create", False, str(error))
        sys.exit(1)
    report("the model runs on CUDA", lib.lib.pt2c_model_device(model) == PT2C_DEVICE_CUDA)
    check_host_memory(lib, model, inputs, refs, args.tolerance)
    check_device_memory(lib, model, inputs, refs, args.tolerance)
    status = lib.lib.pt2c_model_run(None, None, 0, None, 0)
    report("a null model is an error, not a crash", status != PT2C_OK, lib.error())
    lib.lib.pt2c_model_destroy(model)
    failed = results.count(False)
    print(f"{results.count(True)} passed, {failed} failed, {results.count(None)} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
