"""--target rocm on a machine without an AMD GPU: the MLP and a transformer compile into a
model.so that embeds one AMD GPU code object per architecture (gfx90a, gfx942 and gfx1100
by default) in its table, each a well-formed amdgcn-amd-amdhsa ELF whose kernels have
their descriptors, fit their architecture's registers and LDS and take the arguments the
plan passes (llvm-readobj-19, rocm_artifacts.py); the library needs no ROCm library at
load time, fails clearly without HIP or without code for the GPU, and, through a fake HIP
(tests/unit/testdata/fake_hip.c), launches exactly the kernels of its plan. Numbers on an
AMD GPU wait for one (compiler/codegen/rocm/README.md)."""
import os

import numpy as np
import pytest

from conftest import REPO, run
from cuda_artifacts import embedded_symbol, read_plan
from rocm_artifacts import (FAKE_HIP, check_plan_against_code_objects, code_objects_of,
                            fake_hip_env, find_llvm_tool, run_on_fake_hip)

MLP = REPO / "examples" / "mlp" / "model.py"
TRANSFORMER = REPO / "examples" / "transformer" / "model.py"
DEFAULT_ARCHS = [("gfx90a", 64), ("gfx942", 64), ("gfx1100", 32)]

if not find_llvm_tool("llvm-readobj"):
    pytest.skip("no llvm-readobj-19 (Debian package llvm-19)", allow_module_level=True)


@pytest.fixture(scope="module")
def mlp_artifact(pt2c, tmp_path_factory):
    artifact = tmp_path_factory.mktemp("export") / "mlp.pt2c"
    result = run([pt2c, "export", MLP, "-o", artifact])
    assert result.returncode == 0, result.stderr
    return artifact


@pytest.fixture(scope="module")
def mlp_rocm(pt2c, mlp_artifact, tmp_path_factory):
    so = tmp_path_factory.mktemp("rocm") / "mlp_rocm.so"
    result = run([pt2c, "compile", mlp_artifact, "--target", "rocm", "-o", so])
    assert result.returncode == 0, result.stderr
    assert "codegen  ROCm gfx90a, gfx942, gfx1100" in result.stderr
    return so


@pytest.fixture(scope="module")
def x_npy(tmp_path_factory):
    path = tmp_path_factory.mktemp("inputs") / "x.npy"
    np.save(path, np.random.default_rng(3).standard_normal((8, 64)).astype(np.float32))
    return path


def test_mlp_for_rocm_has_a_checked_code_object_per_architecture(mlp_rocm, tmp_path):
    assert [(arch, wave) for arch, wave, _ in code_objects_of(mlp_rocm)] == DEFAULT_ARCHS
    plan, kernels = check_plan_against_code_objects(mlp_rocm, tmp_path)
    # Each code object exports exactly the plan's kernels (everything else is internal).
    names = {k["name"] for k in plan["gpu_kernels"]}
    assert all(set(k) == names for k in kernels.values()), kernels.keys()


def test_code_objects_disassemble_for_their_architecture(mlp_rocm, tmp_path):
    objdump = find_llvm_tool("llvm-objdump")
    if objdump is None:
        pytest.skip("no llvm-objdump-19")
    for arch, _, elf in code_objects_of(mlp_rocm):
        path = tmp_path / f"{arch}.hsaco"
        path.write_bytes(elf)
        listing = run([objdump, "-d", f"--mcpu={arch}", path])
        assert listing.returncode == 0, listing.stderr
        assert "s_endpgm" in listing.stdout and "<unknown>" not in listing.stdout, arch
        assert "global_load" in listing.stdout or "flat_load" in listing.stdout


def test_target_list_chooses_the_code_objects(pt2c, mlp_artifact, tmp_path):
    so = tmp_path / "m.so"
    result = run([pt2c, "compile", mlp_artifact, "--target", "rocm:gfx1100,gfx90a,gfx90a",
                  "-o", so])
    assert result.returncode == 0, result.stderr
    assert [(a, w) for a, w, _ in code_objects_of(so)] == [("gfx90a", 64), ("gfx1100", 32)]
    check_plan_against_code_objects(so, tmp_path)


