"""--target cuda on a machine without a GPU: the MLP compiles into a model.so that
carries sm_80 and sm_90 cubins plus PTX in one fatbin, needs no CUDA library at load
time, fails with a clear message where there is no driver, and, through a fake driver
(tests/unit/testdata/fake_cuda.c), launches exactly the kernels of its plan with the
parameters its cubins expect. Numbers on a real GPU: tests/gpu/run_mlp_cuda.py."""
import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

from conftest import BIN, REPO, run
from cuda_artifacts import (PTX, CUBIN, embedded_symbol, fake_driver_env, fatbin_images,
                            fatbin_of, fatbin_payloads, find_cuda_toolkit, find_cuobjdump,
                            read_plan, run_on_fake_driver)
from gpu_models import EXPECTED_RESIDUAL_EPILOGUES, RELU_MLP, RESIDUAL

MLP = REPO / "examples" / "mlp" / "model.py"

# Building for CUDA needs the toolkit's ptxas and fatbinary (not a GPU); tools/setup.sh
# does not install it (docs/ARCHITECTURE.md: the build machines have it).
if not find_cuda_toolkit():
    pytest.skip("no CUDA toolkit (ptxas, fatbinary): set PT2C_CUDA_HOME", allow_module_level=True)
FAKE_CUBLASLT = BIN / "tests" / "unit" / "libfake_cublaslt.so"
NO_DRIVER = "/nonexistent/libcuda.so.1"


@pytest.fixture(scope="module")
def mlp_artifact(pt2c, tmp_path_factory):
    artifact = tmp_path_factory.mktemp("export") / "mlp.pt2c"
    result = run([pt2c, "export", MLP, "-o", artifact])
    assert result.returncode == 0, result.stderr
    return artifact


@pytest.fixture(scope="module")
def mlp_cuda(pt2c, mlp_artifact, tmp_path_factory):
    so = tmp_path_factory.mktemp("cuda") / "mlp_cuda.so"
    result = run([pt2c, "compile", mlp_artifact, "--target", "cuda", "-o", so])
    assert result.returncode == 0, result.stderr
    assert "codegen  CUDA sm_80, sm_90" in result.stderr
    return so


@pytest.fixture(scope="module")
def x_npy(tmp_path_factory):
    path = tmp_path_factory.mktemp("inputs") / "x.npy"
    np.save(path, np.random.default_rng(3).standard_normal((8, 64)).astype(np.float32))
    return path


def test_mlp_for_cuda_carries_sm80_sm90_cubins_and_ptx(mlp_cuda, tmp_path):
    fatbin = fatbin_of(mlp_cuda)
    assert sorted(fatbin_images(fatbin)) == [(PTX, 90), (CUBIN, 80), (CUBIN, 90)]
    cuobjdump = find_cuobjdump()
    if cuobjdump is None:
        return  # our own reader above is the check
    (tmp_path / "model.fatbin").write_bytes(fatbin)
    listing = run([cuobjdump, "--list-elf", "--list-ptx", tmp_path / "model.fatbin"])
    assert listing.returncode == 0, listing.stderr
    assert "sm_80.cubin" in listing.stdout and "sm_90.cubin" in listing.stdout
    assert "sm_90.ptx" in listing.stdout


def test_target_list_chooses_the_cubins(pt2c, mlp_artifact, tmp_path):
    so = tmp_path / "m.so"
    result = run([pt2c, "compile", mlp_artifact, "--target", "cuda:sm_86,sm_75,sm_86", "-o", so])
    assert result.returncode == 0, result.stderr
    assert sorted(fatbin_images(fatbin_of(so))) == [(PTX, 86), (CUBIN, 75), (CUBIN, 86)]


@pytest.mark.parametrize("target, message", [
    ("cuda:sm_100", "sm_100 is not supported by LLVM 19"),
    ("cuda:80", "'80' is not an architecture like sm_90"),
    ("cuda:", "'' is not an architecture"),
    ("metal", "target 'metal' is not supported"),
])
def test_bad_targets_are_refused(pt2c, mlp_artifact, tmp_path, target, message):
    so = tmp_path / "m.so"
    result = run([pt2c, "compile", mlp_artifact, "--target", target, "-o", so])
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert not so.exists()


