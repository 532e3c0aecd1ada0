#!/usr/bin/env python3
"""Compiles and runs the model zoo with pt2c and writes docs/ZOO.md: per model, the
number of aten ops in its exported graph, export and compile times, the .so size and
the largest error against PyTorch eager.

    ~/.cache/pt2c/venv/bin/python tools/zoo_report.py [--models mlp,bert] [--output docs/ZOO.md]

The zoo is what the e2e tests compile: examples/*/model.py, the transformers models of
tests/e2e/test_transformers.py (plus t5-small at full size, which the tests shorten to
2 + 2 layers) and the torchvision models of tests/e2e/test_cnn_zoo.py; the model
sources are imported from those test files, not copied. Each model is exported
(`pt2c export`) and compiled (`pt2c compile`) separately, each timed in wall-clock
seconds; tools/eager_reference.py writes fresh random inputs (floating inputs drawn
anew, integer inputs such as token ids copied from the example inputs) and eager's
outputs; examples/cpp_host runs the .so on them in a process without Python. The error
is max|diff| / max|ref| over all outputs. A model that fails gets its first error line
in the table instead of numbers. Needs `bazel build //tools/pt2c //examples/cpp_host`.
"""
import argparse
import datetime
import pathlib
import platform
import re
import subprocess
import sys
import tempfile
import textwrap
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
PT2C = REPO / "bazel-bin" / "tools" / "pt2c" / "pt2c"
CPP_HOST = REPO / "bazel-bin" / "examples" / "cpp_host" / "cpp_host"
EAGER_REFERENCE = REPO / "tools" / "eager_reference.py"
TOLERANCE = 1e-4
ERROR_CHARS = 160  # of a failure's first error line kept for the table


def zoo():
    """name -> model.py source (text) or path, in table order."""
    sys.path.insert(0, str(REPO / "tests" / "e2e"))
    import test_cnn_zoo
    import test_transformers as tt

    models = {}
    for path in sorted((REPO / "examples").glob("*/model.py")):
        models[path.parent.name] = path
    # examples/ holds bert and gpt2 (transformers, small configs) among the others.
    models["llama"] = tt.LLAMA % ""
    models["llama_padding_mask"] = tt.LLAMA % tt.LLAMA_PADDING_MASK
    models["t5_small_2+2_layers"] = tt.t5_source(2)
    models["t5_small"] = tt.t5_source(6)
    for name in test_cnn_zoo.MODELS:
        models[name] = test_cnn_zoo.torchvision_model_source(name)
    return models


def run(cmd, timeout=None, **kwargs):
    """Runs a command with text output; one that outlives `timeout` seconds is killed and
    reported as a failure (returncode None, the timeout in stderr)."""
    try:
        return subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                              timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, None, "", f"error: timed out after {timeout} s")


def first_error(result):
    lines = [l for l in (result.stderr + result.stdout).splitlines() if "error" in l]
    line = (lines or (result.stderr + result.stdout).strip().splitlines() or ["failed"])[0]
    # A location in an installed package (transformers, timm) is named from the package.
    line = re.sub(r"/\S*/(site|dist)-packages/", "", line)
    return line.replace("|", "\\|")[:ERROR_CHARS]


def eager_reference(model_py, out_dir, timeout=None):
    """Fresh inputs and eager's outputs for them, by tools/eager_reference.py."""
    return run([sys.executable, EAGER_REFERENCE, model_py, out_dir, "--seed", "7"], timeout)


def measure(name, source, work, pt2c, cpp_host, timeout=None, reference=None, compare=None):
    """One row: a dict of the measured numbers, or {"error": ...} (`timeout`: seconds
    each step may take; `reference`: a function like eager_reference; `compare`: a
    function(outputs, references, tolerance) -> error over the outputs' arrays, instead
    of the host's output-by-output max|diff| / max|ref|)."""
    work.mkdir(parents=True)
    if isinstance(source, pathlib.Path):
        model_py = source
    else:
        model_py = work / "model.py"
        model_py.write_text(textwrap.dedent(source))
    row = {}
    start = time.monotonic()
    exported = run([pt2c, "export", model_py, "-o", work / "model.pt2c", "-q"], timeout)
    row["export_s"] = time.monotonic() - start
    if exported.returncode != 0:
        return {"error": "export: " + first_error(exported)}
    start = time.monotonic()
    compiled = run([pt2c, "compile", work / "model.pt2c", "-o", work / "model.so"], timeout)
    row["compile_s"] = time.monotonic() - start
    ops = re.search(r"import\s+(\d+) aten ops", compiled.stderr)
    row["aten_ops"] = int(ops.group(1)) if ops else None
    if compiled.returncode != 0:
        return {"error": "compile: " + first_error(compiled), "aten_ops": row["aten_ops"]}
    row["so_bytes"] = (work / "model.so").stat().st_size
    made = (reference or eager_reference)(model_py, work / "data", timeout)
    if made.returncode != 0:
        return {"error": "eager reference: " + first_error(made), **row}
    data = work / "data"
    cmd = [cpp_host, work / "model.so", "--output-dir", work / "out",
           "--tolerance", str(TOLERANCE)]
    for p in sorted(data.glob("input*.npy"), key=lambda p: int(p.stem[5:])):
        cmd += ["--input", p]
    refs = sorted(data.glob("ref*.npy"), key=lambda p: int(p.stem[3:]))
    if compare is None:
        for p in refs:
            cmd += ["--reference", p]
    ran = run(cmd, timeout, env={"PATH": "/nonexistent"})
    if compare is not None:
        if ran.returncode != 0:
            return {"error": "run: " + first_error(ran), **row}
        import numpy as np
        written = sorted((work / "out").glob("*.npy"), key=lambda p: int(p.stem.split("_")[0]))
        outputs = [np.load(p) for p in written]
        row["max_rel_error"] = compare(outputs, [np.load(p) for p in refs], TOLERANCE)
        row["passed"] = row["max_rel_error"] <= TOLERANCE
        return row
    errors = [float(x) for x in re.findall(r"rel = ([0-9.eE+-]+|nan|inf)", ran.stdout)]
    if not errors:
        return {"error": "run: " + first_error(ran), **row}
    row["max_rel_error"] = max(errors)
    row["passed"] = ran.returncode == 0
    return row


