"""Bad input to the pt2c command: a clear message, a non-zero exit, no output file."""
import textwrap

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
    artifact.write_bytes(b"PT2CART\x01" + b"\xff" * 64)
    out = tmp_path / "m.so"
    result = run([pt2c, "compile", artifact, "-o", out])
    assert_fails_cleanly(result, out, "bad.pt2c", "not a valid .pt2c artifact")


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
