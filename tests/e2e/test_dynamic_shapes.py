"""Dynamic dimensions compiled (README, model.py's dynamic_shapes): one .so runs every
size in the declared ranges, checked against PyTorch eager at sizes other than the
traced ones, with the C++ host (no Python in its process); out-of-range and mismatched
sizes are run-time errors, not wrong answers.

    python -m pytest tests/e2e/test_dynamic_shapes.py
"""
import numpy as np
import pytest

from conftest import env_without_python, run
from harness import (compile_model, eager_data, run_against_references, with_random_batch_norm,
                     write_model)

MLP = """
    import torch
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4))
    example_inputs = (torch.randn(8, 16),)
    dynamic_shapes = {"input": {0: ("batch", 1, 64)}}
"""

# A causal attention block: the view shapes, the causal mask's slice of a fixed buffer,
# the padding mask's view, arange and expand all follow batch and seq.
ATTENTION = """
    import torch
    torch.manual_seed(0)

    class Attention(torch.nn.Module):
        def __init__(self, c=16, heads=2):
            super().__init__()
            self.heads = heads
            self.norm = torch.nn.LayerNorm(c)
            self.qkv = torch.nn.Linear(c, 3 * c)
            self.register_buffer("causal", torch.tril(torch.ones(32, 32)).view(1, 1, 32, 32))

        def forward(self, x, keep):
            B, T, C = x.shape
            q, k, v = self.qkv(self.norm(x)).split(C, dim=2)
            q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * 0.25
            att = att.masked_fill(self.causal[:, :, :T, :T] == 0, float("-inf"))
            att = att.masked_fill(keep.view(B, 1, 1, T) == 0, -1e4).softmax(-1)
            y = (att @ v).transpose(1, 2).reshape(B * T, C)
            positions = torch.arange(T).expand(B, T)
            return y, positions

    model = Attention()
    keep = torch.ones(2, 8, dtype=torch.long)
    keep[1, 6:] = 0
    example_inputs = (torch.randn(2, 8, 16), keep)
    dynamic_shapes = {"x": {0: ("batch", 1, 16), 1: ("seq", 2, 32)},
                      "keep": {0: "batch", 1: "seq"}}
"""


# A CNN with dynamic batch: convolution, pooling and the Linear take the batch through,
# and folding batch norm into the convolution renumbers the function's arguments.
CNN = """
    import torch
    from torch import nn

    def model():
        torch.manual_seed(0)
        return random_batch_norm(nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 8, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
            nn.Linear(8, 5)))

    example_inputs = (torch.randn(2, 3, 16, 16),)
    dynamic_shapes = {"input": {0: ("batch", 1, 8)}}
"""


@pytest.fixture(scope="module")
def attention_so(pt2c, tmp_path_factory):
    work = tmp_path_factory.mktemp("attention")
    model_py = write_model(work, ATTENTION)
    return model_py, compile_model(pt2c, model_py, work)


def check_at(cpp_host, python, model_py, so, work, shapes, seed):
    """Runs the .so on fresh inputs of `shapes` and compares with eager (1e-4 relative)."""
    inputs, refs = eager_data(python, model_py, work / f"data{seed}", seed, shapes)
    result = run_against_references(cpp_host, so, inputs, refs, work / f"out{seed}", 1e-4)
    outputs = sorted((work / f"out{seed}").glob("*.npy"))
    return result.stdout, [np.load(p).shape for p in outputs]


@pytest.mark.parametrize("batch", [1, 5, 8, 64])
def test_mlp_runs_every_batch_size(pt2c, cpp_host, python, tmp_path, batch):
    model_py = write_model(tmp_path, MLP)
    so = compile_model(pt2c, model_py, tmp_path)
    stdout, shapes = check_at(cpp_host, python, model_py, so, tmp_path, [[batch, 16]], seed=batch)
    assert shapes == [(batch, 4)]
    assert "0 input: f32 [-1, 16]" in stdout and "dynamic batch: [1, 64]" in stdout


def test_cnn_runs_other_batch_sizes(pt2c, cpp_host, python, tmp_path):
    model_py = write_model(tmp_path, with_random_batch_norm(CNN))
    so = compile_model(pt2c, model_py, tmp_path)
    for batch in (1, 8):
        _, shapes = check_at(cpp_host, python, model_py, so, tmp_path, [[batch, 3, 16, 16]],
                             seed=batch)
        assert shapes == [(batch, 5)]


@pytest.mark.parametrize("batch, seq", [(1, 2), (3, 5), (7, 19), (16, 32)])
def test_attention_runs_other_batch_and_sequence_sizes(cpp_host, python, attention_so, tmp_path,
                                                       batch, seq):
    model_py, so = attention_so
    stdout, shapes = check_at(cpp_host, python, model_py, so, tmp_path,
                              [[batch, seq, 16], [batch, seq]], seed=batch * 100 + seq)
    # y is [batch*seq, 16]; positions [batch, seq] (sorted file names: 0_y, 1_positions... )
    assert sorted(shapes) == sorted([(batch * seq, 16), (batch, seq)])


