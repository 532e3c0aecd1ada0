#!/usr/bin/env python3
"""Runs the architecture sweeps of the e2e tests (tests/e2e/test_timm.py,
tests/e2e/test_transformers_sweep.py, tests/e2e/test_torchvision_tasks.py) and writes their results: per architecture, pass,
or the first error line of the step that failed, into docs/zoo_sweeps.json, and from it
the "Sweeps" section at the end of docs/ZOO.md (tools/zoo_report.py keeps that section
when it rewrites the file).

    ~/.cache/pt2c/venv/bin/python tools/sweep_report.py [--sweep timm|transformers|torchvision]
        [--models a,b] [--missing] [--render-only]

Each architecture is measured as tools/zoo_report.py measures the zoo (the model.py
sources are imported from the test files): `pt2c export`, `pt2c compile` (CPU,
x86-64-v2), fresh random inputs and eager's outputs as tools/eager_reference.py makes
them (token ids are the example ids; computed in this process), examples/cpp_host runs
the .so in a process without Python, max|diff| / max|ref| <= 1e-4. The e2e tests
(PT2C_SWEEP=all) check the same, on freshly drawn token ids too. --models reruns some
and merges them into the recorded results, --missing runs those with no result yet (to
resume a stopped run); --render-only rewrites docs/ZOO.md from docs/zoo_sweeps.json.
Needs `bazel build //tools/pt2c //examples/cpp_host`; run it under `nice` on a shared
machine.
"""
import argparse
import collections
import datetime
import json
import pathlib
import platform
import re
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO / "tests" / "e2e"))
import zoo_report  # noqa: E402
from detection_match import detection_error  # noqa: E402

zoo_report.ERROR_CHARS = 400  # the whole message: grouped by its op, shown in full
RESULTS = REPO / "docs" / "zoo_sweeps.json"
DOC = REPO / "docs" / "ZOO.md"
SWEEPS = ("timm", "transformers", "torchvision")


def sweep(kind):
    """name -> (family, model.py source, a short description of its size) of a sweep."""
    if kind == "timm":
        import test_timm as t
        return {name: (family, t.timm_model_source(name),
                       f"{size}x{size}" + "".join(f", {k}={v}" for k, v in kwargs.items()))
                for name, (family, kwargs, size) in t.ARCHITECTURES.items()}
    if kind == "torchvision":
        import test_torchvision_tasks as t
        return {name: (family, t.model_source(name), "x".join(map(str, shape[1:])))
                for name, (family, _, _, shape) in t.ARCHITECTURES.items()}
    import test_transformers_sweep as t
    return {name: (family, t.model_source(name), cls)
            for name, (family, cls, _, _) in t.ARCHITECTURES.items()}


def versions():
    import timm
    import torch
    import torchvision
    import transformers
    return f"torch {torch.__version__}, timm {timm.__version__}, " \
           f"transformers {transformers.__version__}, torchvision {torchvision.__version__}"


def commit():
    made = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    return made.stdout.strip() or "unknown"


def reason(row):
    """The failure's reason, for grouping: the step and the error message without its
    location (and, for an unsupported operator, without what follows the op's name)."""
    if "error" not in row:
        return None if row["passed"] else "numerics: max rel error above 1e-4"
    step, _, message = row["error"].partition(": ")
    message = re.sub(r"^.*?\berror: ", "", message)
    op = re.search(r"unsupported operator (\S+)", message)
    if op:
        return f"{step}: unsupported operator {op.group(1).rstrip(':')}"
    return f"{step}: {message}"


def eager_in_process(model_py, out_dir, timeout=None):
    """What tools/eager_reference.py writes, computed in this process: starting Python
    and importing torch and transformers for every model took a quarter of the sweep."""
    import numpy as np
    import torch
    import eager_reference as ref
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    try:
        model, examples = ref.load(model_py)
        generator = torch.Generator().manual_seed(7)
        inputs = [ref.fresh_input(e, e.shape, generator) for e in examples]
        for i, t in enumerate(inputs):
            np.save(out / f"input{i}.npy", ref.npy_array(t))
        with torch.no_grad():
            outputs = ref.flatten(model(*inputs))
        for i, t in enumerate(outputs):
            np.save(out / f"ref{i}.npy", (t.float() if t.dtype == torch.bfloat16 else t).numpy())
    except Exception as e:  # noqa: BLE001 (reported as the model's failure)
        return subprocess.CompletedProcess([], 1, "", f"error: {type(e).__name__}: {e}")
    return subprocess.CompletedProcess([], 0, "", "")


