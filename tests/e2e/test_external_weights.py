"""`pt2c --external-weights`: the weights go to model.so.weights (with a recipe and a side
file of folded weights) instead of into the .so; the runtime reads and checks the file at
create; `python -m pt2c_exporter weights` remakes the identical file from model.py, which
is how models too big to carry get their weights on the GPU machine (tests/gpu)."""
import json
import os
import pathlib
import shutil
import struct

import numpy as np
import pytest
import torch

from conftest import REPO, run
from cuda_artifacts import embedded_symbol, find_cuda_toolkit, run_on_fake_driver
from harness import eager_data, run_against_references, with_random_batch_norm, write_model

# A convolution with batch norm (folded into derived weights: the side file), a Linear and
# a buffer (parameters and buffers, which the exporter remakes by name).
NET = with_random_batch_norm("""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8 * 6 * 6, 10)
        self.register_buffer("floor", torch.linspace(-0.1, 0.1, 10))

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        return torch.maximum(self.fc(y.flatten(1)), self.floor)


def model():
    torch.manual_seed(SEED)
    return random_batch_norm(Net())


example_inputs = (torch.randn(2, 3, 6, 6),)
""")
HEADER = struct.Struct("<8sIIQQQ24x")
EXPORTER = REPO / "compiler" / "exporter"
OLD_PYTHON = "/usr/bin/python3"  # Debian's torch 1.13: the entry point must not care


def net_source(seed):
    return NET.replace("SEED", str(seed))


def compile_external(pt2c, model_py, so, *extra):
    result = run([pt2c, model_py, "-o", so, "--external-weights", *extra])
    assert result.returncode == 0, result.stderr
    return result


def remake(python, model_py, recipe, output, *extra):
    env = dict(os.environ, PYTHONPATH=str(EXPORTER))
    return run([python, "-m", "pt2c_exporter", "weights", model_py, "--recipe", recipe,
                "-o", output, *extra], env=env)


@pytest.fixture(scope="module")
def compiled(pt2c, python, tmp_path_factory):
    work = tmp_path_factory.mktemp("external")
    model_py = write_model(work, net_source(0))
    so = work / "net.so"
    result = compile_external(pt2c, model_py, so)
    assert "weights  " + str(so) + ".weights" in result.stderr
    inputs, refs = eager_data(python, model_py, work / "data")
    return work, model_py, so, inputs, refs


def test_files_and_what_the_so_records(compiled, pt2c, tmp_path):
    work, model_py, so, _, _ = compiled
    weights = pathlib.Path(str(so) + ".weights")
    recipe = pathlib.Path(str(so) + ".weights.json")
    side = pathlib.Path(str(so) + ".weights.derived")
    assert weights.exists() and recipe.exists() and side.exists()
    sources = [(p["source"], p["name"]) for p in json.loads(recipe.read_text())["pieces"]]
    assert sorted(sources) == [("buffer", "floor"), ("derived", "#fold0"), ("derived", "#fold1"),
                               ("parameter", "fc.bias"), ("parameter", "fc.weight")]
    magic, version, header_size, size, fingerprint, checksum = HEADER.unpack(
        weights.read_bytes()[:64])
    assert (magic, version, header_size) == (b"PT2CWGT\0", 1, 64)
    assert weights.stat().st_size == 64 + size
    record, _ = embedded_symbol(so, "__pt2c_external_weights")
    assert struct.unpack("<4Q", record) == (1, size, fingerprint, checksum)
    assert embedded_symbol(so, "__pt2c_weights")[0] == b""
    # The same model with embedded weights carries the blob itself.
    embedded = tmp_path / "embedded.so"
    assert run([pt2c, model_py, "-o", embedded]).returncode == 0
    blob, _ = embedded_symbol(embedded, "__pt2c_weights")
    assert blob == weights.read_bytes()[64:]


def test_runs_like_eager_with_the_file_beside_it(compiled, cpp_host):
    work, _, so, inputs, refs = compiled
    run_against_references(cpp_host, so, inputs, refs, work / "out", 1e-4)


@pytest.mark.parametrize("interpreter", ["current", "old"])
def test_exporter_remakes_the_identical_file(compiled, cpp_host, python, tmp_path, interpreter):
    work, model_py, so, inputs, refs = compiled
    py = python if interpreter == "current" else OLD_PYTHON
    if interpreter == "old" and run([py, "-c", "import torch"]).returncode != 0:
        pytest.skip(f"{py} has no torch")
    remade = tmp_path / "remade.weights"
    result = remake(py, model_py, str(so) + ".weights.json", remade)
    assert result.returncode == 0, result.stderr
    assert "checked against" in result.stderr
    assert remade.read_bytes() == pathlib.Path(str(so) + ".weights").read_bytes()
    # The remade file runs, from another place (cpp_host --weights).
    alone = tmp_path / "net.so"
    shutil.copy(so, alone)
    result = run([cpp_host, alone, "--weights", remade, "--input", inputs[0],
                  "--reference", refs[0], "--tolerance", "1e-4"])
    assert result.returncode == 0, result.stdout + result.stderr


def test_exporter_refuses_a_model_with_other_weights(compiled, python, tmp_path):
    work, _, so, _, _ = compiled
    other = write_model(tmp_path, net_source(1))  # another seed: other random init
    out = tmp_path / "w"
    result = remake(python, other, str(so) + ".weights.json", out)
    assert result.returncode == 1
    assert "pt2c: error: " in result.stderr
    assert "2 of 5 weights differ from the compile's" in result.stderr
    assert "parameter 'fc.weight' (float32 [10, 288]) holds other values" in result.stderr
    assert "torch.manual_seed" in result.stderr
    assert not out.exists() and not list(tmp_path.glob("w.tmp-*"))


