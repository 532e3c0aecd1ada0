"""CPU GEMM and convolution steps on the runtime's microkernels (runtime/src/cpu): the
compiler turns matrix products and convolutions into library steps, and every path the
runtime can take for them (AVX-512 with and without bf16 dot products, AVX2, portable C,
one thread, and the generated fallback kernels) matches PyTorch eager. The CNN's
depthwise convolution has 5-wide rows of 24 channels: the channel-block kernel with a
partial block."""
import os
import re

import pytest

from conftest import env_without_python, run
from gpu_models import RESIDUAL
from harness import eager_data, with_random_batch_norm, write_model

MLP = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(96, 200)
        self.fc2 = nn.Linear(200, 33)
        self.w = nn.Parameter(torch.randn(33, 17))

    def forward(self, x, y):
        h = self.fc2(torch.relu(self.fc1(x)))      # GEMMs with bias (+ ReLU) epilogues
        b = torch.bmm(y, y.transpose(1, 2))          # batched, transposed, no weights
        return h @ self.w, b

def model():
    torch.manual_seed(0)
    return Net()

def example_inputs():
    return (torch.randn(37, 96), torch.randn(3, 19, 24))
"""

CNN = """
import torch
from torch import nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 7, 2, 3, bias=False), nn.BatchNorm2d(16),
                                  nn.ReLU())
        self.c1 = nn.Conv2d(16, 16, 3, 1, 1, bias=False)
        self.b1 = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 16, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(16)
        self.down = nn.Conv2d(16, 24, 1, 2)                      # 1x1, stride 2
        self.dw = nn.Conv2d(24, 24, 3, 2, 1, groups=24)          # depthwise
        self.grouped = nn.Conv2d(24, 32, 3, 1, 2, dilation=2, groups=4)
        self.conv1d = nn.Conv1d(32, 8, 5, padding=2)

    def forward(self, x):
        x = self.stem(x)
        y = torch.relu(self.b1(self.c1(x)))
        x = torch.relu(self.b2(self.c2(y)) + x)                  # residual epilogue
        # SiLU epilogues: on the depthwise kernel's channel blocks and a grouped GEMM
        x = nn.functional.silu(self.grouped(nn.functional.silu(self.dw(self.down(x)))))
        return self.conv1d(x.flatten(2))

def model():
    torch.manual_seed(0)
    return random_batch_norm(Block().eval())

def example_inputs():
    return (torch.randn(2, 3, 45, 38),)
