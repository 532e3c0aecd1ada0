"""Where things are for the exporter tests, and how to run the exporter.

(A uniquely named module rather than conftest.py, so tests can import it even when
other test directories have their own conftest.py.)

The exporter runs as a subprocess with the same interpreter as pytest, exactly as the
driver spawns it, so exit codes, stderr and the files left behind are what users get.
PT2C_PB2_DIR names the directory of the generated pt2c_pb2.py (default:
<repo>/bazel-bin/ir/artifact, from `bazel build //ir/artifact:pt2c_proto_py`).
"""
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPORTER_DIR = os.path.join(REPO, "compiler", "exporter")
PB2_DIR = os.environ.get("PT2C_PB2_DIR", os.path.join(REPO, "bazel-bin", "ir", "artifact"))
MLP_MODEL = os.path.join(REPO, "examples", "mlp", "model.py")

if not os.path.isfile(os.path.join(PB2_DIR, "pt2c_pb2.py")):
    raise pytest.UsageError("pt2c_pb2.py not found in %s: run `bazel build "
                            "//ir/artifact:pt2c_proto_py` or set PT2C_PB2_DIR" % PB2_DIR)
# The tests read artifacts back with the exporter's own reader.
sys.path[:0] = [EXPORTER_DIR, PB2_DIR]


class Run:
    def __init__(self, returncode, stderr, output):
        self.returncode = returncode
        self.stderr = stderr
        self.output = output

    def artifact(self):
        from pt2c_exporter.reader import ArtifactFile
        return ArtifactFile(self.output)


def run_exporter(model_path, output, *options):
    """options: more exporter arguments, such as --strict."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([EXPORTER_DIR, PB2_DIR]))
    proc = subprocess.run([sys.executable, "-m", "pt2c_exporter", model_path, "-o", output]
                          + list(options),
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300)
    return Run(proc.returncode, proc.stderr, output)


# ---- reading a graph back (the dynamic-shape and data-dependent tests) ----------------

def graph_of(run):
    assert run.returncode == 0, run.stderr
    (graph,) = run.artifact().message.graphs
    return graph


def shown(symint):
    """A SymInt as text: its expression, or its number."""
    return symint.expr if symint.WhichOneof("kind") == "expr" else symint.value


def sizes_of(graph, name):
    (value,) = [v for v in graph.values if v.name == name]
    return [shown(s) for s in value.meta.sizes]


def nodes(graph, target):
    return [n for n in graph.nodes if n.target == target]


def arg(node, name):
    (found,) = [a for a in node.args if a.name == name]
    kind = found.WhichOneof("kind")
    if kind == "ints":
        return [shown(v) for v in found.ints.values]
    return shown(found.int_value) if kind == "int_value" else getattr(found, kind)


def dims(graph):
    return [(d.name, d.min, d.max, [(i.input, i.dim) for i in d.inputs], list(d.traced_sizes))
            for d in graph.dynamic_dims]


def assert_failed(run, *parts):
    assert run.returncode == 1, run.stderr
    assert "pt2c: error:" in run.stderr
    for part in parts:
        assert part in run.stderr, (part, run.stderr)
    assert not os.path.exists(run.output)
