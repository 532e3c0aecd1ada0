#!/usr/bin/env python3
"""Runs pt2c's exporter and torch.export.draft_export on the same small models and
prints what each reports, side by side, as a Markdown table (docs/draft_report.md).

    ~/.cache/pt2c/venv/bin/python tools/compare_draft_export.py [--also-python /usr/bin/python3]

The interpreter running this script needs torch.export.draft_export (PyPI torch 2.x).
pt2c's exporter runs as a subprocess, with this interpreter and with every
--also-python (Debian's torch 1.13, say), exactly as the pt2c driver runs it; it finds
pt2c_pb2.py in $PT2C_PB2_DIR or bazel-bin/ir/artifact.

Columns: pt2c's report entries (kind@line=assumed; UNSUPPORTED_OP entries are folded
into one `UNSUPPORTED_OP: ops` cell, since that list shrinks as the aten dialect
grows); draft_export's report failures (type@line=value); and what draft_export's graph
shows without reporting it (in-place ops, random ops, data-dependent ops kept
symbolic, mutation outputs of its signature after run_decompositions()), which is
where it "sees" a problem without calling it one.
"""
import argparse
import importlib.util
import logging
import os
import subprocess
import sys
import tempfile
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPORTER_DIR = os.path.join(REPO, "compiler", "exporter")
PB2_DIR = os.environ.get("PT2C_PB2_DIR", os.path.join(REPO, "bazel-bin", "ir", "artifact"))

# (name, what it probes, forward body, extra __init__ lines, example inputs)
CASES = [
    ("branch", "bool(tensor) in an `if`",
     "if x.sum() > 0:\n    return x + 1\nreturn x - 1", "", "torch.tensor([1.0, 0.0, 2.0])"),
    ("item", "`.item()` used as a number",
     "return x * x.max().item()", "", "torch.tensor([1.0, 0.0, 2.0])"),
    ("int_shape", "int(tensor) as a size",
     "return torch.arange(int(x.sum()))", "", "torch.tensor([1.0, 0.0, 2.0])"),
    ("item_loop", ".item() in a loop (3 values)",
     "for i in range(3):\n    x = x * x[i].item()\nreturn x", "", "torch.tensor([1.0, 2.0, 3.0])"),
    ("nonzero", "nonzero output size",
     "return torch.nonzero(x)", "", "torch.tensor([1.0, 0.0, 2.0])"),
    ("nonzero_branch", "branch on nonzero's size",
     "if torch.nonzero(x).shape[0] > 2:\n    return x + 1\nreturn x", "",
     "torch.tensor([1.0, 0.0, 2.0])"),
    ("mask_index", "boolean-mask indexing",
     "return x[x > 0.5]", "", "torch.tensor([1.0, 0.0, 2.0])"),
    ("tolist", "`.tolist()` in an `if`",
     "if x.tolist()[0] > 0:\n    return x + 1\nreturn x - 1", "", "torch.tensor([1.0, 0.0, 2.0])"),
    ("numpy", "`.numpy()` read",
     "return x * float(x.numpy().sum())", "", "torch.tensor([1.0, 0.0, 2.0])"),
    ("unsupported_op", "an op the aten dialect lacks",
     "return torch.lgamma(x)", "", "torch.tensor([1.0, 0.5, 2.0])"),
    ("input_mutation", "x.add_(1)",
     "x.add_(1)\nreturn x * 2", "", "torch.tensor([1.0, 0.0, 2.0])"),
    ("input_view_write", "x[0] = 5 (through a view)",
     "x[0] = 5.0\nreturn x * 2", "", "torch.tensor([1.0, 0.0, 2.0])"),
    ("buffer_mutation", "self.calls.add_(1)",
     "self.calls.add_(1)\nreturn x * self.calls", "self.register_buffer('calls', torch.zeros(1))",
     "torch.tensor([1.0, 0.0, 2.0])"),
    ("randomness", "torch.rand_like in forward",
     "return x + torch.rand_like(x)", "", "torch.tensor([1.0, 0.0, 2.0])"),
    ("fast_path", "nn.TransformerEncoder (2 layers) in eval",
     "return self.encoder(x)",
     "layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)\n"
     "self.encoder = torch.nn.TransformerEncoder(layer, num_layers=2)",
     "torch.randn(2, 5, 8)"),
]

TEMPLATE = """import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
{init}

    def forward(self, x):
{body}


model = M()
example_inputs = ({inputs},)
"""


def model_source(init, body, inputs):
    return TEMPLATE.format(init=textwrap.indent(init or "pass", " " * 8),
                           body=textwrap.indent(body, " " * 8), inputs=inputs)


# ---- pt2c -------------------------------------------------------------------------