def eager_float32_error(model_py, data_dir, compare=None):
    """max|f32 - f64| / max|f64| of eager itself on the recorded inputs (the model and
    its floating inputs in float64), or None if it cannot run in float64. A model whose
    float32 eager result is that far from its float64 one is ill-conditioned (random
    weights and batch-norm statistics can make a deep network so): a compiled result
    within the same distance of eager differs by rounding, not by a miscompile."""
    import copy
    import numpy as np
    import torch
    import eager_reference as ref
    data = pathlib.Path(data_dir)
    try:
        model, _ = ref.load(model_py)
        paths = sorted(data.glob("input*.npy"), key=lambda p: int(p.stem[5:]))
        inputs = [torch.from_numpy(np.load(p)) for p in paths]
        wide = [t.double() if t.is_floating_point() else t for t in inputs]
        with torch.no_grad():
            narrow = ref.flatten(model(*inputs))
            exact = ref.flatten(copy.deepcopy(model).double()(*wide))
    except Exception:  # noqa: BLE001 (no float64 run: nothing to report)
        return None
    if compare is not None:
        return compare([t.numpy() for t in narrow], [t.numpy() for t in exact],
                       zoo_report.TOLERANCE)
    errors = [float((a.double() - b).abs().max() / b.abs().max())
              for a, b in zip(narrow, exact) if b.is_floating_point() and b.abs().max() > 0]
    return max(errors) if errors else None


def measure(name, family, source, work, args):
    start = time.monotonic()
    # A detector's equally scored detections may come in either order (detection_match.py).
    compare = detection_error if family == "detection" else None
    row = zoo_report.measure(name, source, work, pathlib.Path(args.pt2c),
                             pathlib.Path(args.cpp_host), timeout=args.timeout,
                             reference=eager_in_process, compare=compare)
    if "max_rel_error" in row and not row.get("passed"):
        eager_error = eager_float32_error(work / "model.py", work / "data", compare)
        if eager_error is not None:
            row["eager_f32_error"] = float(f"{eager_error:.3g}")
    row["seconds"] = round(time.monotonic() - start, 1)
    for key in ("export_s", "compile_s"):
        if key in row:
            row[key] = round(row[key], 1)
    if "max_rel_error" in row:
        row["max_rel_error"] = float(f"{row['max_rel_error']:.3g}")
    row.pop("so_bytes", None)
    return row


# Why a recorded failure fails, where its error line does not say (shown while it fails).
WHY = {
    "ssdlite320_mobilenet_v3_large":
        "with random weights hundreds of boxes at different positions score alike to 1e-7, "
        "and the 300-detection cut-off falls inside such a group: pt2c scores one box "
        "0.23731543 where eager scores it 0.23731546, and keeps two boxes of the group that "
        "eager's cut-off drops",
    "keypointrcnn_resnet50_fpn":
        "heatmaps_to_keypoints loops in Python over the detections and resizes each "
        "heatmap to the size of its box (`int(widths_ceil[i].item())`): a graph per "
        "detection count, each with sizes read from values",
}


def cell(text):
    text = re.sub(r"/\S*/(site|dist)-packages/", "", str(text))
    return text.replace("\\|", "|").replace("|", "\\|")