"""

# The paths a run can take: the best ISA this machine has, each lower one, and the
# compiler's fallback kernels.
PATHS = [{}, {"PT2C_CPU_ISA": "avx512"}, {"PT2C_CPU_ISA": "avx2"},
         {"PT2C_CPU_ISA": "generic"}, {"PT2C_CPU_MICROKERNELS": "0"},
         {"PT2C_NUM_THREADS": "1"}]


MLP_BF16 = MLP.replace("return Net()", "return Net().to(torch.bfloat16)").replace(
    "return (torch.randn(37, 96), torch.randn(3, 19, 24))",
    "return (torch.randn(37, 96).bfloat16(), torch.randn(3, 19, 24).bfloat16())")


def compile_and_check(pt2c, cpp_host, python, tmp_path, source, steps, cpu=None,
                      tolerance=1e-4):
    model_py = write_model(tmp_path, source)
    so = tmp_path / "model.so"
    cmd = [pt2c, model_py, "-o", so] + (["--cpu", cpu] if cpu else [])
    result = run(cmd)
    assert result.returncode == 0, result.stderr
    assert steps in result.stderr, result.stderr  # the codegen progress line
    inputs, refs = eager_data(python, model_py, tmp_path / "data")
    for i, extra in enumerate(PATHS):
        env = env_without_python()
        env.update(extra)
        cmd = [cpp_host, so, "--output-dir", tmp_path / f"out{i}", "--tolerance",
               str(tolerance)]
        for p in inputs:
            cmd += ["--input", p]
        for p in refs:
            cmd += ["--reference", p]
        checked = run(cmd, env=env)
        assert checked.returncode == 0, (extra, checked.stdout + checked.stderr)
    return so


def test_gemm_steps_match_eager_on_every_path(pt2c, cpp_host, python, tmp_path):
    compile_and_check(pt2c, cpp_host, python, tmp_path, MLP, "4 GEMM steps (microkernels)")


def test_bf16_gemm_steps_match_eager_on_every_path(pt2c, cpp_host, python, tmp_path):
    # bf16 keeps 8 significant bits; eager rounds at other points than the f32 products.
    compile_and_check(pt2c, cpp_host, python, tmp_path, MLP_BF16,
                      "4 GEMM steps (microkernels)", tolerance=2e-2)


def test_convolution_steps_match_eager_on_every_path(pt2c, cpp_host, python, tmp_path):
    so = compile_and_check(pt2c, cpp_host, python, tmp_path, with_random_batch_norm(CNN),
                           "7 convolution steps (microkernels)")
    # The epilogues joined their convolutions (the profile names each step's).
    env = dict(os.environ, PT2C_PROFILE="20")
    profiled = run([pt2c, "bench", so, "--runs", "1", "--warmup", "0"], env=env)
    assert profiled.returncode == 0, profiled.stderr
    for epilogue in ("groups 24, input 12x10 + bias, silu", "groups 4, input 6x5 + bias, silu",
                     "+ bias + residual, relu", "+ bias, relu"):
        assert epilogue in profiled.stderr, profiled.stderr


# 300 wide: K runs over two of the microkernels' K blocks, and the residual C must be added
# once, at the last.
RESIDUAL_300 = RESIDUAL.replace("WIDTH = 16", "WIDTH = 300")


def residual_epilogues(pt2c, so):
    env = dict(os.environ, PT2C_PROFILE="20")
    profiled = run([pt2c, "bench", so, "--runs", "1", "--warmup", "0"], env=env)
    assert profiled.returncode == 0, profiled.stderr
    return sorted(re.findall(r"batch=1( \+ bias)? \+ C", profiled.stderr))


@pytest.mark.parametrize("dtype, tolerance", [("float32", 1e-4), ("float16", 4e-3),
                                              ("bfloat16", 2e-2)])
def test_residual_adds_join_their_gemm_steps_on_every_path(pt2c, cpp_host, python, tmp_path,
                                                            dtype, tolerance):
    """x + o_proj(x) and h + fc(h) (3-d and 2-d): three GEMM steps whose epilogue adds the
    residual (ADD, BIAS_ADD, BIAS_ADD; f16 and bf16 widen C like the bias), matching eager
    on every path, the fallback kernels (PT2C_CPU_MICROKERNELS=0) included."""
    source = RESIDUAL_300
    if dtype != "float32":
        source = source.replace("return Residual()", f"return Residual().to(torch.{dtype})")
        source = source.replace("torch.randn(2, 3, WIDTH), torch.randn(4, WIDTH)",
                                f"torch.randn(2, 3, WIDTH).to(torch.{dtype}), "
                                f"torch.randn(4, WIDTH).to(torch.{dtype})")
    so = compile_and_check(pt2c, cpp_host, python, tmp_path, source,
                           "3 GEMM steps (microkernels)", tolerance=tolerance)
    assert residual_epilogues(pt2c, so) == ["", " + bias", " + bias"]


def test_avx2_build_runs_and_lists_only_libc(pt2c, cpp_host, python, tmp_path):
    so = compile_and_check(pt2c, cpp_host, python, tmp_path, MLP, "GEMM steps",
                           cpu="x86-64-v3")
    dynamic = run(["readelf", "-d", so]).stdout
    needed = sorted(line.split("[")[1].rstrip("]") for line in dynamic.splitlines()
                    if "(NEEDED)" in line)
    assert set(needed) <= {"libc.so.6", "libm.so.6"}, needed


def test_bench_prints_times(pt2c, tmp_path):
    model_py = write_model(tmp_path, MLP)
    so = tmp_path / "model.so"
    assert run([pt2c, model_py, "-o", so]).returncode == 0
    result = run([pt2c, "bench", so, "--runs", "5", "--warmup", "1", "--threads", "1"])
    assert result.returncode == 0, result.stderr
    assert "5 runs (1 warmup), cpu, 1 threads: median" in result.stdout, result.stdout
    env = dict(os.environ, PT2C_PROFILE="1")
    profiled = run([pt2c, "bench", so, "--runs", "2", "--warmup", "0"], env=env)
    assert profiled.returncode == 0, profiled.stderr
    assert "pt2c profile: " in profiled.stderr and "GEMM m=37 n=200 k=96 batch=1 + bias, relu" \
        in profiled.stderr, profiled.stderr
    bad = run([pt2c, "bench", so, "--runs", "0"])
    assert bad.returncode != 0 and "--runs must be >= 1" in bad.stderr


# Generated kernels big enough to be worth threads: elementwise over [2, 64, 40, 40] and a
# softmax over rows (a reduction, a temporary, then the division).
POINTWISE = """
import torch
from torch import nn

class Net(nn.Module):
    def forward(self, x, y):
        a = torch.sigmoid(x) * x + 1.0
        return a, torch.softmax(y, dim=-1)

def model():
    return Net()

def example_inputs():
    return (torch.randn(2, 64, 40, 40), torch.randn(512, 300))
"""


def test_generated_kernels_split_among_threads(pt2c, cpp_host, python, tmp_path):
    # Every path, one thread included, matches eager; with two threads the profile shows
    # the kernels divided.
    so = compile_and_check(pt2c, cpp_host, python, tmp_path, POINTWISE, "codegen")
    env = dict(os.environ, PT2C_PROFILE="1")
    profiled = run([pt2c, "bench", so, "--runs", "2", "--warmup", "0", "--threads", "2"],
                   env=env)
    assert profiled.returncode == 0, profiled.stderr
    assert "ways at most)" in profiled.stderr, profiled.stderr
    split = re.search(r"\(([0-9.]+) ms in kernels split among threads\)", profiled.stderr)
    assert split and float(split.group(1)) > 0, profiled.stderr