def test_exporter_needs_the_side_file(compiled, python, tmp_path):
    work, model_py, so, _, _ = compiled
    recipe = tmp_path / "net.so.weights.json"
    shutil.copy(str(so) + ".weights.json", recipe)  # without its .derived beside it
    result = remake(python, model_py, recipe, tmp_path / "w")
    assert result.returncode == 1
    assert "cannot read the side file of derived weights" in result.stderr
    result = remake(python, model_py, recipe, tmp_path / "w", "--derived",
                    str(so) + ".weights.derived")
    assert result.returncode == 0, result.stderr


def test_wrong_weights_files_are_clear_errors(compiled, pt2c, cpp_host, tmp_path):
    work, _, so, inputs, _ = compiled
    good = pathlib.Path(str(so) + ".weights").read_bytes()
    lonely = tmp_path / "net.so"
    shutil.copy(so, lonely)

    def create(weights=None, env=None):
        cmd = [cpp_host, lonely, "--input", inputs[0]]
        if weights is not None:
            cmd += ["--weights", weights]
        result = run(cmd, env=env)
        assert result.returncode == 1, result.stdout + result.stderr  # an error, no crash
        return result.stderr

    assert f"weights file '{lonely}.weights' does not exist" in create()
    (tmp_path / "truncated").write_bytes(good[:-100])
    assert "is truncated" in create(tmp_path / "truncated")
    (tmp_path / "short").write_bytes(good[:20])
    assert "shorter than its 64-byte header" in create(tmp_path / "short")
    assert "not a pt2c weights file" in create(so)
    corrupt = bytearray(good)
    corrupt[64 + 200] ^= 0x40
    (tmp_path / "corrupt").write_bytes(bytes(corrupt))
    assert "is corrupt" in create(tmp_path / "corrupt")
    assert "is corrupt" in create(env=dict(os.environ, PT2C_WEIGHTS=str(tmp_path / "corrupt")))
    # Another model's file.
    mlp = tmp_path / "mlp.so"
    compile_external(pt2c, REPO / "examples" / "mlp" / "model.py", mlp)
    assert "belongs to another model or another compile" in create(str(mlp) + ".weights")
    # A model that embeds its weights takes no file.
    embedded = tmp_path / "embedded.so"
    assert run([pt2c, REPO / "examples" / "mlp" / "model.py", "-o", embedded]).returncode == 0
    result = run([cpp_host, embedded, "--weights", str(mlp) + ".weights",
                  "--input", inputs[0]])
    assert result.returncode == 1 and "embeds its weights" in result.stderr


def test_weights_out_and_pt2c_weights(compiled, pt2c, cpp_host, tmp_path):
    work, model_py, _, inputs, refs = compiled
    so, elsewhere = tmp_path / "net.so", tmp_path / "elsewhere.bin"
    compile_external(pt2c, model_py, so, "--weights-out", elsewhere)
    assert elsewhere.exists() and pathlib.Path(str(elsewhere) + ".json").exists()
    assert not pathlib.Path(str(so) + ".weights").exists()
    cmd = [cpp_host, so, "--input", inputs[0], "--reference", refs[0], "--tolerance", "1e-4"]
    result = run(cmd, env=dict(os.environ, PT2C_WEIGHTS=str(elsewhere)))
    assert result.returncode == 0, result.stdout + result.stderr
    result = run([pt2c, "run", so, "--weights", elsewhere, "--input",
                  inputs[0], "--output-dir", tmp_path / "out"])
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(not find_cuda_toolkit(), reason="no CUDA toolkit (ptxas, fatbinary)")
def test_cuda_model_uploads_the_file_once(compiled, pt2c, cpp_host, tmp_path):
    _, model_py, _, inputs, _ = compiled
    so = tmp_path / "net_cuda.so"
    compile_external(pt2c, model_py, so, "--target", "cuda")
    size = HEADER.unpack(pathlib.Path(str(so) + ".weights").read_bytes()[:64])[3]
    plan, log = run_on_fake_driver(cpp_host, so, inputs, tmp_path)
    assert plan["weights_size"] <= size
    copies = [line for line in log if not line.startswith("launch ")]
    assert copies[0] == f"htod {plan['weights_size']}"  # at create, from the copy read from the file


# Two graphs (signatures) share one weights blob, and so one weights file.
TWO_GRAPHS = """
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x, scale=None):
        y = self.fc(x)
        return y if scale is None else y * scale


def model():
    torch.manual_seed(0)
    return M()


signatures = {"plain": (torch.randn(2, 4), None), "scaled": (torch.randn(2, 4), torch.randn(2, 3))}
"""


def test_multi_graph_model_shares_the_file(pt2c, cpp_host, tmp_path):
    model_py = write_model(tmp_path, TWO_GRAPHS)
    so = tmp_path / "two.so"
    compile_external(pt2c, model_py, so)
    x = np.random.default_rng(5).standard_normal((2, 4)).astype(np.float32)
    scale = np.random.default_rng(6).standard_normal((2, 3)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "scale.npy", scale)
    torch.manual_seed(0)
    net = torch.nn.Linear(4, 3)
    with torch.no_grad():
        plain = net(torch.from_numpy(x)).numpy()
    for second, expected in [("none", plain), (tmp_path / "scale.npy", plain * scale)]:
        out = tmp_path / f"out_{second != 'none'}"
        result = run([cpp_host, so, "--input", tmp_path / "x.npy", "--input", second,
                      "--output-dir", out])
        assert result.returncode == 0, result.stdout + result.stderr
        got = np.load(out / "0.npy")
        assert np.abs(got - expected).max() <= 1e-4 * np.abs(expected).max()
