"""Multi-graph models (model.py `signatures`): one model.so, one graph per signature, and
the compiled library's dispatch picks the graph from the inputs a caller gives.

Each case compiles once, runs the .so through cpp_host (no Python) on fresh random
inputs and compares with PyTorch eager on the same inputs: max|diff| / max|ref| <= 1e-4.
"""
import ctypes
import json
import sys

import numpy as np
import pytest

from conftest import REPO, env_without_python, run
from harness import compile_model, write_model

# forward(x, mask=None) traced with and without the mask, and a second method.
MASKED = """
    import torch

    class Masked(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.fc = torch.nn.Linear(8, 4)
            self.enc = torch.nn.Linear(8, 6)

        def forward(self, x, mask=None):
            y = self.fc(x)
            if mask is not None:
                y = y.masked_fill(mask, 0.0)
            return torch.tanh(y)

        def encode(self, x):
            return torch.relu(self.enc(x)) * 2.0

    model = Masked()
    signatures = {
        "with_mask": (torch.randn(2, 8), torch.rand(2, 4) > 0.5),
        "no_mask": (torch.randn(2, 8), None),
        "encode": {"method": "encode", "inputs": (torch.randn(2, 8),)},
    }
"""

# One forward, three dtypes: dispatch by dtype alone.
DTYPES = """
    import torch

    class Affine(torch.nn.Module):
        def forward(self, x):
            return x * 3 + 1

    model = Affine()
    signatures = {
        "f32": (torch.randn(3, 5),),
        "f64": (torch.randn(3, 5, dtype=torch.float64),),
        "i64": (torch.randint(-50, 50, (3, 5)),),
    }
"""

# Runs model.<method>(*inputs) in eager: argv = model.py method out.npy input.npy|none ...
EAGER = """
import importlib.util, sys
import numpy as np, torch
spec = importlib.util.spec_from_file_location("m", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
model = module.model.eval()
inputs = [None if p == "none" else torch.from_numpy(np.load(p)) for p in sys.argv[4:]]
with torch.no_grad():
    out = getattr(model, sys.argv[2])(*inputs)
np.save(sys.argv[3], out.numpy())
"""


@pytest.fixture(scope="module")
def masked_so(pt2c, tmp_path_factory):
    work = tmp_path_factory.mktemp("masked")
    model_py = write_model(work, MASKED)
    return model_py, compile_model(pt2c, model_py, work)


@pytest.fixture(scope="module")
def dtypes_so(pt2c, tmp_path_factory):
    work = tmp_path_factory.mktemp("dtypes")
    model_py = write_model(work, DTYPES)
    return model_py, compile_model(pt2c, model_py, work)


def save_inputs(work, arrays):
    """arrays: numpy arrays or None -> cpp_host --input arguments."""
    paths = []
    for i, a in enumerate(arrays):
        if a is None:
            paths.append("none")
        else:
            path = work / ("in%d.npy" % i)
            np.save(path, a)
            paths.append(str(path))
    return paths


def run_both(python, cpp_host, model_py, so, work, method, arrays, cli_method=None):
    """Runs eager and the .so on the same inputs; returns (cpp_host result, reference)."""
    paths = save_inputs(work, arrays)
    ref = work / "ref.npy"
    script = work / "eager.py"
    script.write_text(EAGER)
    made = run([python, script, model_py, method, ref] + paths)
    assert made.returncode == 0, made.stderr
    cmd = [cpp_host, so, "--output-dir", work / "out", "--reference", ref, "--tolerance", "1e-4"]
    if cli_method:
        cmd += ["--method", cli_method]
    for p in paths:
        cmd += ["--input", p]
    return run(cmd, env=env_without_python()), np.load(ref)


def test_optional_input_given_runs_the_masked_graph(masked_so, python, cpp_host, tmp_path):
    model_py, so = masked_so
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 8)).astype(np.float32)
    mask = rng.random((2, 4)) > 0.5
    result, ref = run_both(python, cpp_host, model_py, so, tmp_path, "forward", [x, mask])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "rel = " in result.stdout and "FAILED" not in result.stdout
    assert np.all(ref[mask] == 0) and np.any(ref[~mask] != 0)  # the mask did something
    assert np.all(np.load(tmp_path / "out" / "0.npy")[mask] == 0)


