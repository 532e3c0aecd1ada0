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
