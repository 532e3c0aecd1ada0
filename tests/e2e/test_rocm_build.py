"""--target rocm on a machine without an AMD GPU: the MLP and a transformer compile into a
model.so that embeds one AMD GPU code object per architecture (gfx90a, gfx942 and gfx1100
by default) in its table, each a well-formed amdgcn-amd-amdhsa ELF whose kernels have
their descriptors, fit their architecture's registers and LDS and take the arguments the
plan passes (llvm-readobj-19, rocm_artifacts.py); the library needs no ROCm library at
load time, fails clearly without HIP or without code for the GPU, and, through a fake HIP
(tests/unit/testdata/fake_hip.c), launches exactly the kernels of its plan; through a fake
hipBLASLt and a fake MIOpen (fake_hipblaslt.c, fake_miopen.c, which compute on the host) its
GEMM and convolution steps become library calls of the plan's shapes, and models made only
of them match eager; without the libraries, or when they refuse, the fallback kernels are
launched instead. Numbers on an AMD GPU wait for one (compiler/codegen/rocm/README.md)."""
import os

import numpy as np
import pytest

from conftest import REPO, run
from cuda_artifacts import embedded_symbol, read_plan
from gpu_models import (BIAS, BIAS_ADD_RELU, BIAS_RELU, CNN, EXPECTED_CONVS,
                        EXPECTED_RESIDUAL_EPILOGUES, NONE, RELU_MLP, RESIDUAL)