def test_optional_input_absent_runs_the_unmasked_graph(masked_so, python, cpp_host, tmp_path):
    model_py, so = masked_so
    x = np.random.default_rng(2).standard_normal((2, 8)).astype(np.float32)
    for arrays in ([x, None], [x]):  # absent given as `none`, or left out at the end
        result, ref = run_both(python, cpp_host, model_py, so, tmp_path, "forward", arrays)
        assert result.returncode == 0, result.stdout + result.stderr
        assert np.count_nonzero(ref) == ref.size  # tanh of a dense linear: no zeros


def test_a_second_method(masked_so, python, cpp_host, tmp_path):
    model_py, so = masked_so
    x = np.random.default_rng(3).standard_normal((2, 8)).astype(np.float32)
    result, ref = run_both(python, cpp_host, model_py, so, tmp_path, "encode", [x],
                           cli_method="encode")
    assert result.returncode == 0, result.stdout + result.stderr
    assert ref.shape == (2, 6)
    assert "encode: method encode, 1 inputs, 1 outputs" in result.stdout


def test_pt2c_run_names_the_method(masked_so, pt2c, tmp_path):
    model_py, so = masked_so
    x = np.random.default_rng(4).standard_normal((2, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    result = run([pt2c, "run", so, "--method", "encode", "--input", tmp_path / "x.npy",
                  "--output-dir", tmp_path / "out"], env=env_without_python())
    assert result.returncode == 0, result.stderr
    assert np.load(tmp_path / "out" / "0.npy").shape == (2, 6)


def test_no_matching_graph_lists_the_signatures(masked_so, cpp_host, tmp_path):
    _, so = masked_so
    x64 = np.zeros((2, 8))
    result = run([cpp_host, so] + sum((["--input", p] for p in save_inputs(tmp_path, [x64, None])),
                                      []), env=env_without_python())
    assert result.returncode == 1
    assert ("no graph of method 'forward' takes the inputs (0: f64[2, 8], 1: none); its "
            "signatures: with_mask(x: f32[2, 8], mask: bool[2, 4]), "
            "no_mask(x: f32[2, 8], mask: none)") in result.stderr
    unknown = run([cpp_host, so, "--method", "decode", "--input", save_inputs(tmp_path, [x64])[0]],
                  env=env_without_python())
    assert unknown.returncode == 1
    assert "no method or graph named 'decode'" in unknown.stderr


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_dtype_selects_the_graph(dtypes_so, python, cpp_host, tmp_path, dtype):
    model_py, so = dtypes_so
    rng = np.random.default_rng(5)
    x = (rng.integers(-50, 50, (3, 5)) if dtype == "int64"
         else rng.standard_normal((3, 5))).astype(dtype)
    result, ref = run_both(python, cpp_host, model_py, so, tmp_path, "forward", [x])
    assert result.returncode == 0, result.stdout + result.stderr
    assert ref.dtype == np.dtype(dtype)
    out = np.load(tmp_path / "out" / "0.npy")
    assert out.dtype == np.dtype(dtype)
    if dtype == "int64":
        assert np.array_equal(out, ref)


def test_driver_errors_leave_no_library(pt2c, tmp_path):
    """Through `pt2c model.py -o model.so`: the exporter's message, exit 1, no .so."""
    cases = [
        ('signatures = {"three": (torch.ones(2), None, torch.ones(2))}',
         "signature 'three' gives 3 inputs, which M.forward(x, mask=None) does not accept"),
        ('signatures = {"size": {"method": "size_of", "inputs": (torch.ones(2),)}}',
         "signature 'size': output contains no tensor (size_of() returned int 2)"),
    ]
    for declaration, message in cases:
        model_py = write_model(tmp_path, """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, mask=None):
                    return x
                def size_of(self, x):
                    return x.shape[0]
            model = M()
            %s
        """ % declaration)
        so = tmp_path / "model.so"
        result = run([pt2c, model_py, "-o", so])
        assert result.returncode == 1
        assert message in result.stderr
        assert not so.exists()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["model.py"]


# A real optional input: nn.TransformerEncoder's key padding mask.
ENCODER = """
    import torch
    from torch import nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64,
                                               dropout=0.1, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

        def forward(self, x, padding_mask=None):
            return self.encoder(x, src_key_padding_mask=padding_mask)

    model = Encoder()
    mask = torch.zeros(2, 6, dtype=torch.bool)
    mask[1, 4:] = True
    signatures = {"padded": (torch.randn(2, 6, 32), mask), "dense": (torch.randn(2, 6, 32), None)}
"""


def test_transformer_encoder_with_and_without_padding_mask(pt2c, python, cpp_host, tmp_path):
    model_py = write_model(tmp_path, ENCODER)
    so = compile_model(pt2c, model_py, tmp_path)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 6, 32)).astype(np.float32)
    mask = np.zeros((2, 6), dtype=bool)
    mask[1, 3:] = True  # another padding than at export: the mask is data
    (tmp_path / "m").mkdir()
    (tmp_path / "d").mkdir()
    masked, masked_ref = run_both(python, cpp_host, model_py, so, tmp_path / "m", "forward",
                                  [x, mask])
    assert masked.returncode == 0, masked.stdout + masked.stderr
    dense, dense_ref = run_both(python, cpp_host, model_py, so, tmp_path / "d", "forward",
                                [x, None])
    assert dense.returncode == 0, dense.stdout + dense.stderr
    assert np.abs(masked_ref - dense_ref).max() > 1e-3  # the two graphs compute different things


