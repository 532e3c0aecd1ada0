"""Compile a model.py with pt2c and compare the .so, run from the C++ host with no
Python in its process, against PyTorch eager on fresh random inputs."""
import datetime
import json
import os
import pathlib
import random
import textwrap

import numpy as np
import pytest

from conftest import REPO, env_without_python, run

EAGER_REFERENCE = REPO / "tools" / "eager_reference.py"


# Fresh batch-norm layers are almost the identity (mean 0, var 1, weight 1, bias 0), which
# would hide errors in normalization and in folding it into convolutions: model.py
# sources made by with_random_batch_norm() call random_batch_norm(net) on their module.
RANDOM_BATCH_NORM = """

def random_batch_norm(net):
    g = torch.Generator().manual_seed(1)
    for m in net.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            n = m.num_features
            m.running_mean.copy_(torch.rand(n, generator=g) - 0.5)
            m.running_var.copy_(torch.rand(n, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=g) + 0.5)
            m.bias.data.copy_(torch.rand(n, generator=g) - 0.5)
    return net
"""


def with_random_batch_norm(source):
    """model.py `source` (indented or not, importing torch) plus random_batch_norm()."""
    return textwrap.dedent(source) + RANDOM_BATCH_NORM


def write_model(tmp_path, source, name="model.py"):
    path = pathlib.Path(tmp_path) / name
    path.write_text(textwrap.dedent(source))
    return path


def compile_model(pt2c, model_py, out_dir):
    so = pathlib.Path(out_dir) / (pathlib.Path(model_py).stem + ".so")
    result = run([pt2c, model_py, "-o", so])
    assert result.returncode == 0, result.stderr
    return so


def eager_data(python, model_py, data_dir, seed=7, shapes=None):
    """Fresh inputs and PyTorch eager's outputs for them (tools/eager_reference.py;
    `shapes`: other input sizes, for dynamic dimensions); returns their .npy paths."""
    cmd = [python, EAGER_REFERENCE, model_py, data_dir, "--seed", str(seed)]
    if shapes is not None:
        cmd += ["--shapes", json.dumps(shapes)]
    made = run(cmd)
    assert made.returncode == 0, made.stderr
    data = pathlib.Path(data_dir)
    inputs = sorted(data.glob("input*.npy"), key=lambda p: int(p.stem[5:]))
    refs = sorted(data.glob("ref*.npy"), key=lambda p: int(p.stem[3:]))
    return inputs, refs


def run_against_references(cpp_host, so, inputs, refs, out_dir, tolerance):
    """Runs the .so from the C++ host (no Python in its process) on `inputs`; every output
    must be within max|diff| / max|ref| <= tolerance of its reference."""
    cmd = [cpp_host, so, "--output-dir", out_dir, "--tolerance", str(tolerance)]
    for p in inputs:
        cmd += ["--input", p]
    for p in refs:
        cmd += ["--reference", p]
    result = run(cmd, env=env_without_python())
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def check_against_eager(pt2c, cpp_host, python, model_py, work_dir, tolerance=1e-4, seed=7):
    """Compiles model_py, then checks every output: max|diff| / max|ref| <= tolerance."""
    work = pathlib.Path(work_dir)
    so = compile_model(pt2c, model_py, work)
    inputs, refs = eager_data(python, model_py, work / f"data{seed}", seed)
    run_against_references(cpp_host, so, inputs, refs, work / f"out{seed}", tolerance)
    return so, [np.load(p) for p in refs]


def check_at_seeds(pt2c, cpp_host, python, model_py, work_dir, seeds=(7, 8), tolerance=1e-5):
    """Compiles once and compares with eager at each seed (data-dependent sizes: the
    seeds select other counts); returns the references."""
    work = pathlib.Path(work_dir)
    so = compile_model(pt2c, model_py, work)
    found = []
    for seed in seeds:
        inputs, refs = eager_data(python, model_py, work / f"data{seed}", seed)
        run_against_references(cpp_host, so, inputs, refs, work / f"out{seed}", tolerance)
        found.append([np.load(p) for p in refs])
    return found


