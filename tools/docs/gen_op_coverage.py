#!/usr/bin/env python3
"""Generates docs/OP_COVERAGE.md: for every op of the aten dialect, whether it is
decomposed to prim, whether it has been lowered all the way to a .so, whether the
verifier checks its result dtypes, and which tests cover it.

    python3 tools/docs/gen_op_coverage.py            rewrite docs/OP_COVERAGE.md
    python3 tools/docs/gen_op_coverage.py --check    exit 1 if it is stale (a test runs this)
    ~/.cache/pt2c/venv/bin/python tools/docs/gen_op_coverage.py --record [PYTEST ARGS]
                                                     rerun the e2e tests, recording the ops
                                                     of each graph they compile, then rewrite

Sources, none of them parsed out of C++:
- the op list and its sections: ir/aten/aten_ops.txt (the dialect is generated from it);
- decomposed: `pt2c-opt --pt2c-list-decompositions` (the root ops of the patterns that
  pt2c-decompose-aten-to-prim registers). An in-place op `aten.X_` counts as
  functionalized when `aten.X` is decomposed: pt2c-functionalize rewrites it to `aten.X`;
- dtype rule: `pt2c-opt --pt2c-list-dtype-rules` (ir/aten/AtenDtypeRules.cpp);
- e2e tests: tools/docs/e2e_op_usage.json, written by --record: the e2e tests run with
  the `pt2c` fixture pointing at tools/docs/record_ops.py, which asks pt2c for the aten
  ops (`--emit aten`) of every graph a test compiled to a .so. Lowered = some e2e test
  compiled a graph holding the op, so every prim op of its decomposition went through
  pt2c-lower-prim-to-linalg and codegen;
- lit tests: tests/lit/**/*.mlir files that name the op;
- the Core ATen opset section: tools/docs/core_aten_ops.txt (written from torch's
  `torch.Tag.core` overloads by tools/docs/list_core_aten.py) against the above, and
  core_aten_gaps.py for why a Core overload has no op in the dialect.
--check also fails when a Core overload outside the dialect has no stated reason, or a
reason is kept for an overload the dialect now has;
--check also fails when the usage record names an op the dialect no longer has or a
test that no longer exists (rerun --record then).
"""
import argparse
import collections
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[2]
ATEN_OPS = REPO / "ir" / "aten" / "aten_ops.txt"
PT2C_OPT = REPO / "bazel-bin" / "tools" / "pt2c-opt" / "pt2c-opt"
USAGE = REPO / "tools" / "docs" / "e2e_op_usage.json"
LIT = REPO / "tests" / "lit"
E2E = REPO / "tests" / "e2e"
DOC = REPO / "docs" / "OP_COVERAGE.md"
CORE_OPS = REPO / "tools" / "docs" / "core_aten_ops.txt"

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(ATEN_OPS.parent))
import core_aten_gaps  # noqa: E402
from gen_aten_ops import mlir_name  # noqa: E402  (the dialect's op names)


def dialect_ops():
    """[(section, mlir name, schema)] in file order; section = the last comment line."""
    ops, section = [], "Core"
    for line in ATEN_OPS.read_text().splitlines():
        line = line.strip()
        if line.startswith("#"):
            section = line.lstrip("# ").strip()
        elif line:
            name = line.split("(", 1)[0].strip()
            ops.append((section, "aten." + mlir_name(name), line))
    return ops


def decomposed_ops():
    if not PT2C_OPT.exists():
        sys.exit(f"{PT2C_OPT} is not built: bazel build //tools/pt2c-opt")
    out = subprocess.run([str(PT2C_OPT), "--pt2c-list-decompositions"], capture_output=True,
                         text=True, check=True).stdout
    return set(out.split())


def dtype_rule_ops():
    out = subprocess.run([str(PT2C_OPT), "--pt2c-list-dtype-rules"], capture_output=True,
                         text=True, check=True).stdout
    return set(out.split())


def load_usage():
    return json.loads(USAGE.read_text()) if USAGE.exists() else {"tests": {}}


def lit_usage():
    """op name -> lit files naming it (quoted generic form or custom form)."""
    found = collections.defaultdict(set)
    for path in sorted(LIT.rglob("*.mlir")):
        for name in re.findall(r"\b(aten\.[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)?)\b",
                               path.read_text()):
            found[name].add(path.name)
    return found


def test_exists(test_id):
    """Whether `tests/e2e/test_x.py::test_name[param]` still names a test function."""
    path, _, name = test_id.partition("::")
    file = REPO / path
    function = name.split("[")[0]
    return file.exists() and re.search(rf"^def {re.escape(function)}\(", file.read_text(),
                                       re.M) is not None