def pt2c_report(python, model_py, out):
    """(cell text, error or None) for pt2c's exporter run with `python`."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([EXPORTER_DIR, PB2_DIR]))
    proc = subprocess.run([python, "-m", "pt2c_exporter", model_py, "-o", out, "--quiet"],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if proc.returncode != 0:
        return "export failed: " + proc.stderr.strip().splitlines()[0]
    from pt2c_exporter.reader import ArtifactFile
    cells, unsupported = [], []
    for e in ArtifactFile(out).message.report:
        if e.kind == "UNSUPPORTED_OP":
            unsupported.append(e.op.replace("aten::", ""))
            continue
        text = "%s@%d" % (e.kind, e.loc.line) if e.loc.file else e.kind
        if e.count > 1:
            text += " x%d" % e.count
        if e.kind == "DATA_DEPENDENT":
            text += "=" + e.assumed
        elif e.kind == "FAST_PATH":
            text += " " + e.op.replace("aten::", "")
        cells.append(text)
    if unsupported:
        cells.append("UNSUPPORTED_OP: " + ", ".join(dict.fromkeys(unsupported)))
    return "; ".join(cells) or "-"


# ---- draft_export -----------------------------------------------------------------

def load(model_py):
    spec = importlib.util.spec_from_file_location("compared_model", model_py)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.model.eval(), module.example_inputs


def draft_export_columns(model_py):
    """(report cell, graph cell) for torch.export.draft_export."""
    import torch
    model, inputs = load(model_py)
    try:
        ep = torch.export.draft_export(model, inputs)
    except Exception as e:  # draft_export gives up on some models (.numpy())
        return "raised %s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:80]), "-"
    report = ep._report
    cells = []
    for failure in report.failures:
        data = failure.data if isinstance(failure.data, dict) else {}
        text = failure.failure_type.name
        line = _user_line(report, data.get("user_stack") or [], model_py)
        if line:
            text += "@%d" % line
        if data.get("occurrences", 1) > 1:
            text += " x%d" % data["occurrences"]
        if "result" in data:
            text += "=%s" % data["result"]
        cells.append(text)
    return "; ".join(cells) or "-", _graph_facts(ep) or "-"


def _user_line(report, stack, model_py):
    names = getattr(report, "str_to_filename", {}) or {}
    for frame in reversed(stack):
        name = frame.get("filename") if isinstance(frame, dict) else None
        name = names.get(name, name) if isinstance(name, (int, str)) else name
        if isinstance(name, str) and os.path.realpath(name) == os.path.realpath(model_py):
            return frame.get("line")
    # Filenames are interned as ints in some versions; the innermost frame is the user's.
    return stack[-1].get("line") if stack and isinstance(stack[-1], dict) else None


def _graph_facts(ep):
    import torch
    facts = []
    # draft_export's graph is training IR, where in-place ops stay in place; its
    # signature shows mutations only once run_decompositions() has functionalized it.
    try:
        specs = ep.run_decompositions().graph_signature.output_specs
        kinds = [s.kind.name for s in specs if s.kind.name != "USER_OUTPUT"]
    except Exception as e:
        kinds = ["run_decompositions raised %s" % type(e).__name__]
    if kinds:
        facts.append("decomposed signature: " + ", ".join(kinds))
    from pt2c_exporter.op_findings import bind, draws_random_numbers
    from pt2c_exporter.schema import op_schema
    nodes = [n for n in ep.graph.nodes
             if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)]
    ops = [n.target for n in nodes]
    named = lambda op: getattr(op, "__name__", str(op))
    inplace = sorted({named(op) for op in ops if named(op).split(".")[0].endswith("_")
                      and not named(op).startswith("_")})
    # pt2c's rule, so that inference-mode dropout (p=0, train=False) counts in neither.
    random_ops = sorted({named(n.target) for n in nodes if draws_random_numbers(
        n.target, op_schema(n.target), bind(op_schema(n.target), n.args, n.kwargs))})
    symbolic = sorted({named(op) for op in ops if named(op).split(".")[0] in (
        "item", "_local_scalar_dense", "nonzero", "index", "masked_select")})
    fused = sorted({named(op) for op in ops if "transformer_encoder_layer" in named(op)
                    or "native_multi_head" in named(op)})
    if inplace:
        facts.append("in-place: " + ", ".join(inplace))
    if random_ops:
        facts.append("random: " + ", ".join(random_ops))
    if symbolic:
        facts.append("kept symbolic: " + ", ".join(symbolic))
    if fused:
        facts.append("fused: " + ", ".join(fused))
    return "; ".join(facts)


# ---- the table --------------------------------------------------------------------

def torch_version(python):
    return subprocess.run([python, "-c", "import torch; print(torch.__version__)"],
                          stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--also-python", action="append", default=[],
                        help="another interpreter to run pt2c's exporter with (a column each)")
    parser.add_argument("--case", action="append", help="only these cases (by name)")
    args = parser.parse_args()
    sys.path[:0] = [EXPORTER_DIR, PB2_DIR]  # pt2c_exporter: its reader and its op rules
    import torch
    if not hasattr(torch.export, "draft_export"):
        sys.exit("torch %s has no torch.export.draft_export; run this with the PyPI torch"
                 % torch.__version__)
    logging.disable(logging.WARNING)  # draft_export logs every assumption as a warning
    pythons = [sys.executable] + args.also_python
    header = ["case", "probes"] + ["pt2c report (torch %s)" % torch_version(p) for p in pythons]
    header += ["draft_export report (torch %s)" % torch.__version__,
               "draft_export graph, unreported"]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, probes, body, init, inputs in CASES:
            if args.case and name not in args.case:
                continue
            directory = os.path.join(work, name)
            os.mkdir(directory)
            model_py = os.path.join(directory, "model.py")
            with open(model_py, "w") as f:
                f.write(model_source(init, body, inputs))
            row = [name, probes]
            row += [pt2c_report(p, model_py, os.path.join(directory, "out%d.pt2c" % i))
                    for i, p in enumerate(pythons)]
            row += list(draft_export_columns(model_py))
            rows.append(row)
            sys.stderr.write("compared %s\n" % name)
    print("Lines are model.py lines; the forward body starts at line %d.\n"
          % (TEMPLATE.split("\n").index("    def forward(self, x):") + 2))
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")


if __name__ == "__main__":
    main()