@pytest.mark.parametrize("target, message", [
    ("rocm:gfx800", "'gfx800' is not a supported AMD GPU architecture"),
    ("rocm:", "'' is not a supported AMD GPU architecture"),
    ("rocm:sm_90", "'sm_90' is not a supported AMD GPU architecture"),
])
def test_bad_rocm_targets_are_refused(pt2c, mlp_artifact, tmp_path, target, message):
    so = tmp_path / "m.so"
    result = run([pt2c, "compile", mlp_artifact, "--target", target, "-o", so])
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert "supported: gfx908, gfx90a" in result.stderr
    assert not so.exists()


def test_no_rocm_library_is_needed_and_only_the_abi_is_exported(mlp_rocm):
    dynamic = run(["readelf", "-d", mlp_rocm]).stdout
    needed = {line.split("[")[1].rstrip("]") for line in dynamic.splitlines()
              if "(NEEDED)" in line}
    assert needed and needed <= {"libc.so.6", "libm.so.6"}, needed
    symbols = run(["nm", "-D", "--defined-only", mlp_rocm]).stdout.split()[2::3]
    assert "pt2c_model_run_device" in symbols
    assert all(s.startswith("pt2c_") for s in symbols), symbols


def test_rocm_output_is_deterministic(pt2c, mlp_artifact, mlp_rocm, tmp_path):
    again = tmp_path / mlp_rocm.name  # the file name is the soname
    assert run([pt2c, "compile", mlp_artifact, "--target", "rocm", "-o", again]).returncode == 0
    assert again.read_bytes() == mlp_rocm.read_bytes()


def test_emit_llvm_prints_amdgpu_kernels_without_library_calls(pt2c, mlp_artifact):
    """GELU's erf became arithmetic: no device library (ocml) is called."""
    result = run([pt2c, "compile", mlp_artifact, "--target", "rocm", "--emit", "llvm"])
    assert result.returncode == 0, result.stderr
    assert 'target triple = "amdgcn-amd-amdhsa"' in result.stdout
    assert "define amdgpu_kernel void @" in result.stdout
    assert '"amdhsa_code_object_version", i32 400' in result.stdout
    declared = [line for line in result.stdout.splitlines() if line.startswith("declare ")]
    assert all("@llvm." in line for line in declared), declared


def test_without_hip_loading_fails_clearly(pt2c, cpp_host, mlp_rocm, x_npy, tmp_path):
    for tool in ([cpp_host, mlp_rocm, "--input", x_npy, "--output-dir", tmp_path],
                 [pt2c, "run", mlp_rocm, "--input", x_npy, "--output-dir", tmp_path]):
        env = dict(os.environ, PT2C_LIBAMDHIP64="/nonexistent/libamdhip64.so")
        result = run(tool, env=env)
        assert result.returncode == 1, (result.returncode, result.stderr)  # no signal
        message = result.stdout + result.stderr
        assert "this model needs an AMD GPU" in message, message
        assert "/nonexistent/libamdhip64.so could not be loaded" in message
        assert not (tmp_path / "0.npy").exists()


def test_fake_hip_sees_the_plans_launches(cpp_host, mlp_rocm, x_npy, tmp_path):
    """The launches match the plan; the weights go to the device once, at create, and a
    host-memory run copies the input in and the output out."""
    plan, log = run_on_fake_hip(cpp_host, mlp_rocm, [x_npy], tmp_path)
    copies = [line for line in log if not line.startswith("launch ")]
    assert copies == [f"htod {plan['weights_size']}", f"htod {8 * 64 * 4}", f"dtoh {8 * 10 * 4}"]


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_fake_hip_loads_the_code_object_of_its_architecture(cpp_host, mlp_rocm, x_npy,
                                                           tmp_path, arch):
    run_on_fake_hip(cpp_host, mlp_rocm, [x_npy], tmp_path, arch=arch)


def test_fake_gpu_without_a_code_object_for_it_fails_clearly(cpp_host, mlp_rocm, x_npy,
                                                            tmp_path):
    result = run([cpp_host, mlp_rocm, "--input", x_npy, "--output-dir", tmp_path],
                 env=fake_hip_env(tmp_path, FAKE_HIP_ARCH="gfx1030"))
    assert result.returncode == 1
    message = result.stdout + result.stderr
    assert "cannot run on HIP device 0 (Fake GPU)" in message, message
    assert "code objects for gfx90a, gfx942, gfx1100 only" in message
    assert "--target rocm:" in message and "hipErrorNoBinaryForGpu" in message


