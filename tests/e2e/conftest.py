"""Shared fixtures for the end-to-end tests: the built tools and a helper that loads a
model.py the way the exporter does, to compute PyTorch eager references."""
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = REPO / "bazel-bin"

sys.path.insert(0, str(REPO / "tools"))
from eager_reference import load as load_model_file  # noqa: E402,F401  (model.py contract)


def _tool(rel):
    path = BIN / rel
    if not path.exists():
        pytest.fail(f"{path} is not built; run `bazel build //...` first")
    return str(path)


@pytest.fixture(scope="session")
def pt2c():
    real = _tool("tools/pt2c/pt2c")
    if os.environ.get("PT2C_RECORD_OPS"):  # tools/docs/gen_op_coverage.py --record
        return str(REPO / "tools" / "docs" / "record_ops.py")
    return real


@pytest.fixture(scope="session")
def python():
    """The interpreter running the tests (it has torch): makes eager references."""
    return sys.executable


@pytest.fixture(scope="session")
def cpp_host():
    return _tool("examples/cpp_host/cpp_host")


def run(cmd, **kwargs):
    """Runs a command, returning CompletedProcess with text output (never raises)."""
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)


def env_without_python():
    """An environment in which no Python can be found or imported."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PATH"] = "/nonexistent"
    return env