# How many architectures of a sweep (test_timm.py, test_transformers_sweep.py) a CI run
# adds to the fixed sample.
CI_SWEEP_COUNT = 5


SWEEP_RESULTS = REPO / "docs" / "zoo_sweeps.json"  # tools/sweep_report.py writes it


# A recorded architecture that took longer than this (export, compile and check, on the
# 2-core machine) is never drawn for CI: one such draw would take a tenth of CI's time.
# PT2C_SWEEP=all and tools/sweep_report.py still run it.
CI_SLOW_SECONDS = 240


def recorded_rows(sweep):
    """name -> what docs/zoo_sweeps.json records for it in `sweep`."""
    try:
        return json.loads(SWEEP_RESULTS.read_text()).get(sweep, {})
    except FileNotFoundError:
        return {}


def recorded_failures(sweep):
    """name -> the failure recorded for it in docs/zoo_sweeps.json's `sweep`."""
    rows = recorded_rows(sweep)
    def why(row):
        if "error" in row:
            return row["error"]
        text = f"max rel error {row['max_rel_error']:.2e}"
        if "eager_f32_error" in row:  # tools/sweep_report.py: eager's own rounding error
            text += f" (eager float32 is {row['eager_f32_error']:.2e} from float64)"
        return text
    return {name: why(row) for name, row in rows.items()
            if "error" in row or not row.get("passed")}


def sweep_params(sweep, names, sample, ci_count=CI_SWEEP_COUNT):
    """pytest parameters for the architectures of `sweep` this run compiles
    (sweep_selection). Those recorded as failing in docs/zoo_sweeps.json are expected to
    fail (xfail, not strict: one that passes is reported as XPASS; rerun
    tools/sweep_report.py to record it), and CI's daily draw takes none of them: it is
    there to catch regressions. Nor does it take those recorded as slower than
    CI_SLOW_SECONDS."""
    failing = recorded_failures(sweep)
    slow = {name for name, row in recorded_rows(sweep).items()
            if row.get("seconds", 0) > CI_SLOW_SECONDS}
    params = []
    for name in sweep_selection(names, sample, ci_count, exclude=set(failing) | slow):
        if name in failing:
            mark = pytest.mark.xfail(reason=f"docs/zoo_sweeps.json: {failing[name]}",
                                     strict=False)
            params.append(pytest.param(name, marks=mark))
        else:
            params.append(name)
    return params


def sweep_selection(names, sample, ci_count=CI_SWEEP_COUNT, exclude=()):
    """The architectures of a sweep that this run compiles, out of `names` (in order):

    - by default the fixed `sample`;
    - PT2C_FULL_SWEEP=1 (CI): the sample plus `ci_count` others (none of `exclude`)
      drawn at random with the date as the seed (PT2C_SWEEP_SEED overrides it), so that
      each day covers others while CI's time stays bounded; the test ids name them;
    - PT2C_SWEEP=all: every one (for docs/ZOO.md; tools/sweep_report.py records them);
      PT2C_SWEEP=a,b,...: those named.
    """
    names = list(names)
    chosen = os.environ.get("PT2C_SWEEP", "")
    if chosen == "all":
        return names
    if chosen:
        wanted = chosen.split(",")
        unknown = [n for n in wanted if n not in names]
        if unknown:
            raise ValueError(f"PT2C_SWEEP names {', '.join(unknown)}, not in the sweep")
        return wanted
    selected = list(sample)
    if os.environ.get("PT2C_FULL_SWEEP") == "1":
        seed = os.environ.get("PT2C_SWEEP_SEED") or datetime.date.today().isoformat()
        others = [n for n in names if n not in selected and n not in exclude]
        drawn = random.Random(seed).sample(others, min(ci_count, len(others)))
        selected += [n for n in names if n in drawn]
    return selected