def render(results):
    """The "Sweeps" section of docs/ZOO.md."""
    meta = results.get("meta", {})
    lines = [zoo_report.SWEEPS_HEADING, "", f"""Generated by `tools/sweep_report.py` from
`docs/zoo_sweeps.json` (see its docstring). The sweeps are the architecture lists of
`tests/e2e/test_timm.py` (timm, random weights, batch 1, small inputs),
`tests/e2e/test_transformers_sweep.py` (transformers models from small random configs:
hidden size 32, 2 layers, 4 heads) and `tests/e2e/test_torchvision_tasks.py` (torchvision's
segmentation, video, optical-flow and detection models, random weights, small inputs
where the model allows; classification is the exporter's torchvision sweep and the zoo
above). Each is exported, compiled for the CPU and run from `examples/cpp_host` against
PyTorch eager (max rel error <= 1e-4); detectors are compared as sets of detections in
which equally scored ones may come in either order (`tools/detection_match.py`), with
PyTorch's default initialization of their layers (torchvision's near-constant head
initialization scores every box of a random-weight detector alike).
By default the tests compile a fixed sample per sweep (3, 3 and 2); `PT2C_FULL_SWEEP=1`
(CI) adds 5, 5 and 2 drawn per day (never one recorded as failing, or as taking over
240 s); `PT2C_SWEEP=all` compiles all of them.

Recorded with {meta.get('versions', '?')} at commit {meta.get('commit', '?')},
{meta.get('date', '?')}, on {meta.get('machine', '?')}; times are wall-clock seconds
(export includes starting Python and building the model).""", ""]
    lines += ["| sweep | family | architectures | pass | fail | not measured | time (s) |",
              "|-------|--------|-------------:|-----:|-----:|-------------:|---------:|"]
    missing = {kind: [n for n in sweep(kind) if n not in results.get(kind, {})]
               for kind in SWEEPS}
    failures = collections.defaultdict(list)
    for kind in SWEEPS:
        rows = results.get(kind, {})
        families = collections.OrderedDict()
        for name, (family, _, _) in sweep(kind).items():
            families.setdefault(family, []).append((name, rows.get(name)))
        everything = [m for members in families.values() for m in members]
        for family, members in list(families.items()) + [("all", everything)]:
            done = [r for _, r in members if r is not None]
            passed = sum(1 for r in done if reason(r) is None)
            seconds = sum(r.get("seconds", 0) for r in done)
            label = f"**{family}**" if family == "all" else family
            lines.append(f"| {kind} | {label} | {len(members)} | {passed} | "
                         f"{len(done) - passed} | {len(members) - len(done)} | {seconds:.0f} |")
        for name, row in rows.items():
            why = reason(row)
            if why is not None:
                failures[why].append(f"{name} ({kind})")
    lines += ["", "### Failures by reason", "",
              "Most frequent first: what the compiler work should attack next.", "",
              "| reason | count | architectures |", "|--------|------:|---------------|"]
    # An op name cut off in an older record (the error line was once cut at 160
    # characters) joins the longest recorded name it begins; one with no overload left
    # is marked as cut off.
    for why in sorted(failures, key=len):
        longer = [w for w in failures if w != why and w.startswith(why) and "operator" in w]
        if "operator" in why and longer:
            failures[max(longer, key=len)] += failures.pop(why)
    for why in [w for w in failures if "operator" in w and "." not in w.split("::")[-1]]:
        failures[why + "... (cut off in the record)"] = failures.pop(why)
    for why, names in sorted(failures.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"| {cell(why)} | {len(names)} | {', '.join(names)} |")
    for kind in SWEEPS:
        rows = results.get(kind, {})
        what = "class" if kind == "transformers" else "input"
        lines += ["", f"### {kind}", "",
                  f"| architecture | family | {what} | aten ops | export (s) | compile (s) "
                  "| result |",
                  "|---|---|---|---:|---:|---:|---|"]
        for name, row in rows.items():
            if reason(row) is None:
                result = f"pass ({row['max_rel_error']:.2e})"
            elif "error" in row:
                result = f"fails: {row['error']}"
            else:
                result = f"fails: max rel error {row['max_rel_error']:.2e}"
                if "eager_f32_error" in row:
                    result += (f" (eager's own float32 result is {row['eager_f32_error']:.2e} "
                               "from float64: ill-conditioned, see tools/sweep_report.py)"
                               if row["eager_f32_error"] > 1e-4 else
                               f" (eager float32 vs float64: {row['eager_f32_error']:.2e})")
            if reason(row) is not None and name in WHY:
                result += f"; {WHY[name]}"
            lines.append(f"| {name} | {row['family']} | {cell(row['what'])} | "
                         f"{row.get('aten_ops') or ''} | {row.get('export_s', '')} | "
                         f"{row.get('compile_s', '')} | {cell(result)} |")
        for name in missing[kind]:
            family, _, what = sweep(kind)[name]
            lines.append(f"| {name} | {family} | {cell(what)} | | | | not measured yet "
                         "(`tools/sweep_report.py --missing`) |")
    return "\n".join(lines) + "\n"


def write_doc(results):
    text = DOC.read_text()
    at = text.find("\n" + zoo_report.SWEEPS_HEADING + "\n")
    head = text if at < 0 else text[:at + 1]
    zoo_report.write(DOC, head.rstrip("\n") + "\n\n" + render(results))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", choices=SWEEPS, help="one sweep (default: both)")
    parser.add_argument("--models", help="comma-separated names (default: all of the sweep)")
    parser.add_argument("--missing", action="store_true",
                        help="only the models with no recorded result (to resume a run)")
    parser.add_argument("--render-only", action="store_true",
                        help="rewrite docs/ZOO.md from docs/zoo_sweeps.json")
    parser.add_argument("--timeout", type=int, default=900,
                        help="seconds each step of a model may take (default 900)")
    parser.add_argument("--pt2c", default=str(zoo_report.PT2C))
    parser.add_argument("--cpp-host", default=str(zoo_report.CPP_HOST))
    parser.add_argument("--machine", default=f"{platform.machine()} Linux, "
                        f"{len(__import__('os').sched_getaffinity(0))} cores")
    args = parser.parse_args()
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if not args.render_only:
        results["meta"] = {"versions": versions(), "commit": commit(),
                           "date": datetime.date.today().isoformat(), "machine": args.machine}
        for kind in [args.sweep] if args.sweep else SWEEPS:
            models = sweep(kind)
            names = args.models.split(",") if args.models else list(models)
            old = results.get(kind, {})
            names = [n for n in names if n in models and not (args.missing and n in old)]
            # Table order is the test file's; results of models no longer there are dropped.
            results[kind] = {n: old[n] for n in models if n in old}
            with tempfile.TemporaryDirectory(prefix="pt2c-sweep-") as tmp:
                for name in names:
                    family, source, what = models[name]
                    row = measure(name, family, source, pathlib.Path(tmp) / name, args)
                    row.update(family=family, what=what)
                    results[kind][name] = row
                    results[kind] = {n: results[kind][n] for n in models if n in results[kind]}
                    print(f"{kind} {name}: {reason(row) or 'pass'} ({row['seconds']} s)",
                          file=sys.stderr, flush=True)
                    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    write_doc(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
