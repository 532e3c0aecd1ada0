"""Compiling a model as a step of a user's build, both ways the project offers, on the
consumer example (examples/consumer): the Bazel rule pt2c_model (tools/bazel/pt2c.bzl)
and find_package(pt2c) + pt2c_add_model() against an install (tools/install.sh,
tools/cmake). Each builds a program linked against the model and one that opens it with
dlopen; every program's output matches PyTorch eager."""
import importlib.util
import re
import subprocess

import numpy as np
import pytest
import torch

from conftest import REPO, run

PACKAGE = REPO / "examples" / "consumer"
BAZEL_BIN = REPO / "bazel-bin" / "examples" / "consumer"


@pytest.fixture(scope="module")
def expected():
    spec = importlib.util.spec_from_file_location("consumer_model", PACKAGE / "model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with torch.no_grad():
        return module.model()(module.consumer_input()).numpy().ravel()


def check_output(result, expected):
    assert result.returncode == 0, result.stderr
    match = re.search(r"^output 0:(.*)$", result.stdout, re.M)
    assert match, result.stdout
    got = np.array([float(v) for v in match.group(1).split()], dtype=np.float32)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def assert_links(program, library_name):
    """What the linked program needs is the model library itself, by its name."""
    needed = run(["readelf", "-d", program])
    assert f"[{library_name}]" in needed.stdout, needed.stdout


def test_bazel_rule_builds_the_model_for_a_linked_and_a_dlopen_program(expected):
    build = run(["bazel", "build", "//examples/consumer:all"], cwd=REPO)
    assert build.returncode == 0, build.stderr[-4000:]
    assert (BAZEL_BIN / "libclassifier.so").is_file()
    check_output(run([BAZEL_BIN / "linked"]), expected)
    assert_links(BAZEL_BIN / "linked", "libclassifier.so")
    # as `bazel run` starts it: in its runfiles, with args = $(rootpath ...)
    check_output(run([BAZEL_BIN / "dlopen", "examples/consumer/libclassifier.so"],
                     cwd=BAZEL_BIN / "dlopen.runfiles" / "pt2c"), expected)


def test_cmake_package_builds_the_model_for_a_linked_and_a_dlopen_program(tmp_path, expected):
    prefix, build = tmp_path / "prefix", tmp_path / "build"
    installed = run([REPO / "tools" / "install.sh", prefix])
    assert installed.returncode == 0, installed.stderr
    assert (prefix / "bin" / "pt2c").is_file()
    assert (prefix / "lib" / "cmake" / "pt2c" / "pt2cConfig.cmake").is_file()
    configure = run(["cmake", "-S", PACKAGE, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}"])
    assert configure.returncode == 0, configure.stdout + configure.stderr
    made = run(["cmake", "--build", build])
    assert made.returncode == 0, made.stdout + made.stderr
    library = build / "libclassifier.so"
    assert library.is_file()
    check_output(run([build / "linked"]), expected)
    assert_links(build / "linked", "libclassifier.so")
    check_output(run([build / "dlopen", library]), expected)
    # the model is rebuilt when model.py changes, not otherwise
    again = run(["cmake", "--build", build])
    assert again.returncode == 0 and "pt2c: compiling" not in again.stdout, again.stdout


def test_cmake_package_refuses_an_abi_version_it_is_not(tmp_path):
    prefix = tmp_path / "prefix"
    assert run([REPO / "tools" / "install.sh", prefix]).returncode == 0
    project = tmp_path / "project"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.19)\nproject(p CXX)\nfind_package(pt2c 999 REQUIRED)\n")
    configure = run(["cmake", "-S", project, "-B", tmp_path / "build",
                     f"-DCMAKE_PREFIX_PATH={prefix}"])
    assert configure.returncode != 0
    assert "999" in configure.stderr