def validate(usage, names):
    problems = []
    for test, ops in usage["tests"].items():
        if not test_exists(test):
            problems.append(f"{USAGE.name} names {test}, which no longer exists")
        problems += [f"{USAGE.name}: {test} used {op}, which the dialect no longer has"
                     for op in ops if op not in names]
    return problems


def short_test(test_id):
    """tests/e2e/test_cnn_zoo.py::test_x[resnet18] -> test_cnn_zoo::test_x[resnet18]."""
    path, _, name = test_id.partition("::")
    return f"{pathlib.Path(path).stem}::{name}"


def cell(tests, limit=3):
    tests = sorted(tests)
    shown = ", ".join(f"`{t}`" for t in tests[:limit])
    return shown + (f" (+{len(tests) - limit})" if len(tests) > limit else "")


def core_ops():
    """[(mlir name, schema)] of tools/docs/core_aten_ops.txt, and its header line."""
    lines = CORE_OPS.read_text().splitlines()
    entries = []
    for line in lines[1:]:
        name = line.split("(", 1)[0].strip()
        entries.append(("aten." + name[len("aten::"):], line))
    return entries, lines[0].lstrip("# ")


def core_problems(core, names):
    """Core overloads outside the dialect without a reason, and stale reasons."""
    core_names = {name for name, _ in core}
    problems = [f"Core op {name} is not in the dialect and core_aten_gaps.py gives no reason"
                for name in sorted(core_names - names - set(core_aten_gaps.REASONS))]
    problems += [f"core_aten_gaps.py gives a reason for {name}, which the dialect has"
                 for name in sorted(set(core_aten_gaps.REASONS) & names)]
    problems += [f"core_aten_gaps.py names {name}, which is not a Core overload"
                 for name in sorted(set(core_aten_gaps.REASONS) - core_names)]
    return problems


def render_core(core, header, names, decomposed, by_op):
    """The "Core ATen opset" section: each Core overload's status in pt2c."""
    rows, counts = [], collections.Counter()
    for name, _ in core:
        if name not in names:
            status, detail = "not supported", core_aten_gaps.REASONS.get(name, "")
        elif name not in decomposed:
            status, detail = "in the dialect, not decomposed", ""
        elif by_op.get(name):
            status, detail = "compiled in e2e tests", cell(by_op[name])
        else:
            status, detail = "decomposed (no e2e graph holds it)", ""
        counts[status] += 1
        rows.append(f"| `{name}` | {status} | {detail} |")
    summary = "; ".join(f"{counts[s]} {s}" for s in (
        "compiled in e2e tests", "decomposed (no e2e graph holds it)",
        "in the dialect, not decomposed", "not supported") if counts[s])
    return f"""## Core ATen opset

PyTorch's Core ATen opset: the op overloads tagged `torch.Tag.core`
(`tools/docs/core_aten_ops.txt`, written by `tools/docs/list_core_aten.py` from {header[len("Core ATen opset of "):header.index(" (")]}),
with pt2c's status; the reasons for unsupported overloads are in
`tools/docs/core_aten_gaps.py`.

{len(core)} Core overloads: {summary}.

| Core overload | pt2c | e2e tests / why not |
|---------------|------|---------------------|
{chr(10).join(rows)}
"""