def test_a_damaged_code_object_table_is_a_corrupt_model(cpp_host, mlp_rocm, x_npy, tmp_path):
    data = bytearray(mlp_rocm.read_bytes())
    # The table's header (magic, version 1); the runtime's copy of the magic is a string.
    at = data.index(b"PT2CHSA1\x01\x00\x00\x00")
    data[at + 8] ^= 0xFF  # the version
    damaged = tmp_path / "damaged.so"
    damaged.write_bytes(bytes(data))
    result = run([cpp_host, damaged, "--input", x_npy, "--output-dir", tmp_path],
                 env=fake_hip_env(tmp_path))
    assert result.returncode == 1
    message = result.stdout + result.stderr
    assert "corrupt model: its AMD GPU code object table is missing, damaged" in message, message


def test_hip_errors_are_reported(cpp_host, mlp_rocm, x_npy, tmp_path):
    result = run([cpp_host, mlp_rocm, "--input", x_npy, "--output-dir", tmp_path],
                 env=fake_hip_env(tmp_path, FAKE_HIP_LAUNCH_ERROR="719"))
    assert result.returncode == 1
    assert "hipErrorLaunchFailure" in result.stdout + result.stderr


def test_transformer_runs_its_plan_through_fake_hip(pt2c, cpp_host, tmp_path):
    """The encoder's fused attention (the f32-compute tile kernel: ROCm has no tensor-core
    kernel), layer norms, masks and Linear layers (GEMM steps, run as their fallback
    launches): every launch as the plan says, on a wave64 and a wave32 architecture, and
    every kernel in every code object with the plan's arguments."""
    so = tmp_path / "transformer_rocm.so"
    result = run([pt2c, TRANSFORMER, "--target", "rocm", "-o", so])
    assert result.returncode == 0, result.stderr
    plan, _ = check_plan_against_code_objects(so, tmp_path)
    assert plan["gemms"], "the Linear layers are GEMM steps (with fallback launches)"
    rng = np.random.default_rng(1)
    np.save(tmp_path / "x.npy", rng.standard_normal((2, 10, 64)).astype(np.float32))
    mask = np.zeros((2, 10), dtype=bool)
    mask[1, 7:] = True
    np.save(tmp_path / "mask.npy", mask)
    for arch in ("gfx90a", "gfx1100"):
        out = tmp_path / arch
        out.mkdir()
        run_on_fake_hip(cpp_host, so, [tmp_path / "x.npy", tmp_path / "mask.npy"], out, arch=arch)


MATH = """
import torch
from torch import nn


class Math(nn.Module):
    def forward(self, x, y):
        a = torch.pow(x.abs() + 1.0, y) + torch.rsqrt(x * x + 1.0)
        b = torch.erf(x) * torch.tanh(y)
        c = torch.sin(x) + torch.cos(y) + torch.exp(-x * x) + torch.log(y.abs() + 1.0)
        return a, b, c, torch.softmax(x.half(), dim=-1), torch.sqrt(y.abs().bfloat16())


def model():
    return Math()


example_inputs = (torch.randn(4, 96), torch.randn(4, 96))
"""


def test_math_functions_link_without_a_device_library(pt2c, cpp_host, tmp_path):
    """pow (its expansion calls fmod), rsqrt, erf, tanh, sin, cos, exp, log, sqrt in f32, f16 and
    bf16: polynomials, LLVM intrinsics and the few ocml functions pt2c defines
    (DeviceFunctions.h); ld.lld --no-undefined would refuse any call left over."""
    model_py = tmp_path / "math.py"
    model_py.write_text(MATH)
    so = tmp_path / "math_rocm.so"
    result = run([pt2c, model_py, "--target", "rocm", "-o", so])
    assert result.returncode == 0, result.stderr
    check_plan_against_code_objects(so, tmp_path)
    rng = np.random.default_rng(2)
    for name in ("x", "y"):
        np.save(tmp_path / f"{name}.npy", rng.standard_normal((4, 96)).astype(np.float32))
    run_on_fake_hip(cpp_host, so, [tmp_path / "x.npy", tmp_path / "y.npy"], tmp_path)
