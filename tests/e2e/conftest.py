"""Shared fixtures for the end-to-end tests: the built tools and a helper that loads a
model.py the way the exporter does, to compute PyTorch eager references."""
import importlib.util
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = REPO / "bazel-bin"


def _tool(rel):
    path = BIN / rel
    if not path.exists():
        pytest.fail(f"{path} is not built; run `bazel build //...` first")
    return str(path)


@pytest.fixture(scope="session")
def pt2c():
    return _tool("tools/pt2c/pt2c")


@pytest.fixture(scope="session")
def cpp_host():
    return _tool("examples/cpp_host/cpp_host")


def load_model_file(path):
    """Returns (model, example_inputs) per the model.py contract (README.md)."""
    spec = importlib.util.spec_from_file_location("user_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.model() if not hasattr(module.model, "forward") else module.model
    inputs = module.example_inputs
    inputs = inputs() if callable(inputs) else inputs
    return model.eval(), tuple(inputs)


def run(cmd, **kwargs):
    """Runs a command, returning CompletedProcess with text output (never raises)."""
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)


def env_without_python():
    """An environment in which no Python can be found or imported."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PATH"] = "/nonexistent"
    return env
