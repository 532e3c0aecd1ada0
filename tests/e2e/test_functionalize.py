"""Functionalization end to end (compiler/transforms/functionalize): in-place ops on
views and intermediates, buffers written in place (a KV-style cache, index_copy_ at a
step counter) over several runs, masked_fill_ through views, and input mutation, each
against PyTorch eager."""
import ctypes

import numpy as np
import torch

from conftest import env_without_python, load_model_file, run
from harness import check_against_eager, compile_model, write_model

VIEWS_AND_IN_PLACE = """
    import torch

    class M(torch.nn.Module):
        def forward(self, x, y):
            h = x * 2                      # an intermediate, written below
            t = h.t()                      # a view taken before the writes, read after
            h[:, 0] += y                   # in place on a select
            h.view(24).mul_(2)             # in place on a view of the whole tensor
            h[1:3, 2:].sub_(t[0:2])        # a slice written from another alias of h
            h.relu_()
            out = torch.zeros(4, 10)
            out[..., :6] = h
            out[..., 6:] = t[:4, :4]       # t shows h's final values
            return out, t.sum(0)

    def model():
        return M()

    example_inputs = (torch.randn(4, 6), torch.randn(4))
"""


def test_views_and_in_place_chains(pt2c, cpp_host, python, tmp_path):
    model_py = write_model(tmp_path, VIEWS_AND_IN_PLACE)
    check_against_eager(pt2c, cpp_host, python, model_py, tmp_path)


MASKED_FILL = """
    import torch

    class M(torch.nn.Module):
        def forward(self, x):
            h = x + 1
            h.t().masked_fill_(h.t() > 1.5, -1.0)     # through a transpose
            h[1:].masked_fill_(x[1:] < -0.5, 5.0)      # through a slice
            q, k = h.split(3, dim=1)
            k.masked_fill_(q > 0, 0.25)                # through a split piece
            return h

    def model():
        return M()

    example_inputs = (torch.randn(4, 6),)
"""


def test_masked_fill_through_views(pt2c, cpp_host, python, tmp_path):
    model_py = write_model(tmp_path, MASKED_FILL)
    check_against_eager(pt2c, cpp_host, python, model_py, tmp_path)


CACHES = """
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("kv", torch.zeros(2, 1, 2, 8, 4))
            self.register_buffer("rows", torch.zeros(5, 3))
            self.register_buffer("step", torch.zeros(1, dtype=torch.long))

        def forward(self, k, v, x):
            t = k.shape[2]
            self.kv[0, :1, :, :t] += k     # accumulates over runs
            self.kv[1, :1, :, :t] = v      # copy_ into a slice of a select
            self.rows.index_copy_(0, self.step, x)
            self.step.add_(1)
            return self.kv * 1.0, self.rows + 0.0, self.step * 1

    def model():
        torch.manual_seed(0)
        return M()

    example_inputs = (torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4), torch.randn(1, 3))
"""


def test_buffer_caches_over_runs(pt2c, cpp_host, tmp_path):
    model_py = write_model(tmp_path, CACHES)
    so = compile_model(pt2c, model_py, tmp_path)
    generator = torch.Generator().manual_seed(3)
    inputs = [torch.randn(1, 2, 3, 4, generator=generator),
              torch.randn(1, 2, 3, 4, generator=generator), torch.randn(1, 3, generator=generator)]
    cmd = [cpp_host, so, "--tolerance", "1e-5"]
    for i, t in enumerate(inputs):
        np.save(tmp_path / f"input{i}.npy", t.numpy())
        cmd += ["--input", tmp_path / f"input{i}.npy"]
    for runs in (1, 3):
        module, _ = load_model_file(model_py)  # fresh state, as the .so starts with
        with torch.no_grad():
            for _ in range(runs):
                refs = module(*inputs)
        assert int(refs[2]) == runs and float(refs[0][0].abs().max()) > 0
        ref_args = []
        for i, r in enumerate(refs):
            np.save(tmp_path / f"ref{runs}_{i}.npy", r.numpy())
            ref_args += ["--reference", tmp_path / f"ref{runs}_{i}.npy"]
        result = run(cmd + ["--runs", str(runs)] + ref_args, env=env_without_python())
        assert result.returncode == 0, result.stdout + result.stderr


