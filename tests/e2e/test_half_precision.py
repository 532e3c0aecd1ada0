"""fp16 and bf16 models (`model.half()`, `model.to(torch.bfloat16)` with inputs of that
dtype) compiled for the CPU, against PyTorch eager in the same dtype (1e-2 relative, the
bound for half types) and against fp32 eager, where pt2c must be about as close as eager
in that dtype is: pt2c computes in f32 between the model's f16/bf16 values, as PyTorch's
CPU kernels do. bf16 inputs travel as uint16 bits (tools/host/npy.h)."""
import numpy as np
import pytest
import torch

from conftest import REPO, load_model_file, run
from harness import (EAGER_REFERENCE, compile_model, eager_data, run_against_references,
                     with_random_batch_norm, write_model)

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}

# A model.py that runs another model.py's model and inputs in a given dtype.
IN_DTYPE = """
import importlib.util
import torch

_spec = importlib.util.spec_from_file_location("base_model", {base!r})
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)
DTYPE = torch.{dtype}


def model():
    m = _base.model if isinstance(_base.model, torch.nn.Module) else _base.model()
    return m.to(DTYPE)


def example_inputs():
    inputs = _base.example_inputs() if callable(_base.example_inputs) else _base.example_inputs
    return tuple(t.to(DTYPE) if t.is_floating_point() else t for t in inputs)
"""

CNN = with_random_batch_norm("""
import torch
from torch import nn


def model():
    torch.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
    return random_batch_norm(net)


def example_inputs():
    return (torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(1)),)
""")

MODELS = {
    "mlp": lambda tmp: REPO / "examples" / "mlp" / "model.py",
    "transformer": lambda tmp: REPO / "examples" / "transformer" / "model.py",
    "cnn": lambda tmp: write_model(tmp, CNN, "cnn_f32.py"),
}


def from_npy(array):
    """A .npy array as a tensor; uint16 holds bf16 bits."""
    if array.dtype == np.uint16:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def relative(got, ref):
    got, ref = got.double(), ref.double()
    return ((got - ref).abs().max() / ref.abs().max()).item()


def flatten(value):
    if isinstance(value, torch.Tensor):
        return [value]
    return [t for v in value for t in flatten(v)]


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("name", sorted(MODELS))
def test_half_precision_model_matches_eager(pt2c, cpp_host, python, tmp_path, name, dtype):
    base = MODELS[name](tmp_path)
    model_py = write_model(tmp_path, IN_DTYPE.format(base=str(base), dtype=DTYPES[dtype]),
                           f"{name}_{dtype}.py")
    so = compile_model(pt2c, model_py, tmp_path)

    # The library is self-contained: the half/bfloat conversions LLVM calls come from
    # pt2c's runtime, not from libgcc_s.
    dynamic = run(["readelf", "-d", so]).stdout
    needed = sorted(line.split("[")[1].rstrip("]") for line in dynamic.splitlines()
                    if "(NEEDED)" in line)
    assert set(needed) <= {"libc.so.6", "libm.so.6"}, dynamic
    undefined = run(["nm", "-D", "--undefined-only", so]).stdout
    assert "hf2" not in undefined and "bf2" not in undefined, undefined

    inputs, refs = eager_data(python, model_py, tmp_path / "data")
    out = tmp_path / "out"
    result = run_against_references(cpp_host, so, inputs, refs, out, 1e-2)
    assert f": {dtype} [" in result.stdout, result.stdout  # the model's inputs are half

    # Against fp32 eager on the same (half-valued) inputs.
    f32_model, _ = load_model_file(base)
    x = [from_npy(np.load(p)) for p in inputs]
    with torch.no_grad():
        ref32 = flatten(f32_model.float()(*[t.float() if t.is_floating_point() else t
                                            for t in x]))
        ref_half = [from_npy(np.load(p)) for p in refs]
    outputs = sorted(out.glob("*.npy"), key=lambda p: int(p.name.split("_")[0].split(".")[0]))
    for got_path, r32, rh in zip(outputs, ref32, ref_half):
        got = from_npy(np.load(got_path))
        ours, eager = relative(got, r32), relative(rh, r32)
        print(f"{name} {dtype} {got_path.name}: vs {dtype} eager {relative(got, rh):.2e}, "
              f"vs fp32 eager {ours:.2e} (eager {dtype} vs fp32: {eager:.2e})")
        assert ours <= 2 * eager + 1e-3, (ours, eager)


RELU_MLP = """
import torch
from torch import nn

def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 24), nn.ReLU(),
                         nn.Linear(24, 8)).to(torch.{dtype})

def example_inputs():
    return (torch.randn(4, 16).to(torch.{dtype}),)
"""

PT2C_DTYPE = {"f16": 3, "bf16": 4}  # pt2c_dtype (runtime/include/pt2c/pt2c.h)


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_half_precision_linears_become_cublaslt_gemm_steps(pt2c, cpp_host, python, tmp_path,
                                                           dtype):
    """--target cuda: a half ReLU MLP's three Linears are GEMM steps of that dtype (bias
    and ReLU fused, the ReLU prologues split off again), as for f32. Through the fake
    driver and the fake cuBLASLt (host matmuls with f32 sums) the whole model runs as the
    three cuBLASLt calls and matches eager in the same dtype."""
    from cuda_artifacts import FAKE_DRIVER, embedded_symbol, fake_driver_env, read_plan
    fake_cublaslt = FAKE_DRIVER.parent / "libfake_cublaslt.so"
    assert fake_cublaslt.exists(), "run `bazel build //tests/unit:libfake_cublaslt.so`"
    model_py = write_model(tmp_path, RELU_MLP.format(dtype=DTYPES[dtype]), f"relu_{dtype}.py")
    so = tmp_path / f"relu_{dtype}_cuda.so"
    result = run([pt2c, model_py, "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    assert "3 GEMM steps" in result.stderr, result.stderr
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    assert [(g["dtype"], g["m"], g["n"], g["k"], g["epilogue"]) for g in plan["gemms"]] == [
        (PT2C_DTYPE[dtype], 4, 32, 16, 2), (PT2C_DTYPE[dtype], 4, 24, 32, 2),
        (PT2C_DTYPE[dtype], 4, 8, 24, 1)]

    data = tmp_path / "data"
    made = run([python, EAGER_REFERENCE, model_py, data, "--seed", "7"])
    assert made.returncode == 0, made.stderr
    env = fake_driver_env(tmp_path, FAKE_CUDA_SM="90", PT2C_LIBCUBLASLT=str(fake_cublaslt))
    result = run([cpp_host, so, "--input", data / "input0.npy", "--reference",
                  data / "ref0.npy", "--tolerance", "1e-2"], env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "launch " not in (tmp_path / "log").read_text()  # no fallback kernel ran
    print(result.stdout.strip().splitlines()[-1])