from rocm_artifacts import (FAKE_HIP, check_plan_against_code_objects, code_objects_of,
                            conv_line, expected_launches, fake_hip_env, fake_libraries_env,
                            find_llvm_tool, matmul_line, run_on_fake_hip)

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
    kernel), layer norms, masks and Linear layers (GEMM steps): every launch as the plan
    says, on a wave64 and a wave32 architecture, and every kernel in every code object with
    the plan's arguments. Without hipBLASLt (gfx90a) the GEMMs run as their fallback
    launches; with the fake hipBLASLt (gfx1100) each is one hipblasLtMatmul of its plan
    shape, transposes and fused epilogue, and none of its fallback kernels is launched."""
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
    inputs = [tmp_path / "x.npy", tmp_path / "mask.npy"]
    for arch, libraries in (("gfx90a", False), ("gfx1100", True)):
        out = tmp_path / arch
        out.mkdir()
        _, log = run_on_fake_hip(cpp_host, so, inputs, out, arch=arch, libraries=libraries)
        matmuls = [line for line in log if line.startswith("hipblaslt ")]
        gemm_steps = [s for s in plan["steps"] if s["kind"] == 1]
        expected = [matmul_line(plan["gemms"][s["kernel"]]) for s in gemm_steps]
        assert matmuls == (expected if libraries else []), (matmuls, expected)


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


def compile_for_rocm(pt2c, tmp_path, name, source):
    """Compiles model source `source` for rocm; (model.so, its plan)."""
    model_py = tmp_path / f"{name}.py"
    model_py.write_text(source)
    so = tmp_path / f"{name}_rocm.so"
    result = run([pt2c, model_py, "--target", "rocm", "-o", so])
    assert result.returncode == 0, result.stderr
    return so, read_plan(embedded_symbol(so, "__pt2c_plan")[0])


def eager(source, *inputs):
    import torch
    namespace = {}
    exec(source, namespace)
    with torch.no_grad():
        return namespace["model"]()(*(torch.from_numpy(x) for x in inputs)).numpy()


def run_host(cpp_host, so, inputs, out, env):
    command = [cpp_host, so, "--output-dir", out]
    for path in inputs:
        command += ["--input", path]
    return run(command, env=env)


def run_without_library(cpp_host, so, plan, inputs, tmp_path, env):
    """Runs `so` on the `inputs` (paths) with the fake libraries and `env`, which takes one
    of them away; checks that the run succeeds and launches every kernel step of the plan
    (the fallbacks included), as the plan configures it. Returns the log lines."""
    result = run_host(cpp_host, so, inputs, tmp_path / "out", fake_libraries_env(tmp_path, **env))
    assert result.returncode == 0, result.stdout + result.stderr
    log = (tmp_path / "log").read_text().splitlines()
    launched = [line.split()[1:8] for line in log if line.startswith("launch ")]
    kernels = expected_launches(plan)
    assert len(kernels) >= len(plan["gemms"]) + len(plan["convs"]) > 0 and launched == [
        [k["name"], *map(str, k["grid"]), *map(str, k["block"])] for k in kernels]
    return log


@pytest.fixture(scope="module")
def relu_mlp(pt2c, tmp_path_factory):
    """(model.so, plan, input path, eager output) of the all-GEMM ReLU MLP."""
    work = tmp_path_factory.mktemp("relu_mlp")
    so, plan = compile_for_rocm(pt2c, work, "relu_mlp", RELU_MLP)
    x = np.random.default_rng(5).standard_normal((4, 16)).astype(np.float32)
    np.save(work / "x.npy", x)
    return so, plan, work / "x.npy", eager(RELU_MLP, x)


def test_hipblaslt_serves_every_gemm_and_matches_eager(relu_mlp, cpp_host, tmp_path):
    """Three Linears with ReLUs between: three GEMM steps (bias + ReLU, bias + ReLU, bias)
    that the fake hipBLASLt runs as three matmuls with hipBLASLt's numbers (the fake
    refuses cuBLASLt's) and the plan's shapes; it computes on the host, so the output
    checks the row-major-to-column-major mapping against eager. No kernel is launched."""
    so, plan, x, reference = relu_mlp
    assert [g["epilogue"] for g in plan["gemms"]] == [2, 2, 1]
    out = tmp_path / "out"
    out.mkdir()
    _, log = run_on_fake_hip(cpp_host, so, [x], out, libraries=True)
    assert [line for line in log if line.startswith("hipblaslt ")] == [
        matmul_line(g) for g in plan["gemms"]]
    assert not [line for line in log if line.startswith("launch ")]
    y = np.load(out / "0.npy")
    assert np.abs(y - reference).max() / np.abs(reference).max() <= 1e-5


@pytest.mark.parametrize("env", [
    {"PT2C_LIBHIPBLASLT": "/nonexistent/libhipblaslt.so"},  # no hipBLASLt on the machine
    {"PT2C_HIPBLASLT": "0"},                                # turned off
    {"FAKE_HIPBLASLT_NO_ALGO": "1"},                        # no algorithm for the GEMMs
])
def test_gemms_fall_back_to_their_kernels_without_hipblaslt(relu_mlp, cpp_host, tmp_path, env):
    """Without a usable hipBLASLt every GEMM step runs its fallback launches, each as the
    plan configures it, and the run succeeds (the fake HIP runs no kernel, so the numbers
    of pt2c's own GEMM kernels wait for an AMD GPU)."""
    so, plan, x, _ = relu_mlp
    log = run_without_library(cpp_host, so, plan, [x], tmp_path, env)
    assert not [line for line in log if line.startswith("hipblaslt ")]


def test_hipblaslt_errors_are_reported(relu_mlp, cpp_host, tmp_path):
    """A matmul hipBLASLt fails at run time is an error of the run (the call may have queued
    work), with the library's status in the message, not a signal or a wrong answer."""
    so, _, x, _ = relu_mlp
    env = fake_libraries_env(tmp_path, FAKE_HIPBLASLT_MATMUL_ERROR="13")
    result = run_host(cpp_host, so, [x], tmp_path / "out", env)
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "hipblasLtMatmul failed for GEMM 0 (status 13)" in result.stdout + result.stderr
    assert not (tmp_path / "out" / "0.npy").exists()


def test_mlp_gemms_go_to_hipblaslt_and_gelu_to_its_kernel(pt2c, cpp_host, mlp_rocm, x_npy,
                                                          tmp_path):
    """The example MLP: its two Linear layers are hipblasLtMatmul calls of the plan's shapes
    (fc1 with its bias fused), the GELU between them is pt2c's kernel, launched as the plan
    says; GEMM fallbacks are not launched."""
    plan, log = run_on_fake_hip(cpp_host, mlp_rocm, [x_npy], tmp_path, libraries=True)
    matmuls = [line for line in log if line.startswith("hipblaslt ")]
    assert matmuls == [matmul_line(g) for g in plan["gemms"]] and len(matmuls) == 2
    assert {(g["m"], g["n"], g["k"]) for g in plan["gemms"]} == {(8, 256, 64), (8, 10, 256)}
    assert [line for line in log if line.startswith("launch ")]


def test_hipblaslt_adds_the_residual_as_c(pt2c, cpp_host, tmp_path):
    """The residual adds after Linears (ADD, BIAS_ADD) are hipblasLtMatmul calls with
    beta = 1 and the residual as C, and the fake hipBLASLt's result matches eager;
    with hipBLASLt turned off, the fallback launches of every step run instead."""
    import torch
    so, plan = compile_for_rocm(pt2c, tmp_path, "residual", RESIDUAL)
    assert [g["epilogue"] for g in plan["gemms"]] == EXPECTED_RESIDUAL_EPILOGUES
    rng = np.random.default_rng(9)
    arrays = [rng.standard_normal(shape).astype(np.float32) for shape in ((2, 3, 16), (4, 16))]
    inputs = [tmp_path / "x.npy", tmp_path / "y.npy"]
    for path, array in zip(inputs, arrays):
        np.save(path, array)
    namespace = {}
    exec(RESIDUAL, namespace)
    with torch.no_grad():
        references = [r.numpy() for r in namespace["model"]()(*map(torch.from_numpy, arrays))]
    out = tmp_path / "served"
    out.mkdir()
    _, log = run_on_fake_hip(cpp_host, so, inputs, out, libraries=True)
    matmuls = [line for line in log if line.startswith("hipblaslt ")]
    assert matmuls == [matmul_line(g) for g in plan["gemms"]]
    assert all(line.endswith(" beta=1") for line in matmuls)
    assert not [line for line in log if line.startswith("launch ")]
    for i, reference in enumerate(references):
        got = np.load(out / f"{i}.npy")
        assert np.abs(got - reference).max() / np.abs(reference).max() <= 1e-5
    log = run_without_library(cpp_host, so, plan, inputs, tmp_path, {"PT2C_HIPBLASLT": "0"})
    assert not [line for line in log if line.startswith("hipblaslt ")]


@pytest.fixture(scope="module")
def cnn(pt2c, tmp_path_factory):
    """(model.so, plan, input path, eager output) of the all-convolution CNN."""
    work = tmp_path_factory.mktemp("cnn")
    so, plan = compile_for_rocm(pt2c, work, "cnn", CNN)
    x = np.random.default_rng(4).standard_normal((2, 3, 16, 16)).astype(np.float32)
    np.save(work / "x.npy", x)
    return so, plan, work / "x.npy", eager(CNN, x)


def test_miopen_serves_every_convolution_and_matches_eager(cnn, cpp_host, tmp_path):
    """The CNN's five convolution steps (stem and block convs with batch norm folded, a
    residual, a depthwise conv with stride and dilation, a grouped 1x1 conv) are MIOpen
    immediate-mode calls: one solution listed and compiled per convolution at create (the
    weights descriptor first, as MIOpen's signature has it), then per run the forward call,
    the bias (and residual) by miopenOpTensor and the ReLU by miopenActivationForward, in
    place. The fake MIOpen computes on the host: the output matches eager, and no kernel is
    launched."""
    so, plan, x, reference = cnn
    records = [(c["epilogue"], c["groups"], c["in_channels"], c["out_channels"],
                c["input"][:2], c["kernel"][:2], c["output"][:2], c["stride"][:2],
                c["padding"][:2], c["dilation"][:2]) for c in plan["convs"]]
    assert records == EXPECTED_CONVS
    out = tmp_path / "out"
    out.mkdir()
    _, log = run_on_fake_hip(cpp_host, so, [x], out, libraries=True)
    miopen = [line for line in log if line.startswith("miopen ")]
    expected = [conv_line(c, "solution") for c in plan["convs"]]
    for conv in plan["convs"]:
        expected.append(conv_line(conv, "forward solution=24301"))
        if conv["epilogue"] != NONE:
            residual = conv["epilogue"] == BIAS_ADD_RELU
            expected.append(f"miopen op_tensor add {'a=other beta=1' if residual else 'a=c beta=0'}")
        if conv["epilogue"] in (BIAS_RELU, BIAS_ADD_RELU):
            expected.append("miopen activation relu")
    assert miopen == expected
    assert not [line for line in log if line.startswith("launch ")]
    y = np.load(out / "0.npy")
    assert np.abs(y - reference).max() / np.abs(reference).max() <= 1e-5


@pytest.mark.parametrize("env", [
    {"PT2C_LIBMIOPEN": "/nonexistent/libMIOpen.so"},  # no MIOpen on the machine
    {"PT2C_MIOPEN": "0"},                             # turned off
    {"FAKE_MIOPEN_NO_SOLUTION": "1"},                 # no solution for the convolutions
    {"FAKE_MIOPEN_FORWARD_ERROR": "3"},               # refuses every call at run time
])
def test_convolutions_fall_back_to_their_kernels_without_miopen(cnn, cpp_host, tmp_path, env):
    """Without a usable MIOpen every convolution step runs its fallback launches (the
    convolution and its epilogue as pt2c's own kernels), each as the plan configures it, and
    the run succeeds. A call MIOpen refuses at run time (outside a graph capture) queued
    nothing, so its convolution falls back from then on, as with cuDNN."""
    so, plan, x, _ = cnn
    log = run_without_library(cpp_host, so, plan, [x], tmp_path, env)
    assert not [line for line in log if line.startswith("miopen forward")]