def test_example_inputs_with_none_is_one_graph_with_an_absent_input(pt2c, python, cpp_host,
                                                                     tmp_path):
    model_py = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x, bias=None, scale=None):
                return x * 2 if bias is None else x * scale + bias

        model = M()
        example_inputs = (torch.randn(4), None, None)
    """)
    so = compile_model(pt2c, model_py, tmp_path)
    x = np.random.default_rng(7).standard_normal(4).astype(np.float32)
    result, ref = run_both(python, cpp_host, model_py, so, tmp_path, "forward", [x, None, None])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 bias: none (absent)" in result.stdout
    given = run([cpp_host, so, "--input", tmp_path / "in0.npy", "--input", tmp_path / "in0.npy"],
                env=env_without_python())
    assert given.returncode == 1
    assert "input 1 ('bias') of graph 'forward' was traced as None; pass it absent" in given.stderr


MULTIGRAPH = REPO / "tests" / "gpu" / "multigraph"


def test_state_one_graph_writes_is_what_the_others_read(pt2c, python, tmp_path):
    """tests/gpu/multigraph on the CPU: forward graphs add to a running sum (model state)
    that the `total` graph only reads; the steps run in order on one model, again after
    pt2c_model_reset_state, and on a fresh context, each output against eager's."""
    sys.path.insert(0, str(MULTIGRAPH))
    from steps import run_steps
    so = compile_model(pt2c, MULTIGRAPH / "model.py", tmp_path)
    result = run([python, MULTIGRAPH / "make_steps.py", MULTIGRAPH / "model.py", tmp_path])
    assert result.returncode == 0, result.stderr
    steps = json.loads((tmp_path / "steps.json").read_text())["steps"]
    assert [s["method"] for s in steps].count("total") == 2
    lib = ctypes.CDLL(str(so))
    lib.pt2c_last_error.restype = ctypes.c_char_p
    failures = []
    check = lambda name, ok, detail="": ok or failures.append(name + " " + detail)
    model = ctypes.c_void_p()
    assert lib.pt2c_model_create(ctypes.byref(model)) == 0
    run_steps(lib, tmp_path, steps, model, lib.pt2c_model_run_method, check, tolerance=1e-4)
    assert lib.pt2c_model_reset_state(model) == 0
    run_steps(lib, tmp_path, steps, model, lib.pt2c_model_run_method, check, tolerance=1e-4)
    context = ctypes.c_void_p()
    assert lib.pt2c_context_create(model, ctypes.byref(context)) == 0
    run_steps(lib, tmp_path, steps, context, lib.pt2c_context_run_method, check, tolerance=1e-4)
    lib.pt2c_context_destroy(context)
    lib.pt2c_model_destroy(model)
    assert failures == []
