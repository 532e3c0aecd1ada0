"""Bad input to the pt2c command: a clear message, a non-zero exit, no output file."""
import textwrap

import pytest

from conftest import REPO, run


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def assert_fails_cleanly(result, out, *needles):
    assert result.returncode != 0
    for needle in needles:
        assert needle in result.stderr, result.stderr
    assert not out.exists()
    assert not list(out.parent.glob(out.name + ".tmp*"))


def test_missing_model_file(pt2c, tmp_path):
    out = tmp_path / "m.so"
    result = run([pt2c, tmp_path / "nope.py", "-o", out])
    assert_fails_cleanly(result, out, "nope.py", "does not exist")


def test_model_file_that_raises_shows_traceback(pt2c, tmp_path):
    model = write(tmp_path, "model.py", """
        import torch
        def helper():
            raise ValueError("boom in user code")
        helper()
    """)
    out = tmp_path / "m.so"
    result = run([pt2c, model, "-o", out])
    assert_fails_cleanly(result, out, "boom in user code", "model.py", "line 4")


def test_model_file_without_model(pt2c, tmp_path):
    model = write(tmp_path, "model.py", """
        import torch
        example_inputs = (torch.randn(2, 2),)
    """)
    out = tmp_path / "m.so"
    result = run([pt2c, model, "-o", out])
    assert_fails_cleanly(result, out, "model")


def test_corrupt_artifact(pt2c, tmp_path):
    artifact = tmp_path / "bad.pt2c"
    artifact.write_bytes(b"PT2CART\x02" + b"\xff" * 64)
    out = tmp_path / "m.so"
    result = run([pt2c, "compile", artifact, "-o", out])
    assert_fails_cleanly(result, out, "bad.pt2c", "not a valid .pt2c artifact")


def test_artifact_of_an_older_format_asks_for_a_new_export(pt2c, tmp_path):
    artifact = tmp_path / "old.pt2c"
    artifact.write_bytes(b"PT2CART\x01" + b"\0" * 64)
    out = tmp_path / "m.so"
    result = run([pt2c, "compile", artifact, "-o", out])
    assert_fails_cleanly(result, out, "old.pt2c", "format version 1",
                         "export the model again")


@pytest.fixture(scope="module")
def mlp_artifact(pt2c, tmp_path_factory):
    artifact = tmp_path_factory.mktemp("artifact") / "mlp.pt2c"
    result = run([pt2c, "export", REPO / "examples" / "mlp" / "model.py", "-o", artifact])
    assert result.returncode == 0, result.stderr
    return artifact.read_bytes()


@pytest.mark.parametrize("where", ["message", "weights"])
def test_damaged_artifact_is_refused_not_compiled(pt2c, tmp_path, mlp_artifact, where):
    # One flipped bit, in the graph or in a weight: the CRC-32 catches it before anything
    # is compiled from it (a weight flip would otherwise compile into wrong answers).
    data = bytearray(mlp_artifact)
    length = int.from_bytes(data[8:16], "little")
    blob_start = (24 + length + 63) // 64 * 64
    at = 24 + length // 2 if where == "message" else blob_start + (len(data) - blob_start) // 2
    data[at] ^= 0x10
    artifact = tmp_path / "damaged.pt2c"
    artifact.write_bytes(bytes(data))
    out = tmp_path / "m.so"
    result = run([pt2c, "compile", artifact, "-o", out])
    assert_fails_cleanly(result, out, "damaged.pt2c", "CRC-32", "damaged after export")


def test_damaged_plan_in_model_so_is_refused_at_create(pt2c, tmp_path, mlp_artifact):
    # A flipped bit in the embedded plan: the checksum the compiler recorded catches it
    # before the plan is parsed, whichever field the bit falls in.
    from cuda_artifacts import embedded_symbol
    artifact = tmp_path / "mlp.pt2c"
    artifact.write_bytes(mlp_artifact)
    so = tmp_path / "m.so"
    assert run([pt2c, "compile", artifact, "-o", so]).returncode == 0
    bench = [pt2c, "bench", so, "--runs", "1", "--warmup", "0"]  # synthetic inputs
    assert run(bench).returncode == 0
    plan, _ = embedded_symbol(so, "__pt2c_plan")
    data = bytearray(so.read_bytes())
    at = data.find(plan)
    assert at >= 0 and data.find(plan, at + 1) < 0
    data[at + len(plan) // 2] ^= 0x01
    so.write_bytes(bytes(data))
    result = run(bench)
    assert result.returncode != 0
    assert "checksum" in result.stderr and "damaged after it was built" in result.stderr, \
        result.stderr


def test_not_an_artifact(pt2c, tmp_path):
    artifact = tmp_path / "model.pt2c"
    artifact.write_text("hello")
    out = tmp_path / "m.so"
    result = run([pt2c, "compile", artifact, "-o", out])
    assert_fails_cleanly(result, out, "bad magic")


def test_unknown_operator_is_named_with_its_line(pt2c, tmp_path):
    model = write(tmp_path, "model.py", """
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                y = x + 1
                return torch.cumprod(y, dim=0)

        model = M()
        example_inputs = (torch.randn(4, 4),)
    """)
    out = tmp_path / "m.so"
    result = run([pt2c, model, "-o", out])
    assert_fails_cleanly(result, out, "aten::cumprod", "model.py:7", "torch.cumprod(y, dim=0)")


def test_no_python_with_torch(pt2c, tmp_path):
    model = write(tmp_path, "model.py", "model = None\n")
    out = tmp_path / "m.so"
    result = run([pt2c, model, "-o", out, "--python", "/nonexistent/python3"])
    assert_fails_cleanly(result, out, "/nonexistent/python3", "does not exist")


def test_output_directory_that_does_not_exist(pt2c, tmp_path):
    artifact = tmp_path / "mlp.pt2c"
    assert run([pt2c, "export", REPO / "examples" / "mlp" / "model.py", "-o", artifact]).returncode == 0
    out = tmp_path / "no" / "dir" / "m.so"
    result = run([pt2c, "compile", artifact, "-o", out])
    assert result.returncode != 0
    assert "does not exist" in result.stderr, result.stderr
