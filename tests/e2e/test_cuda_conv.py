"""Convolutions under --target cuda become convolution steps that cuDNN serves (with the
model's own kernels as the fallback), checked without a GPU: the plan's convolution
records, and through the fake driver and a fake cuDNN (tests/unit/testdata/fake_cudnn.c,
which checks the descriptors the runtime sets and computes the convolutions on the host)
the calls the runtime makes, their results against eager, and the fallback. Numbers on a
real GPU: docs/BENCHMARKS.md (resnet18)."""

import numpy as np
import pytest

from conftest import BIN, run
from gpu_models import BIAS, BIAS_ADD_RELU, BIAS_RELU, CNN, CNN_DEPTHWISE, EXPECTED_CONVS, NONE
from cuda_artifacts import embedded_symbol, fake_driver_env, find_cuda_toolkit, read_plan

if not find_cuda_toolkit():
    pytest.skip("no CUDA toolkit (ptxas, fatbinary): set PT2C_CUDA_HOME", allow_module_level=True)
FAKE_CUDNN = BIN / "tests" / "unit" / "libfake_cudnn.so"
STEP_KERNEL, STEP_CONV = 0, 2
NCHW, CHANNELS_LAST = 0, 1  # pt2c_conv_layout

@pytest.fixture(scope="module")
def cnn(pt2c, tmp_path_factory):
    """(the model.so, its plan, input path, eager output)."""
    import torch
    work = tmp_path_factory.mktemp("cnn")
    (work / "cnn.py").write_text(CNN)
    so = work / "cnn_cuda.so"
    result = run([pt2c, work / "cnn.py", "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    assert "5 convolution steps (cuDNN" in result.stderr, result.stderr
    x = np.random.default_rng(4).standard_normal((2, 3, 16, 16)).astype(np.float32)
    np.save(work / "x.npy", x)
    namespace = {}
    exec(CNN, namespace)
    with torch.no_grad():
        reference = namespace["model"]()(torch.from_numpy(x)).numpy()
    return so, read_plan(embedded_symbol(so, "__pt2c_plan")[0]), work / "x.npy", reference


def run_fake(cpp_host, so, x, tmp_path, runs=1, **env):
    """Runs `so` on the fake driver and fake cuDNN; returns (output, log lines). The
    search's pick stands (PT2C_CUDNN_TIMING=0) unless `env` says otherwise: timing the
    candidates in a graph runs each convolution many times at create, which would crowd
    the log that most tests read."""
    assert FAKE_CUDNN.exists(), "run `bazel build //tests/unit:libfake_cudnn.so`"
    environment = fake_driver_env(tmp_path, FAKE_CUDA_SM="90", PT2C_LIBCUDNN=str(FAKE_CUDNN),
                                  PT2C_CUDNN_TIMING="0")
    environment.update(env)
    out = tmp_path / "out"
    result = run([cpp_host, so, "--input", x, "--output-dir", out, "--runs", str(runs)],
                 env=environment)
    assert result.returncode == 0, result.stdout + result.stderr
    return np.load(out / "0.npy"), (tmp_path / "log").read_text().splitlines()


def launched_kernels(plan, cudnn_serves):
    """The kernel names a run launches: every kernel step, but not the fallback steps of
    convolution steps cuDNN serves."""
    names, skip = [], 0
    for step in plan["steps"]:
        if skip:
            skip -= 1
            continue
        if step["kind"] == STEP_CONV:
            if cudnn_serves:
                skip = plan["convs"][step["kernel"]]["num_fallback_steps"]
            continue
        names.append(plan["gpu_kernels"][step["kernel"]]["name"])
    return names


# How many times the runtime runs cudnnFind on each convolution (cuda_conv.c, kSearches):
# every candidate counts with its best time, so one slow search does not decide.
SEARCHES = 3


def searches(log):
    """The cudnnFind calls of the fake's log, one per convolution: the runtime searches
    SEARCHES times in a row with the same descriptors."""
    lines = [line for line in log if line.startswith("cudnn find")]
    assert len(lines) % SEARCHES == 0, lines
    for repeat in range(1, SEARCHES):
        assert lines[::SEARCHES] == lines[repeat::SEARCHES], lines
    return lines[::SEARCHES]


def find_line(conv, math=3):
    """The fake's log line for cudnnFind on `conv` (a plan record)."""
    rank = conv["spatial_rank"]
    join = lambda values: ",".join(str(v) for v in values)  # noqa: E731
    x = (conv["batch"], conv["in_channels"]) + conv["input"][:rank]
    w = (conv["out_channels"], conv["in_channels"] // conv["groups"]) + conv["kernel"][:rank]
    return (f"cudnn find x={join(x)} w={join(w)} pad={join(conv['padding'][:rank])} "
            f"stride={join(conv['stride'][:rank])} dilation={join(conv['dilation'][:rank])} "
            f"groups={conv['groups']} math={math}")


def test_convolutions_become_conv_steps_with_fused_epilogues(cnn):
    so, plan, _, _ = cnn
    # cuDNN is loaded at run time: the .so needs no CUDA library.
    dynamic = run(["readelf", "-d", so]).stdout
    needed = {line.split("[")[1].rstrip("]") for line in dynamic.splitlines()
              if "(NEEDED)" in line}
    assert needed and needed <= {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0"}
    records = [(c["epilogue"], c["groups"], c["in_channels"], c["out_channels"],
                c["input"][:2], c["kernel"][:2], c["output"][:2], c["stride"][:2],
                c["padding"][:2], c["dilation"][:2]) for c in plan["convs"]]
    assert records == EXPECTED_CONVS
    assert all(c["dtype"] == 1 and c["layout"] == NCHW and c["spatial_rank"] == 2
               and c["batch"] == 2
               and c["input"][2] == c["kernel"][2] == c["output"][2] == 1
               for c in plan["convs"])
    steps = plan["steps"]
    conv_steps = [i for i, s in enumerate(steps) if s["kind"] == STEP_CONV]
    assert [steps[i]["kernel"] for i in conv_steps] == list(range(5))
    for i, conv in zip(conv_steps, plan["convs"]):
        # x, w, [bias,] [z,] y; then its fallback: kernel steps only, the conv itself (and
        # the epilogue it took in) as pt2c's own launches.
        assert len(steps[i]["args"]) == {NONE: 3, BIAS: 4, BIAS_RELU: 4, BIAS_ADD_RELU: 5}[
            conv["epilogue"]]
        fallback = steps[i + 1:i + 1 + conv["num_fallback_steps"]]
        assert fallback and all(s["kind"] == STEP_KERNEL for s in fallback)
        # The step writes what its fallback's last launch writes.
        assert steps[i]["args"][-1] == fallback[-1]["args"][-1]


# CNN_DEPTHWISE's convolution steps: the stem, the block's first convolution and the
# grouped 1x1 one keep their epilogues. The block's second convolution has none: its
# bias, the residual add and the ReLU are cheap enough to compute at each tap of the
# depthwise kernel that reads them (codegen/cuda/RecomputeAtExtracts.cpp), which saves
# writing and reading their sum.
DEPTHWISE_EPILOGUES = [BIAS_RELU, BIAS_RELU, NONE, NONE]


def test_f16_batch_norm_folds_into_the_same_convolution_steps(pt2c, tmp_path):
    """model.half(): batch norm and the residual sum compute in f32 and round to f16
    (decompose/LowPrecision.cpp); folding sees through the converts
    (fold/FoldLowPrecision.h), so the f16 plan has the f32 plan's fused epilogues. Half
    convolutions compute channels-last (kernels/ChannelsLastConvolutions.cpp): the
    transposes between them cancel. The depthwise convolution (CNN_DEPTHWISE) is a kernel
    of ours (one thread per output: cuDNN's legacy API has only slow kernels for it) that
    also adds its bias, though the grouped convolution after it reads that sum; with
    cuDNN serving the others, ours transpose the model's input to NHWC and its output
    back, and nothing else."""
    source = CNN_DEPTHWISE.replace("return net", "return net.half()").replace(
        "example_inputs = (torch.randn(2, 3, 16, 16),)",
        "example_inputs = (torch.randn(2, 3, 16, 16).half(),)")
    (tmp_path / "cnn_f16.py").write_text(source)
    so = tmp_path / "cnn_f16_cuda.so"
    result = run([pt2c, tmp_path / "cnn_f16.py", "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    assert [c["epilogue"] for c in plan["convs"]] == DEPTHWISE_EPILOGUES
    assert {c["dtype"] for c in plan["convs"]} == {3}  # f16
    assert {c["layout"] for c in plan["convs"]} == {CHANNELS_LAST}
    launched = launched_kernels(plan, cudnn_serves=True)
    # The input's transpose, the depthwise convolution with its bias, the output's
    # transpose.
    assert len(launched) == 3, launched
    kernel_steps = [s for s in plan["steps"] if s["kind"] == STEP_KERNEL]
    conv_steps = [s for s in plan["steps"] if s["kind"] == STEP_CONV]
    # The first reads the model's input, the last writes its output.
    assert kernel_steps[0]["args"][-1] == conv_steps[0]["args"][0]
    assert kernel_steps[-1]["args"][0] == conv_steps[-1]["args"][-1]


def test_f32_depthwise_convolution_is_a_kernel_of_ours(pt2c, tmp_path):
    """In f32 the convolutions keep torch's NCHW layout, and the depthwise one is a kernel
    of ours there too (cuDNN's grouped direct kernel took about 7 us for each of
    MobileViT-S's): one launch that also adds its bias, which the grouped convolution
    after it reads. The others stay cuDNN steps, with their epilogues."""
    (tmp_path / "dw.py").write_text(CNN_DEPTHWISE)
    so = tmp_path / "dw_cuda.so"
    result = run([pt2c, tmp_path / "dw.py", "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    assert "4 convolution steps (cuDNN" in result.stderr, result.stderr
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    assert [c["epilogue"] for c in plan["convs"]] == DEPTHWISE_EPILOGUES
    assert {c["layout"] for c in plan["convs"]} == {NCHW}
    launched = launched_kernels(plan, cudnn_serves=True)
    assert len(launched) == 1, launched
    # It reads the block's second convolution's output (the sum before the bias and
    # residual add), and the grouped convolution reads what it writes (after its bias).
    conv_steps = [s for s in plan["steps"] if s["kind"] == STEP_CONV]
    kernel_step = next(s for s in plan["steps"] if s["kind"] == STEP_KERNEL
                       and plan["gpu_kernels"][s["kernel"]]["name"] == launched[0])
    assert conv_steps[2]["args"][-1] in kernel_step["args"][:-1]
    assert conv_steps[3]["args"][0] == kernel_step["args"][-1]


def test_cudnn_serves_every_convolution_and_matches_eager(cnn, cpp_host, tmp_path):
    """Three runs: the first launches the steps directly, the second captures the CUDA
    graph (the fake cuDNN queues its work on the captured stream), the third launches
    the graph; every run computes every convolution through cuDNN, none through the
    fallback kernels."""
    so, plan, x, reference = cnn
    y, log = run_fake(cpp_host, so, x, tmp_path, runs=3)
    assert np.abs(y - reference).max() / np.abs(reference).max() <= 1e-5
    finds = searches(log)
    assert finds == [find_line(c) for c in plan["convs"]]  # FMA math: no TF32
    calls = [line.split()[1] + (" " + line.split()[-1] if "bias_act" in line else "")
             for line in log if line.startswith("cudnn ") and "find" not in line]
    one_run = ["bias_act relu", "bias_act relu", "bias_act residual", "forward", "add_tensor",
               "forward"]
    assert calls == one_run * 3
    assert launched_kernels(plan, cudnn_serves=True) == []
    assert not [line for line in log if line.startswith("launch ")]


@pytest.mark.parametrize("times, algorithm", [
    # Searches 1, 2, 3 of each convolution (t1:t0 each): algorithm 0 wins the second
    # search, but algorithm 1's best time (0.05, the first) is the best of all.
    ("0.05:0.3,0.5:0.1,0.3:0.4", 1),
    ("0.2:0.3,0.5:0.1,0.3:0.4", 0),
])
def test_cudnn_algorithm_is_the_best_time_over_the_searches(cnn, cpp_host, tmp_path, times,
                                                           algorithm):
    so, plan, x, _ = cnn
    _, log = run_fake(cpp_host, so, x, tmp_path, FAKE_CUDNN_TIMES=times)
    assert len(searches(log)) == len(plan["convs"])
    algorithms = {line.split("algo=")[1].split()[0] for line in log
                  if line.startswith("cudnn ") and "algo=" in line}
    assert algorithms == {str(algorithm)}


@pytest.mark.parametrize("run_ms, algorithm", [("0.5:0.1", 0), ("0.1:0.5", 1)])
def test_cudnn_algorithm_is_the_fastest_in_a_graph(cnn, cpp_host, tmp_path, run_ms, algorithm):
    """The search puts algorithm 1 first (the fake's default times); timed in a CUDA graph
    (the fake driver's events read a clock that each convolution moves on by
    FAKE_CUDNN_RUN_MS, t1:t0), the faster one runs, whatever the search said."""
    so, plan, x, reference = cnn
    y, log = run_fake(cpp_host, so, x, tmp_path, PT2C_CUDNN_TIMING="1",
                      FAKE_CUDNN_RUN_MS=run_ms)
    assert np.abs(y - reference).max() / np.abs(reference).max() <= 1e-5
    algorithms = [line.split("algo=")[1].split()[0] for line in log
                  if line.startswith("cudnn ") and "algo=" in line]
    # Timing ran both candidates of every convolution; the model's run, last, the pick.
    assert set(algorithms) == {"0", "1"}
    assert algorithms[-len(plan["convs"]):] == [str(algorithm)] * len(plan["convs"])


def test_tf32_lets_cudnn_use_tensor_op_math(cnn, cpp_host, tmp_path):
    so, plan, x, reference = cnn
    _, log = run_fake(cpp_host, so, x, tmp_path, PT2C_CUDA_TF32="1")
    assert searches(log) == [
        find_line(c, math=0) for c in plan["convs"]]


@pytest.mark.parametrize("env", [{"PT2C_CUDNN": "0"}, {"FAKE_CUDNN_NO_ALGO": "1"},
                                 {"FAKE_CUDNN_NO_ALGO": "1", "PT2C_CUDNN_NHWC": "1"},
                                 {"PT2C_LIBCUDNN": "/nonexistent/libcudnn.so.9"}])
def test_without_cudnn_the_fallback_kernels_run(cnn, cpp_host, tmp_path, env):
    so, plan, x, _ = cnn
    _, log = run_fake(cpp_host, so, x, tmp_path, **env)
    assert not [line for line in log if line.startswith("cudnn ") and "find" not in line]
    launches = [line.split()[1] for line in log if line.startswith("launch ")]
    assert launches == launched_kernels(plan, cudnn_serves=False)


def test_channels_last_convolutions_keep_what_only_they_touch_in_nhwc(cnn, cpp_host, tmp_path):
    """PT2C_CUDNN_NHWC=1 runs every convolution channels-last with its filter copied to
    KRSC at create ("nhwc"; the default does so for f16/bf16 only, and the fake computes
    f32). The tensors between them stay NHWC; the model's input and output are NCHW, so
    the stem transposes its x in and the last convolution its y out, once per run. The
    numerics show that every reader agrees on the bytes."""
    so, plan, x, reference = cnn
    y, log = run_fake(cpp_host, so, x, tmp_path, runs=3, PT2C_CUDNN_NHWC="1")
    assert np.abs(y - reference).max() / np.abs(reference).max() <= 1e-5
    assert searches(log) == [
        find_line(c) + " nhwc" for c in plan["convs"]]
    calls = [line.split()[1] + (" " + line.split()[2] if "transform" in line else "")
             for line in log if line.startswith("cudnn ") and "find" not in line]
    one_run = ["transform to_nhwc", "bias_act", "bias_act", "bias_act", "forward", "add_tensor",
               "forward", "transform to_nchw"]
    assert calls == one_run * 3
    assert not [line for line in log if line.startswith("launch ")]


def test_channels_last_transposes_what_our_kernels_read(pt2c, cpp_host, tmp_path):
    """A tensor that one of our kernels reads (here a max pool between two convolutions)
    stays NCHW: the convolution writing it transposes its y out, the one reading it
    transposes its x in. (The fake driver does not compute our kernels, so only the call
    sequence is checked; the cnn tests above check the transposes' numerics.)"""
    source = CNN.replace("x = torch.relu(self.bn(self.stem(x)))",
                         "x = torch.max_pool2d(torch.relu(self.bn(self.stem(x))), 3, 1, 1)")
    (tmp_path / "pool.py").write_text(source)
    so = tmp_path / "pool_cuda.so"
    result = run([pt2c, tmp_path / "pool.py", "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    np.save(tmp_path / "x.npy", np.ones((2, 3, 16, 16), np.float32))
    _, log = run_fake(cpp_host, so, tmp_path / "x.npy", tmp_path, PT2C_CUDNN_NHWC="1")
    transforms = [line.split()[2] for line in log if line.startswith("cudnn transform")]
    # stem: x in, y out (the pool reads it); conv1: x in; conv2: z in (the pool's output
    # is the residual); the last convolution: y out.
    assert transforms == ["to_nhwc", "to_nchw", "to_nhwc", "to_nhwc", "to_nchw"]
    assert [line.split()[1] for line in log if line.startswith("launch ")]  # the pool


SQUEEZE_EXCITATION = """
import torch


class SqueezeExcitation(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc1 = torch.nn.Conv2d(8, 4, 1)
        self.fc2 = torch.nn.Conv2d(4, 8, 1)

    def forward(self, x):
        y = torch.relu(self.stem(x))
        g = torch.sigmoid(self.fc2(torch.relu(self.fc1(y.mean((2, 3), keepdim=True)))))
        return y * g


model = SqueezeExcitation
example_inputs = (torch.randn(2, 3, 16, 16),)
"""


def test_channels_last_one_pixel_tensors_need_no_transpose(pt2c, cpp_host, tmp_path):
    """A squeeze-excitation gate's two 1x1 convolutions read and write [N, C, 1, 1]
    tensors, whose bytes are the same in NCHW and NHWC: they are matrix products of the
    [N, C] rows (kernels/PointwiseConvolutions.cpp), GEMM steps that read our pooled mean
    and feed our sigmoid as they are. Channels-last, only the stem's convolution
    transposes (its x in, its y out, which our pooling and scale kernels read)."""
    (tmp_path / "se.py").write_text(SQUEEZE_EXCITATION)
    so = tmp_path / "se_cuda.so"
    result = run([pt2c, tmp_path / "se.py", "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    assert "2 GEMM steps (cuBLASLt" in result.stderr, result.stderr
    assert "1 convolution steps (cuDNN" in result.stderr, result.stderr
    np.save(tmp_path / "x.npy", np.ones((2, 3, 16, 16), np.float32))
    _, log = run_fake(cpp_host, so, tmp_path / "x.npy", tmp_path, PT2C_CUDNN_NHWC="1")
    transforms = [line.split()[2] for line in log if line.startswith("cudnn transform")]
    assert transforms == ["to_nhwc", "to_nchw"]


def test_without_channels_last_algorithms_every_convolution_goes_back_to_nchw(
        cnn, cpp_host, tmp_path):
    """A channels-last convolution has no fallback (our kernels read NCHW): when cuDNN finds
    no algorithm for one, the runtime prepares every convolution again in NCHW."""
    so, plan, x, reference = cnn
    y, log = run_fake(cpp_host, so, x, tmp_path, PT2C_CUDNN_NHWC="1", FAKE_CUDNN_NO_NHWC="1")
    assert np.abs(y - reference).max() / np.abs(reference).max() <= 1e-5
    assert searches(log) == [
        find_line(c) for c in plan["convs"]]
    assert not [line for line in log if line.startswith("launch ") or "transform" in line]


# 1-d convolutions run as 2-d ones of height 1 (cuDNN takes 4 or 5 dims); 3-d ones as 5-d
# tensors. Each has its bias (+ ReLU) fused.
CONV_1D_3D = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1d = nn.Conv1d(4, 6, 3, stride=2, padding=1)
        self.conv3d = nn.Conv3d(2, 3, 3, padding=(1, 1, 1), dilation=(1, 1, 1))

    def forward(self, x, v):
        return torch.relu(self.conv1d(x)), self.conv3d(v)


def model():
    torch.manual_seed(0)
    return Net().eval()


example_inputs = (torch.randn(2, 4, 9), torch.randn(1, 2, 4, 5, 6))
"""


def test_1d_and_3d_convolutions_run_through_cudnn(pt2c, cpp_host, tmp_path):
    import torch
    (tmp_path / "net.py").write_text(CONV_1D_3D)
    so = tmp_path / "net_cuda.so"
    result = run([pt2c, tmp_path / "net.py", "--target", "cuda:sm_90", "-o", so])
    assert result.returncode == 0, result.stderr
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    shapes = [(c["spatial_rank"], c["epilogue"], c["input"], c["kernel"], c["output"],
               c["stride"], c["padding"]) for c in plan["convs"]]
    assert sorted(shapes) == [(1, BIAS_RELU, (9, 1, 1), (3, 1, 1), (5, 1, 1), (2, 1, 1),
                               (1, 0, 0)),
                              (3, BIAS, (4, 5, 6), (3, 3, 3), (4, 5, 6), (1, 1, 1), (1, 1, 1))]
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 4, 9)).astype(np.float32)
    v = rng.standard_normal((1, 2, 4, 5, 6)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "v.npy", v)
    namespace = {}
    exec(CONV_1D_3D, namespace)
    with torch.no_grad():
        references = [r.numpy() for r in namespace["model"]()(torch.from_numpy(x),
                                                              torch.from_numpy(v))]
    env = fake_driver_env(tmp_path, FAKE_CUDA_SM="90", PT2C_LIBCUDNN=str(FAKE_CUDNN))
    out = tmp_path / "out"
    result = run([cpp_host, so, "--input", tmp_path / "x.npy", "--input", tmp_path / "v.npy",
                  "--output-dir", out], env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    log = (tmp_path / "log").read_text()
    assert "cudnn find x=2,4,1,9 w=6,4,1,3 pad=0,1 stride=1,2 dilation=1,1" in log
    assert "cudnn find x=1,2,4,5,6 w=3,2,3,3,3 pad=1,1,1 stride=1,1,1" in log
    assert "launch " not in log
    for i, reference in enumerate(references):
        y = np.load(out / f"{i}.npy")
        assert np.abs(y - reference).max() / np.abs(reference).max() <= 1e-5