def run_with(cpp_host, so, tmp_path, *arrays):
    cmd = [cpp_host, so]
    for i, a in enumerate(arrays):
        np.save(tmp_path / f"in{i}.npy", a)
        cmd += ["--input", tmp_path / f"in{i}.npy"]
    return run(cmd, env=env_without_python())


def test_a_size_outside_the_range_is_refused(cpp_host, attention_so, tmp_path):
    _, so = attention_so
    result = run_with(cpp_host, so, tmp_path, np.zeros((2, 33, 16), np.float32),
                      np.ones((2, 33), np.int64))
    assert result.returncode != 0
    assert "input 0 ('x') dim 1 is 33: dynamic dimension 'seq' must lie in [2, 32]" in result.stderr


def test_inputs_that_disagree_on_a_dimension_are_refused(cpp_host, attention_so, tmp_path):
    _, so = attention_so
    result = run_with(cpp_host, so, tmp_path, np.zeros((2, 8, 16), np.float32),
                      np.ones((2, 9), np.int64))
    assert result.returncode != 0
    assert "input 1 ('keep'): expected shape [2, 8], got [2, 9]" in result.stderr


def test_cuda_runs_every_size_with_the_same_launches(pt2c, cpp_host, tmp_path):
    """--target cuda: the attention block's launches (kernels, grids, parameters) are the
    plan's at every size, since buffers and grids are fixed at the maxima, and each run
    first copies its two symbol values (16 bytes) to the device. The fake driver computes
    nothing; numbers on a GPU: tests/gpu/README.md (the generation examples)."""
    from cuda_artifacts import find_cuda_toolkit, run_on_fake_driver
    if not find_cuda_toolkit():
        pytest.skip("no CUDA toolkit (ptxas, fatbinary): set PT2C_CUDA_HOME")
    model_py = write_model(tmp_path, ATTENTION)
    so = tmp_path / "attention_cuda.so"
    result = run([pt2c, model_py, "--target", "cuda", "-o", so])
    assert result.returncode == 0, result.stderr
    launches = []
    for batch, seq in [(1, 2), (16, 32), (3, 7)]:
        np.save(tmp_path / "x.npy", np.zeros((batch, seq, 16), np.float32))
        np.save(tmp_path / "keep.npy", np.ones((batch, seq), np.int64))
        out = tmp_path / f"fake{batch}x{seq}"
        out.mkdir()
        _, log = run_on_fake_driver(cpp_host, so, [tmp_path / "x.npy", tmp_path / "keep.npy"], out)
        assert log.count("htod_async 16") == 1
        launches.append([line for line in log if line.startswith("launch ")])
    assert launches[0] == launches[1] == launches[2]


# Slices along a static dim of a tensor with a dynamic dim, concatenated (Llama's
# rotate_half): views of dynamic size in the generated CPU code.
ROTATE_HALF = """
    import torch

    class RotateHalf(torch.nn.Module):
        def forward(self, x):
            x1 = x[..., : x.shape[-1] // 2]
            x2 = x[..., x.shape[-1] // 2 :]
            return torch.cat((-x2, x1), dim=-1) * 2

    model = RotateHalf()
    example_inputs = (torch.randn(1, 8, 64),)
    dynamic_shapes = {"x": {1: ("seq", 2, 128)}}
"""


def test_concatenated_slices_of_a_dynamic_tensor(pt2c, cpp_host, python, tmp_path):
    model_py = write_model(tmp_path, ROTATE_HALF)
    so = compile_model(pt2c, model_py, tmp_path)
    for seq in (2, 77):
        _, shapes = check_at(cpp_host, python, model_py, so, tmp_path, [[1, seq, 64]], seed=seq)
        assert shapes == [(1, seq, 64)]


# transformers' BertModel (examples/bert) with dynamic batch and sequence: its mask code
# indexes the padding mask with index tensors (advanced indexing of a dynamic tensor),
# the pooler takes token 0 of a dynamic dim.
BERT = """
    import importlib.util
    spec = importlib.util.spec_from_file_location("bert", {path!r})
    bert = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bert)
    model, example_inputs = bert.model, bert.example_inputs
    dynamic_shapes = {{"input_ids": {{0: ("batch", 1, 8), 1: ("seq", 2, 16)}},
                      "attention_mask": {{0: "batch", 1: "seq"}}}}
"""


def test_bert_runs_other_batch_and_sequence_sizes(pt2c, cpp_host, python, tmp_path):
    pytest.importorskip("transformers")
    from conftest import REPO
    model_py = write_model(tmp_path, BERT.format(path=str(REPO / "examples" / "bert" / "model.py")))
    so = compile_model(pt2c, model_py, tmp_path)
    for seed, (batch, seq) in enumerate([(1, 3), (5, 12), (8, 16)]):
        _, shapes = check_at(cpp_host, python, model_py, so, tmp_path,
                             [[batch, seq], [batch, seq]], seed=seed)
        assert sorted(shapes) == sorted([(batch, seq, 32), (batch, 32)])