def size(nbytes):
    return f"{nbytes / 2**20:.1f} MiB" if nbytes >= 2**20 else f"{nbytes / 2**10:.0f} KiB"


def table(rows, names):
    lines = ["| model | aten ops | export (s) | compile (s) | .so size | max rel error vs eager |",
             "|-------|---------:|-----------:|------------:|---------:|------------------------|"]
    for name in names:
        if name not in rows:
            lines.append(f"| {name} | | | | | not measured: the run was stopped before it |")
            continue
        row = rows[name]
        ops = row.get("aten_ops") or ""
        if "error" in row:
            lines.append(f"| {name} | {ops} | | | | fails: {row['error']} |")
            continue
        verdict = "" if row["passed"] else f" (above {TOLERANCE:g})"
        lines.append(f"| {name} | {ops} | {row['export_s']:.1f} | {row['compile_s']:.1f} | "
                     f"{size(row['so_bytes'])} | {row['max_rel_error']:.2e}{verdict} |")
    return "\n".join(lines)


def document(rows, names, machine):
    return f"""# Model zoo report

Generated by `tools/zoo_report.py` (see its docstring; rerun it after changes that
affect the zoo and check in the result). Each model is compiled for the CPU target
(x86-64-v2) and run from `examples/cpp_host` on inputs from
`tools/eager_reference.py` (fresh random floating inputs; integer inputs such as token
ids are the example inputs; the e2e tests also draw fresh token ids). *aten ops*: ops
in the imported graph; *export*: `pt2c export` (tracing, including loading torch and
building the model); *compile*: `pt2c compile` (import to .so); times are wall-clock
seconds on a shared machine, so they vary from run to run.

Machine: {machine}. Date: {datetime.date.today().isoformat()}.

{table(rows, names)}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated names (default: all); "
                        "--list prints them")
    parser.add_argument("--list", action="store_true", help="print the model names and exit")
    parser.add_argument("--output", help="the Markdown file to write (default: stdout)")
    parser.add_argument("--pt2c", default=str(PT2C), help="the pt2c binary (default: "
                        "bazel-bin's; a copy with its .runfiles keeps a long run safe from "
                        "rebuilds)")
    parser.add_argument("--cpp-host", default=str(CPP_HOST), help="the cpp_host binary")
    parser.add_argument("--machine", default=f"{platform.machine()} Linux, "
                        f"{len(__import__('os').sched_getaffinity(0))} cores",
                        help="how the doc names the machine the numbers come from")
    args = parser.parse_args()
    models = zoo()
    if args.list:
        print("\n".join(models))
        return 0
    names = args.models.split(",") if args.models else list(models)
    unknown = [n for n in names if n not in models]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; --list prints the zoo")
    pt2c, cpp_host = pathlib.Path(args.pt2c), pathlib.Path(args.cpp_host)
    for tool in (pt2c, cpp_host):
        if not tool.exists():
            parser.error(f"{tool} is not built: bazel build //tools/pt2c //examples/cpp_host")
    rows = {}
    with tempfile.TemporaryDirectory(prefix="pt2c-zoo-") as tmp:
        for name in names:
            rows[name] = measure(name, models[name], pathlib.Path(tmp) / name, pt2c, cpp_host)
            print(f"{name}: {rows[name]}", file=sys.stderr, flush=True)
            if args.output:  # after every model: a long run stopped early still says something
                write(args.output, document(rows, names, args.machine))
    if not args.output:
        sys.stdout.write(document(rows, names, args.machine))
    return 0


# tools/sweep_report.py writes this section at the end of docs/ZOO.md; a zoo report
# written over the file keeps it.
SWEEPS_HEADING = "## Sweeps"


def write(path, text):
    old = pathlib.Path(path).read_text() if pathlib.Path(path).exists() else ""
    at = old.find("\n" + SWEEPS_HEADING + "\n")
    if at >= 0 and "\n" + SWEEPS_HEADING + "\n" not in text:
        text = text.rstrip("\n") + "\n" + old[at:]
    partial = pathlib.Path(path).with_suffix(".partial")
    partial.write_text(text)
    partial.replace(path)  # never a half-written doc


if __name__ == "__main__":
    sys.exit(main())
