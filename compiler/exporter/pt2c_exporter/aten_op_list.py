"""The ATen ops the `aten` dialect has: read from ir/aten/aten_ops.txt.

That file lists one schema per line (`aten::add.Tensor(Tensor self, ...) -> Tensor`);
the dialect's op set is generated from it, so an op missing from it is one the importer
rejects. The exporter finds the file at the same place relative to itself in the source
tree and in Bazel's runfiles (the //compiler/exporter:exporter_py filegroup carries it):
<root>/compiler/exporter/pt2c_exporter/ -> <root>/ir/aten/aten_ops.txt.
"""
import os

# abspath, not realpath: in runfiles the .py files are symlinks into the source tree,
# and the runfiles tree is where the driver's copy of the list is.
_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DEFAULT_PATH = os.path.join(_ROOT, "ir", "aten", "aten_ops.txt")


def listed_name(target, overload):
    """The name an op has in aten_ops.txt: `aten::add.Tensor`, `aten::t` for default."""
    return target if overload in ("", "default") else "%s.%s" % (target, overload)


def load(path):
    """The set of listed names in an aten_ops.txt; OSError if it cannot be read."""
    names = set()
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                names.add(line.split("(", 1)[0].strip())
    return names