def render(ops, decomposed, dtype_rules, usage, lit, core, core_header):
    by_op = collections.defaultdict(set)
    for test, names in usage["tests"].items():
        for name in names:
            by_op[name].add(short_test(test))
    names = {name for _, name, _ in ops}
    rows, counts = [], collections.Counter()
    section = None
    for sec, name, schema in ops:
        if sec != section:
            section = sec
            rows += ["", f"### {sec}", "",
                     "| op | decomposed | lowered | dtype rule | e2e tests (graphs using it) "
                     "| lit tests |",
                     "|----|------------|---------|------------|-----------------------------"
                     "|-----------|"]
        base, _, overload = name[len("aten."):].partition(".")
        functional = "aten." + base[:-1] + ("." + overload if overload else "")
        if functional not in decomposed and overload == "Tensor":
            # pt2c-functionalize: `X_.Tensor` whose functional form is the default `X`
            # (floor_divide_.Tensor -> floor_divide)
            functional = "aten." + base[:-1]
        if name in decomposed:
            how = "yes"
        elif base.endswith("_") and "(a!)" in schema and functional in decomposed:
            how = f"functionalized to `{functional}`"
        elif "(a!)" in schema:
            how = "in-place, no functional form: left to pt2c-functionalize"
        else:
            how = "**no**"
        tests = by_op.get(name, set())
        lowered = "yes" if tests else ("not exercised" if how != "**no**" else "no")
        counts["ops"] += 1
        counts["decomposed"] += how != "**no**"
        counts["lowered"] += lowered == "yes"
        counts["lit"] += bool(lit.get(name))
        dtype = "yes" if name in dtype_rules else "trusted"
        counts["dtype"] += dtype == "yes"
        rows.append(f"| `{name}` | {how} | {lowered} | {dtype} | {cell(tests)} | "
                    f"{cell(lit.get(name, set()), 2)} |")
    summary = (f"{counts['ops']} ops in the dialect; {counts['decomposed']} decomposed to "
               f"prim (or functionalized to a decomposed op); {counts['lowered']} compiled "
               f"to a .so by an e2e test; {counts['dtype']} with a dtype rule; "
               f"{counts['lit']} named by a lit test.")
    recorded = usage.get("recorded", "never")
    files = sorted({t.split("::")[0] for t in usage["tests"]})
    recorded += (" from " + ", ".join(f"`{pathlib.Path(f).name}`" for f in files)
                 if files else "")
    return f"""# aten op coverage

Generated by `tools/docs/gen_op_coverage.py` (its docstring says how); do not edit by
hand. `tests/e2e/test_generated_docs.py` fails when this file is stale: after adding an
op to `ir/aten/aten_ops.txt` or a decomposition, run `python3
tools/docs/gen_op_coverage.py`; after adding e2e tests, rerun the record
(`--record`, which runs the e2e tests).

- *decomposed*: `pt2c-decompose-aten-to-prim` has a pattern for the op
  (`pt2c-opt --pt2c-list-decompositions`); an in-place op is functionalized to its
  out-of-place form.
- *lowered*: a graph holding the op went through decomposition, prim -> linalg
  lowering and CPU codegen into a .so in an e2e test (*not exercised*: decomposed, but
  no e2e graph holds it).
- *dtype rule*: the verifier checks the op's result dtypes against PyTorch's type
  promotion and the op's own dtype behaviour (`ir/aten/AtenDtypeRules.cpp`); *trusted*:
  they are taken from the trace.
- *e2e tests*: the e2e tests whose compiled graphs hold the op (`pt2c --emit aten`),
  recorded {recorded}.

{summary}
{chr(10).join(rows)}

{render_core(core, core_header, names, decomposed, by_op)}"""


def record(pytest_args):
    """Runs the e2e tests with record_ops.py as pt2c; returns the new usage dict."""
    with tempfile.TemporaryDirectory() as tmp:
        log = pathlib.Path(tmp) / "ops.jsonl"
        env = dict(os.environ, PT2C_RECORD_OPS=str(log))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        cmd += pytest_args or [str(E2E)]
        subprocess.run(cmd, cwd=REPO, env=env)
        usage = load_usage() if pytest_args else {"tests": {}}
        fresh = collections.defaultdict(set)
        for line in log.read_text().splitlines() if log.exists() else []:
            entry = json.loads(line)
            if entry["test"] and not entry["emit_failed"]:
                fresh[entry["test"]].update(entry["ops"])
    usage["tests"].update({test: sorted(ops) for test, ops in fresh.items()})
    # A test renamed or removed since an earlier record is dropped, not kept stale.
    usage["tests"] = {t: ops for t, ops in sorted(usage["tests"].items()) if test_exists(t)}
    import datetime
    usage["recorded"] = datetime.date.today().isoformat()
    return usage


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if docs/OP_COVERAGE.md is not what this writes")
    parser.add_argument("--record", nargs=argparse.REMAINDER,
                        help="run the e2e tests (or these pytest arguments, merged into "
                        "the existing record) recording each graph's ops, then write")
    args = parser.parse_args()
    ops = dialect_ops()
    if args.record is not None:
        usage = record(args.record)
        USAGE.write_text(json.dumps(usage, indent=1) + "\n")
    usage = load_usage()
    names = {name for _, name, _ in ops}
    core, core_header = core_ops()
    problems = validate(usage, names) + core_problems(core, names)
    text = render(ops, decomposed_ops(), dtype_rule_ops(), usage, lit_usage(), core,
                  core_header)
    if args.check:
        if DOC.read_text() != text:
            problems.append(f"{DOC.relative_to(REPO)} is stale: run "
                            "python3 tools/docs/gen_op_coverage.py")
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    for p in problems:
        print("warning:", p, file=sys.stderr)
    DOC.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
