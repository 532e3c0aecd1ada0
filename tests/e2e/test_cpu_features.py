"""A model.so compiled for a CPU newer than the one that loads it: pt2c_model_create
refuses it with a message naming the missing x86 features, instead of a SIGILL mid-run."""
import pathlib

import numpy as np
import pytest

from conftest import env_without_python, run
from harness import check_against_eager, write_model

MODEL = """
    import torch
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.tanh(x) * 2.0 + x.sum(dim=1, keepdim=True)
    model = M()
    example_inputs = (torch.randn(4, 33),)
"""

# LLVM CPU -> features of it that some x86-64 machines lack (/proc/cpuinfo spelling,
# LLVM spelling). The test uses the first CPU this machine cannot run.
NEWER_CPUS = [
    ("sapphirerapids", [("avx512_fp16", "avx512fp16")]),
    ("icelake-server", [("avx512_vbmi2", "avx512vbmi2"), ("gfni", "gfni")]),
    ("skylake-avx512", [("avx512f", "avx512f"), ("avx512bw", "avx512bw")]),
    ("haswell", [("avx2", "avx2"), ("fma", "fma")]),
]


def host_flags():
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def newer_cpu():
    flags = host_flags()
    for cpu, features in NEWER_CPUS:
        missing = [llvm for proc, llvm in features if proc not in flags]
        if missing:
            return cpu, missing
    pytest.skip("this machine has every feature of the CPUs in NEWER_CPUS")


def test_model_for_a_newer_cpu_is_refused(pt2c, cpp_host, tmp_path):
    cpu, missing = newer_cpu()
    model_py = write_model(tmp_path, MODEL)
    so = tmp_path / "newer.so"
    built = run([pt2c, model_py, "-o", so, "--cpu", cpu])
    assert built.returncode == 0, built.stderr
    x = tmp_path / "x.npy"
    np.save(x, np.random.default_rng(0).standard_normal((4, 33)).astype(np.float32))

    for cmd, env in [([cpp_host, so, "--input", x], env_without_python()),
                     ([pt2c, "run", so, "--input", x, "--output-dir", tmp_path / "out"], None)]:
        result = run(cmd, env=env)
        # A clean failure, not a signal (a negative return code).
        assert result.returncode > 0, (cmd, result.returncode, result.stderr)
        message = result.stdout + result.stderr
        assert f"(--cpu {cpu})" in message, message
        assert "this CPU lacks" in message, message
        lacks = message.split("this CPU lacks", 1)[1]
        for feature in missing:
            assert feature in lacks, message


def test_default_cpu_build_runs(pt2c, cpp_host, python, tmp_path):
    model_py = write_model(tmp_path, MODEL)
    check_against_eager(pt2c, cpp_host, python, model_py, tmp_path)


def test_native_build_runs(pt2c, cpp_host, python, tmp_path):
    model_py = write_model(tmp_path, MODEL)
    so = tmp_path / "native.so"
    built = run([pt2c, model_py, "-o", so, "--cpu", "native"])
    assert built.returncode == 0, built.stderr
    x = tmp_path / "x.npy"
    np.save(x, np.ones((4, 33), np.float32))
    result = run([cpp_host, so, "--input", x], env=env_without_python())
    assert result.returncode == 0, result.stdout + result.stderr