INPUT_MUTATION = """
    import torch

    class M(torch.nn.Module):
        def forward(self, x, y):
            before = x * 2
            x[1:].mul_(3)          # through a view of the input
            x.add_(y)              # the input itself
            return before + x

    def model():
        return M()

    example_inputs = (torch.randn(4, 5), torch.randn(5))
"""


class _Tensor(ctypes.Structure):  # pt2c_tensor (runtime/include/pt2c/pt2c.h)
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


def _tensor(array, keep):
    dims = (ctypes.c_int64 * array.ndim)(*array.shape)
    keep.append(dims)
    return _Tensor(array.ctypes.data, 1, array.ndim, dims)  # 1: PT2C_DTYPE_FLOAT32


def test_input_mutation_writes_the_callers_input(pt2c, cpp_host, python, tmp_path):
    model_py = write_model(tmp_path, INPUT_MUTATION)
    # The output, through cpp_host (eager_reference saves the inputs before the run).
    so, _ = check_against_eager(pt2c, cpp_host, python, model_py, tmp_path)
    # The input, through the C ABI: the caller's buffer holds the new value after the run.
    generator = torch.Generator().manual_seed(11)
    x, y = torch.randn(4, 5, generator=generator), torch.randn(5, generator=generator)
    x_np, y_np = x.numpy().copy(), y.numpy().copy()
    module, _ = load_model_file(model_py)
    with torch.no_grad():
        expected_out = module(x, y)  # writes x
    lib = ctypes.CDLL(str(so))
    lib.pt2c_last_error.restype = ctypes.c_char_p
    model = ctypes.c_void_p()
    assert lib.pt2c_model_create(ctypes.byref(model)) == 0, lib.pt2c_last_error()
    try:
        out = np.zeros((4, 5), np.float32)
        keep = []
        inputs = (_Tensor * 2)(_tensor(x_np, keep), _tensor(y_np, keep))
        outputs = (_Tensor * 1)(_tensor(out, keep))
        status = lib.pt2c_model_run(model, inputs, 2, outputs, 1)
        assert status == 0, lib.pt2c_last_error()
    finally:
        lib.pt2c_model_destroy(model)
    assert np.abs(x_np - x.numpy()).max() <= 1e-5 * np.abs(x.numpy()).max()
    assert np.abs(out - expected_out.numpy()).max() <= 1e-5 * np.abs(expected_out.numpy()).max()
    assert np.array_equal(y_np, y.numpy())  # the input nobody writes is left alone


FRESH_CONSTANT = """
    import torch

    class M(torch.nn.Module):
        def forward(self, x):
            c = torch.tensor([1.0, 2.0, 3.0])   # captured once, fresh on every call
            c[1] = 5.0
            c.mul_(x)
            return c + x

    def model():
        return M()

    example_inputs = (torch.randn(3),)
"""


def test_writes_to_a_fresh_constant(pt2c, cpp_host, python, tmp_path):
    model_py = write_model(tmp_path, FRESH_CONSTANT)
    check_against_eager(pt2c, cpp_host, python, model_py, tmp_path)


PARAMETER_MUTATION = """
    import torch

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(3))

        def forward(self, x):
            self.w.mul_(2.0)
            return x * self.w

    def model():
        return M()

    example_inputs = (torch.randn(3),)
"""


def test_parameter_mutation_is_refused(pt2c, tmp_path):
    model_py = write_model(tmp_path, PARAMETER_MUTATION)
    result = run([pt2c, model_py, "-o", tmp_path / "model.so"])
    assert result.returncode != 0
    assert "model.py:10: error: in-place aten.mul_.Tensor writes weight 'w'" in result.stderr
    assert "make it a buffer (register_buffer)" in result.stderr
    assert not (tmp_path / "model.so").exists()