def test_no_cuda_library_is_needed_and_only_the_abi_is_exported(mlp_cuda):
    dynamic = run(["readelf", "-d", mlp_cuda]).stdout
    needed = {line.split("[")[1].rstrip("]") for line in dynamic.splitlines()
              if "(NEEDED)" in line}
    assert needed and needed <= {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0"}
    symbols = run(["nm", "-D", "--defined-only", mlp_cuda]).stdout.split()[2::3]
    assert "pt2c_model_run_device" in symbols and "pt2c_model_device" in symbols
    assert all(s.startswith("pt2c_") for s in symbols), symbols


def test_cuda_output_is_deterministic(pt2c, mlp_artifact, mlp_cuda, tmp_path):
    again = tmp_path / mlp_cuda.name  # the file name is the soname
    assert run([pt2c, "compile", mlp_artifact, "--target", "cuda", "-o", again]).returncode == 0
    assert again.read_bytes() == mlp_cuda.read_bytes()


def test_emit_llvm_prints_the_gpu_kernels(pt2c, mlp_artifact):
    result = run([pt2c, "compile", mlp_artifact, "--target", "cuda", "--emit", "llvm"])
    assert result.returncode == 0, result.stderr
    assert 'target triple = "nvptx64-nvidia-cuda"' in result.stdout
    assert "!nvvm.annotations" in result.stdout
    assert "define internal float @__nv_erff" in result.stdout  # libdevice, linked


HALF_BIAS_GELU = """
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.b = torch.nn.Parameter(torch.randn(1536, dtype=torch.float16))
    def forward(self, x):
        return torch.nn.functional.gelu(x + self.b)
model = M()
example_inputs = (torch.randn(197, 1536, dtype=torch.float16),)
"""


def test_pointwise_kernels_move_8_bytes_a_thread(pt2c, tmp_path):
    """A half-precision bias + GELU (a ViT MLP's) takes 4 neighbours a thread
    (MapParallelLoopsToGpu.cpp): 197 x 1536 / 4 threads in 296 blocks, kernel pointers
    declared 16-byte aligned, and the sm_90 code loads and stores 8 bytes at a time."""
    model = tmp_path / "model.py"
    model.write_text(HALF_BIAS_GELU)
    llvm = run([pt2c, model, "--target", "cuda:sm_90", "--emit", "llvm"])
    assert llvm.returncode == 0, llvm.stderr
    kernel = next(line for line in llvm.stdout.splitlines() if line.startswith("define void"))
    assert kernel.count("ptr align 16") == 3, kernel
    so = tmp_path / "m.so"
    result = run([pt2c, model, "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    assert [(k["grid"], k["block"]) for k in plan["gpu_kernels"]] == [((296, 1, 1),
                                                                      (256, 1, 1))]
    zstd = shutil.which("zstd")
    if zstd is None:
        return  # the PTX is zstd-compressed in the fatbin
    ptx = [payload for kind, sm, payload in fatbin_payloads(fatbin_of(so)) if kind == PTX]
    # The payload is padded past the compressed frame, which zstd reports after decoding.
    text = subprocess.run([zstd, "-d", "-c"], input=ptx[0], capture_output=True).stdout.decode()
    assert text.count("ld.global.v4.b16") == 2 and text.count("st.global.v4.b16") == 1, text


def driver_is_installed():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


@pytest.mark.parametrize("tool", ["cpp_host", "pt2c run"])
def test_without_a_driver_loading_fails_clearly(pt2c, cpp_host, mlp_cuda, x_npy, tmp_path,
                                                tool):
    command = ([cpp_host, mlp_cuda, "--input", x_npy, "--output-dir", tmp_path] if tool == "cpp_host"
               else [pt2c, "run", mlp_cuda, "--input", x_npy, "--output-dir", tmp_path])
    environments = [{"PT2C_LIBCUDA": NO_DRIVER}]
    if not driver_is_installed():  # this machine has none: the default name fails too
        environments.append({})
    for extra in environments:
        env = {k: v for k, v in __import__("os").environ.items() if k != "PT2C_LIBCUDA"}
        env.update(extra)
        result = run(command, env=env)
        assert result.returncode == 1, (result.returncode, result.stderr)  # an error, no signal
        message = result.stdout + result.stderr
        assert "this model needs an NVIDIA GPU" in message, message
        assert (extra.get("PT2C_LIBCUDA") or "libcuda.so.1") + " could not be loaded" in message
        assert not (tmp_path / "0.npy").exists()


def test_fake_driver_sees_the_plans_launches(cpp_host, mlp_cuda, x_npy, tmp_path):
    """The launches match the plan and the cubins; the weights go to the device once, at
    create, and a host-memory run copies the input in and the output out."""
    plan, log = run_on_fake_driver(cpp_host, mlp_cuda, [x_npy], tmp_path)
    copies = [line for line in log if not line.startswith("launch ")]
    # create: the weights; the run: the input in, the output out.
    assert copies == [f"htod {plan['weights_size']}", f"htod {8 * 64 * 4}", f"dtoh {8 * 10 * 4}"]


def test_fake_gpu_without_code_for_it_fails_clearly(cpp_host, mlp_cuda, x_npy, tmp_path):
    result = run([cpp_host, mlp_cuda, "--input", x_npy, "--output-dir", tmp_path],
                 env=fake_driver_env(tmp_path, FAKE_CUDA_SM="75"))
    assert result.returncode == 1
    message = result.stdout + result.stderr
    assert "cannot run on CUDA device 0 (Fake GPU, sm_75" in message, message
    assert "cubins for sm_80, sm_90 and PTX for compute_90" in message
    assert "compile the model with --target cuda:sm_75" in message


# Reductions over the last, a middle and every dimension, a softmax, a slice (a view of a
# kernel argument) and a rank-0 output: the loop shapes the MLP does not have.
SMALL_BLOCK = """
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(16)
        self.proj = nn.Linear(16, 16)

    def forward(self, x):
        h = torch.softmax(self.proj(self.norm(x)), dim=-1)
        return h[:, 1:3] * 2.0, h.sum(dim=1), torch.tanh(x).sum(dim=(0, 1, 2))


def model():
    torch.manual_seed(0)
    return Block()


example_inputs = (torch.randn(4, 6, 16),)
"""


def test_reductions_views_and_scalars_compile_for_cuda(pt2c, cpp_host, tmp_path):
    model_py = tmp_path / "block.py"
    model_py.write_text(SMALL_BLOCK)
    so = tmp_path / "block_cuda.so"
    result = run([pt2c, model_py, "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    assert sorted(fatbin_images(fatbin_of(so))) == [(PTX, 90), (CUBIN, 90)]
    x = tmp_path / "x.npy"
    np.save(x, np.random.default_rng(1).standard_normal((4, 6, 16)).astype(np.float32))
    plan, _ = run_on_fake_driver(cpp_host, so, [x], tmp_path, sm="90")
    # The rank-0 sum's initial value (a single thread) and the sum over its 384 elements
    # (one block of 256 threads, pt2c-map-row-reductions-to-gpu) are one launch of 256
    # threads (pt2c-merge-small-gpu-launches); everything else is spread out.
    configs = {(k["grid"], k["block"]) for k in plan["gpu_kernels"]}
    assert ((1, 1, 1), (1, 1, 1)) not in configs
    assert ((1, 1, 1), (256, 1, 1)) in configs
    assert any(grid[0] * block[0] >= 64 for grid, block in configs)


def test_linear_layers_become_gemm_steps_with_fused_epilogues(pt2c, cpp_host, tmp_path):
    """Three Linears with ReLUs between: three GEMM steps (bias and ReLU fused into the
    first two, after the next Linear's fused-in ReLU prologue is split off again; bias into
    the last), each followed by its fallback launches. Through the fake driver and the fake
    cuBLASLt (a host f32 matmul) the whole model runs as the three cuBLASLt calls and
    matches eager."""
    model_py = tmp_path / "relu_mlp.py"
    model_py.write_text(RELU_MLP)
    so = tmp_path / "relu_mlp_cuda.so"
    result = run([pt2c, model_py, "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    assert "3 GEMM steps" in result.stderr
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    gemm_steps = [i for i, step in enumerate(plan["steps"]) if step["kind"] == 1]
    shapes = [(g["m"], g["n"], g["k"], g["epilogue"], g["transpose_a"], g["transpose_b"])
              for g in plan["gemms"]]
    # BIAS_RELU, BIAS_RELU, then BIAS
    assert shapes == [(4, 32, 16, 2, 0, 1), (4, 24, 32, 2, 0, 1), (4, 8, 24, 1, 0, 1)]
    # Each GEMM step is directly followed by its fallback, then the next GEMM step.
    assert gemm_steps[0] == 0
    for i in range(3):
        end = gemm_steps[i] + 1 + plan["gemms"][i]["num_fallback_steps"]
        assert end == (gemm_steps[i + 1] if i < 2 else len(plan["steps"]))

    import torch
    x = np.random.default_rng(5).standard_normal((4, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    namespace = {}
    exec(RELU_MLP, namespace)
    with torch.no_grad():
        reference = namespace["model"]()(torch.from_numpy(x)).numpy()
    assert FAKE_CUBLASLT.exists(), "run `bazel build //tests/unit:libfake_cublaslt.so`"
    out = tmp_path / "out"
    env = fake_driver_env(tmp_path, FAKE_CUDA_SM="90", PT2C_LIBCUBLASLT=str(FAKE_CUBLASLT))
    result = run([cpp_host, so, "--input", tmp_path / "x.npy", "--output-dir", out], env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    log = (tmp_path / "log").read_text()
    assert "launch " not in log  # cuBLASLt served both GEMMs: no fallback kernel ran
    y = np.load(out / "0.npy")
    assert np.abs(y - reference).max() / np.abs(reference).max() <= 1e-5


def test_residual_adds_join_their_gemm_steps(pt2c, cpp_host, tmp_path):
    """`x + o_proj(x)` (no bias) and `h + fc(h)` (with a bias; on 3-d and 2-d inputs) are
    one GEMM step each with the ADD or BIAS_ADD epilogue, the residual as cuBLASLt's C
    (beta = 1): no launch of pt2c's own add kernels remains, and the fake cuBLASLt's
    result, which adds C only when beta says so, matches eager. Without cuBLASLt every
    step's fallback launches run instead, as the plan configures them."""
    model_py = tmp_path / "residual.py"
    model_py.write_text(RESIDUAL)
    so = tmp_path / "residual_cuda.so"
    result = run([pt2c, model_py, "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    assert [g["epilogue"] for g in plan["gemms"]] == EXPECTED_RESIDUAL_EPILOGUES
    # ADD's fallback is the GEMM kernel and the add; the 3-d BIAS_ADD's the GEMM kernel,
    # the bias kernel and the add; the 2-d one's the GEMM kernel and the bias + add kernel.
    assert [g["num_fallback_steps"] for g in plan["gemms"]] == [2, 3, 2]
    # A, B, [bias,] C, D: C is the residual, never D itself.
    gemm_args = [step["args"] for step in plan["steps"] if step["kind"] == 1]
    assert [len(args) for args in gemm_args] == [4, 5, 5]
    assert all(args[-2] != args[-1] for args in gemm_args)
    assert len(plan["steps"]) == 3 + 7  # every kernel step is some GEMM's fallback
    inspected = run([pt2c, "inspect", so])
    assert "B^T + C (cuBLASLt; 2 fallback steps)" in inspected.stdout, inspected.stdout
    assert "B^T + bias + C (cuBLASLt; 3 fallback steps)" in inspected.stdout

    import torch
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 16)).astype(np.float32)
    y = rng.standard_normal((4, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    namespace = {}
    exec(RESIDUAL, namespace)
    with torch.no_grad():
        references = [r.numpy() for r in namespace["model"]()(torch.from_numpy(x),
                                                               torch.from_numpy(y))]
    out = tmp_path / "out"
    env = fake_driver_env(tmp_path, FAKE_CUDA_SM="90", PT2C_LIBCUBLASLT=str(FAKE_CUBLASLT))
    result = run([cpp_host, so, "--input", tmp_path / "x.npy", "--input", tmp_path / "y.npy",
                  "--output-dir", out], env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "launch " not in (tmp_path / "log").read_text()
    for i, reference in enumerate(references):
        got = np.load(out / f"{i}.npy")
        assert np.abs(got - reference).max() / np.abs(reference).max() <= 1e-5

    # No cuBLASLt, or turned off: every kernel step launches, configured as planned.
    fallback = tmp_path / "fallback"
    fallback.mkdir()
    run_on_fake_driver(cpp_host, so, [tmp_path / "x.npy", tmp_path / "y.npy"], fallback, sm="90")
    env = fake_driver_env(tmp_path, FAKE_CUDA_SM="90", PT2C_LIBCUBLASLT=str(FAKE_CUBLASLT),
                          PT2C_CUBLASLT="0")
    (tmp_path / "log").unlink()
    result = run([cpp_host, so, "--input", tmp_path / "x.npy", "--input", tmp_path / "y.npy",
                  "--output-dir", out], env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    launched = [line.split()[1] for line in (tmp_path / "log").read_text().splitlines()
                if line.startswith("launch ")]
    assert launched == [plan["gpu_kernels"][step["kernel"]]["name"]
                        for step in plan["steps"] if step["kind"] == 0]


BATCHED = """
import torch
from torch import nn

class Batched(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(2, 16, 5))
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        return torch.bmm(x, self.w), self.fc(x)  # x: [2, 3, 16]

def model():
    torch.manual_seed(0)
    return Batched()

example_inputs = (torch.randn(2, 3, 16),)
"""


def test_bmm_and_linear_on_3d_inputs_become_gemm_steps(pt2c, cpp_host, tmp_path):
    """bmm is a batched GEMM step (strides per batch); a Linear on [2, 3, 16] is one GEMM
    over the 6 flattened rows with its bias fused. Both run as fake cuBLASLt calls."""
    model_py = tmp_path / "batched.py"
    model_py.write_text(BATCHED)
    so = tmp_path / "batched_cuda.so"
    result = run([pt2c, model_py, "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    shapes = sorted((g["batch"], g["m"], g["n"], g["k"], g["epilogue"], g["stride_a"],
                     g["stride_b"], g["stride_d"]) for g in plan["gemms"])
    assert shapes == [(1, 6, 8, 16, 1, 0, 0, 0), (2, 3, 5, 16, 0, 48, 80, 15)]

    import torch
    x = np.random.default_rng(6).standard_normal((2, 3, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    namespace = {}
    exec(BATCHED, namespace)
    with torch.no_grad():
        references = [r.numpy() for r in namespace["model"]()(torch.from_numpy(x))]
    out = tmp_path / "out"
    env = fake_driver_env(tmp_path, FAKE_CUDA_SM="90", PT2C_LIBCUBLASLT=str(FAKE_CUBLASLT))
    result = run([cpp_host, so, "--input", tmp_path / "x.npy", "--output-dir", out], env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "launch " not in (tmp_path / "log").read_text()
    for i, reference in enumerate(references):
        y = np.load(out / f"{i}.npy")
        assert np.abs(y - reference).max() / np.abs(reference).max() <= 1e-5


F16_ATTENTION = """
import torch


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def model():
    return Attention()


# More keys than the fused kernel keeps in shared memory (prim::kFusedAttentionMaxKeys).
example_inputs = (torch.randn(1, 2, 4, 8).half(), torch.randn(1, 2, 8200, 8).half(),
                  torch.randn(1, 2, 8200, 8).half())
"""


def test_f16_attention_scores_are_a_mixed_precision_gemm_step(pt2c, cpp_host, tmp_path):
    """Attention the fused kernel does not take (over 8192 keys here; otherwise it is one
    fused kernel: test_attention_and_layer_norm_are_one_fused_kernel_each) is spelled out: its scores, f32 from f16 q and k
    (PyTorch's math kernel computes them in f32 too), are one GEMM step with f16 A and B and an f32 D, which cuBLASLt runs on
    tensor cores, instead of our kernels on widened copies. (P @ V is an f32 GEMM: the
    softmax output is f32.) The runtime accepts the plan and serves both through the fake
    cuBLASLt."""
    model_py = tmp_path / "attention.py"
    model_py.write_text(F16_ATTENTION)
    so = tmp_path / "attention_cuda.so"
    result = run([pt2c, model_py, "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    f32, f16 = 1, 3
    assert [(g["dtype"], g["input_dtype"], g["batch"], g["m"], g["n"], g["k"], g["transpose_b"])
            for g in plan["gemms"]] == [(f32, f16, 2, 4, 8200, 8, 1), (f32, 0, 2, 4, 8, 8200, 0)]
    rng = np.random.default_rng(9)
    command = [cpp_host, so, "--output-dir", tmp_path / "out"]
    for name, length in zip("qkv", (4, 8200, 8200)):
        np.save(tmp_path / f"{name}.npy",
                rng.standard_normal((1, 2, length, 8)).astype(np.float16))
        command += ["--input", tmp_path / f"{name}.npy"]
    env = fake_driver_env(tmp_path, FAKE_CUDA_SM="90", PT2C_LIBCUBLASLT=str(FAKE_CUBLASLT))
    result = run(command, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    launched = [line.split()[1] for line in (tmp_path / "log").read_text().splitlines()
                if line.startswith("launch ")]
    gemm_fallbacks = set()  # the kernels a served GEMM step skips
    for j, step in enumerate(plan["steps"]):
        if step["kind"] == 1:
            count = plan["gemms"][step["kernel"]]["num_fallback_steps"]
            gemm_fallbacks |= {plan["gpu_kernels"][s["kernel"]]["name"]
                               for s in plan["steps"][j + 1:j + 1 + count]}
    assert launched and not set(launched) & gemm_fallbacks


FUSED_ATTENTION = """
import torch


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = (torch.nn.Linear(32, 32) for _ in range(3))
        self.norm = torch.nn.LayerNorm(32)

    def forward(self, x, mask):
        q, k, v = (f(x).view(2, 10, 4, 8).transpose(1, 2) for f in (self.q, self.k, self.v))
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.norm(out.transpose(1, 2).reshape(2, 10, 32))


def model():
    torch.manual_seed(0)
    return Attention().eval().half()


example_inputs = (torch.randn(2, 10, 32).half(), torch.rand(10, 10) > 0.3)
"""


def test_attention_and_layer_norm_are_one_fused_kernel_each(pt2c, cpp_host, tmp_path):
    """Four-dimensional attention on the GPU is one launch of the fused kernel
    (codegen/cuda/AttentionKernel.cpp): a block per 4 query rows and per batch x head, no
    GEMM steps for the scores or for P @ V, and no copies for the head split and merge
    (the kernel reads q, k, v where their joined Linear wrote them and writes the merged
    layout).
    Layer norm is one launch of its own fused kernel (LayerNormKernel.cpp), a warp per
    row, reading and writing f16. The launches' parameters match their cubins' (the fake
    driver checks); their numerics are checked on a GPU (tests/gpu: the zoo's
    transformers, BERT-base, ViT-B/16)."""
    model_py = tmp_path / "attention.py"
    model_py.write_text(FUSED_ATTENTION)
    so = tmp_path / "attention_cuda.so"
    result = run([pt2c, model_py, "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    # The q, k and v Linears only, as one GEMM with their weights joined (n = 3 x 32):
    # attention reads its three parts of the product in place.
    assert [g["n"] for g in plan["gemms"]] == [96]
    launches, steps = [], plan["steps"]
    for j, step in enumerate(steps):  # the launches that run, not the GEMMs' fallbacks
        if step["kind"] == 0 and not any(
                steps[g]["kind"] == 1 and g < j <= g + plan["gemms"][steps[g]["kernel"]]
                ["num_fallback_steps"] for g in range(j)):
            launches.append(plan["gpu_kernels"][step["kernel"]])
    # The mask's bias (0 or -inf), the attention (4 query rows a block) and the layer norm
    # (a warp per row, 4 rows a block): nothing moves q, k, v or the output.
    assert [k["grid"] for k in launches] == [(1, 1, 1), (3, 8, 1), (5, 1, 1)], launches
    attention = launches[1:2]
    assert attention[0]["block"] == (128, 1, 1) and launches[2]["block"] == (128, 1, 1)
    rng = np.random.default_rng(3)
    np.save(tmp_path / "x.npy", rng.standard_normal((2, 10, 32)).astype(np.float16))
    np.save(tmp_path / "mask.npy", rng.random((10, 10)) > 0.3)
    env = fake_driver_env(tmp_path, FAKE_CUDA_SM="90", PT2C_LIBCUBLASLT=str(FAKE_CUBLASLT))
    result = run([cpp_host, so, "--input", tmp_path / "x.npy", "--input", tmp_path / "mask.npy",
                  "--output-dir", tmp_path / "out"], env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    launched = [line.split()[1] for line in (tmp_path / "log").read_text().splitlines()
                if line.startswith("launch ")]
    assert attention[0]["name"] in launched and launches[2]["name"] in launched


ATTENTION_CASES = REPO / "tests" / "gpu" / "attention" / "attention_cases.py"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_attention_with_16_wide_heads_runs_on_tensor_cores(pt2c, cpp_host, tmp_path,
                                                                dtype):
    """f16 and bf16 attention whose head sizes are multiples of 16 compiles to the
    tensor-core kernel (codegen/cuda/AttentionMmaKernel.cpp): 4 warps a block, either
    one 16-row tile a block with the keys split over the warps (few tiles) or one tile a
    warp (552 tiles for the 1100-token case). The cases are tests/gpu/attention's, which
    the GPU machine checks against eager (make_attention_bundles.sh); here the launches
    go through the fake driver, which checks their parameters against the cubins'."""
    so = tmp_path / "cases_cuda.so"
    result = run([pt2c, ATTENTION_CASES, "--target", "cuda:sm_90", "-o", so],
                 env=dict(os.environ, PT2C_DTYPE=dtype))
    assert result.returncode == 0, result.stderr
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    attention = [k for k in plan["gpu_kernels"] if k["block"] == (128, 1, 1)]
    # 200 tokens x 4 heads x batch 2, 77 causal, 50 queries over 130 keys, 1100 causal
    # (64 rows a block: 4 tiles).
    assert sorted(k["grid"] for k in attention) == [(4, 8, 1), (5, 8, 1), (13, 8, 1),
                                                    (18, 8, 1)], attention
    rng = np.random.default_rng(5)
    inputs = []
    for name, shape in (("x", (2, 200, 256)), ("y", (2, 50, 256)), ("bias", (2, 1, 1, 130)),
                        ("z", (2, 1100, 128))):
        inputs.append(tmp_path / f"{name}.npy")
        values = rng.standard_normal(shape).astype(np.float32)
        if dtype == "bfloat16":  # bf16 .npy inputs are bit patterns (tools/host/npy.h)
            values = (values.view(np.uint32) >> 16).astype(np.uint16)
        np.save(inputs[-1], values.astype(np.float16) if dtype == "float16" else values)
    np.save(tmp_path / "mask.npy", rng.random((200, 200)) > 0.3)
    inputs.insert(1, tmp_path / "mask.npy")
    _, log = run_on_fake_driver(cpp_host, so, inputs, tmp_path, sm="90")
    launched = {line.split()[1] for line in log if line.startswith("launch ")}
    assert {k["name"] for k in attention} <= launched

