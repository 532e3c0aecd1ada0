#!/usr/bin/env python3
"""Device memory of one CUDA model with 1 and 8 execution contexts (pt2c.h), against 8
separate models of the same .so, on the GPU machine:

    python3 contexts.py MODEL_cuda.so [MODEL_cuda.so ...]

Per model: free device memory (torch.cuda.mem_get_info, in this process, which shares
the primary context pt2c uses) after the model's create and one run, after 1 context
and its first run, after 8 contexts and a run each, then the same for 8 separate models.
Inputs are zeros of the model's input shapes (f32 and i64 only). examples/cpp_server
(in the bundle) checks the answers of 8 threads x 200 requests; this measures memory.
"""
import ctypes
import sys

import torch

TORCH_DTYPES = {1: torch.float32, 5: torch.int64}  # pt2c_dtype (pt2c.h): F32, I64


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


def tensors(lib, model, count, info_fn):
    out, keep = (Tensor * count)(), []
    for i in range(count):
        info = TensorInfo()
        assert info_fn(model, i, ctypes.byref(info)) == 0, lib.pt2c_last_error()
        assert info.dtype in TORCH_DTYPES, f"f32 and i64 tensors only, not dtype {info.dtype}"
        shape = [info.dims[d] for d in range(info.rank)]
        buf = torch.zeros(shape, dtype=TORCH_DTYPES[info.dtype])
        keep.append(buf)
        out[i] = Tensor(buf.data_ptr(), info.dtype, info.rank, info.dims)
    return out, keep


def used_mib():
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    return (total - free) / 2**20


def measure(path):
    lib = ctypes.CDLL(path)
    lib.pt2c_last_error.restype = ctypes.c_char_p
    base = used_mib()
    model = ctypes.c_void_p()
    assert lib.pt2c_model_create(ctypes.byref(model)) == 0, lib.pt2c_last_error()
    n_in, n_out = lib.pt2c_model_num_inputs(model), lib.pt2c_model_num_outputs(model)
    ins, keep_in = tensors(lib, model, n_in, lib.pt2c_model_input_info)
    outs, keep_out = tensors(lib, model, n_out, lib.pt2c_model_output_info)
    assert lib.pt2c_model_run(model, ins, n_in, outs, n_out) == 0, lib.pt2c_last_error()
    one_model = used_mib() - base
    contexts = []
    for k in range(8):
        c = ctypes.c_void_p()
        assert lib.pt2c_context_create(model, ctypes.byref(c)) == 0, lib.pt2c_last_error()
        assert lib.pt2c_context_run(c, ins, n_in, outs, n_out) == 0, lib.pt2c_last_error()
        contexts.append(c)
        if k == 0:
            with_one = used_mib() - base
    with_eight = used_mib() - base
    for c in contexts:
        lib.pt2c_context_destroy(c)
    models = []
    for _ in range(7):
        m = ctypes.c_void_p()
        assert lib.pt2c_model_create(ctypes.byref(m)) == 0, lib.pt2c_last_error()
        assert lib.pt2c_model_run(m, ins, n_in, outs, n_out) == 0, lib.pt2c_last_error()
        models.append(m)
    eight_models = used_mib() - base
    for m in models:
        lib.pt2c_model_destroy(m)
    lib.pt2c_model_destroy(model)
    print(f"{path}: device memory used, MiB: model {one_model:.1f}; + 1 context "
          f"{with_one:.1f}; + 8 contexts {with_eight:.1f} "
          f"({(with_eight - one_model) / 8:.1f} per context); 8 separate models "
          f"{eight_models:.1f}")


if __name__ == "__main__":
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # the primary context, before the first reading
    for so in sys.argv[1:]:
        measure(so)
