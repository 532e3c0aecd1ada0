"""The steps of tests/gpu/multigraph, run in order on one model or context through
ctypes (host memory), each output compared with eager's: shared by check.py (CUDA, on the
GPU machine) and tests/e2e/test_multigraph.py (CPU)."""
import ctypes
import os

import numpy as np

# numpy dtype -> pt2c_dtype (pt2c.h)
DTYPES = {np.dtype(np.float32): 1, np.dtype(np.int64): 5, np.dtype(np.bool_): 10}


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


def view(array, keep):
    dims = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
    keep += [array, dims]
    return Tensor(array.ctypes.data, DTYPES[array.dtype], array.ndim, dims)



def run_steps(lib, folder, steps, handle, run, check, tolerance=1e-3):
    """run: pt2c_model_run_method or pt2c_context_run_method; check(name, ok, detail)."""
    for step in steps:
        keep = []
        inputs = (Tensor * len(step["inputs"]))()
        for i, name in enumerate(step["inputs"]):
            if name is not None:
                inputs[i] = view(np.load(os.path.join(folder, name)), keep)
        ref = np.load(os.path.join(folder, step["ref"]))
        out = np.zeros_like(ref)
        output = view(out, keep)
        status = run(handle, step["method"].encode(), inputs, len(step["inputs"]),
                     ctypes.byref(output), 1)
        if status != 0:
            check(step["method"], False, lib.pt2c_last_error().decode())
            continue
        err = float(np.abs(out - ref).max() / max(np.abs(ref).max(), 1e-30))
        check("%s %s" % (step["method"], step["ref"]), err <= tolerance, "(rel err %.2e)" % err)
