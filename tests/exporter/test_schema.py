"""The schema-string parser that gives arguments their declared types (in-process)."""
import torch

import exporter_harness  # noqa: F401  (puts the exporter and pt2c_pb2 on sys.path)
from pt2c_exporter.schema import declared_argument_types, op_schema


def test_declared_types_drop_annotations_and_sizes():
    text = ('aten::f(Tensor(a -> *) self, Tensor(b!)[] out, int[2] stride=1, '
            'str padding="a,b", *, ScalarType? dtype=None, float[]? scales) -> Tensor(a)[]')
    assert declared_argument_types(text) == [
        "Tensor", "Tensor[]", "int[]", "str", "ScalarType?", "float[]?"]


def test_every_schema_of_the_installed_torch_parses():
    # The parser must agree with the JIT's argument count for every ATen overload.
    checked = 0
    for name in dir(torch.ops.aten):
        packet = getattr(torch.ops.aten, name, None)
        for overload in getattr(packet, "overloads", lambda: [])():
            func = getattr(packet, overload)
            assert len(declared_argument_types(str(func._schema))) == len(func._schema.arguments), \
                str(func._schema)
            checked += 1
    assert checked > 1000


def test_op_schema_names_and_writes():
    add_ = op_schema(torch.ops.aten.add_.Tensor)
    assert (add_.target, add_.overload, add_.qualified_name) == (
        "aten::add_", "Tensor", "aten::add_.Tensor")
    assert add_.mutated == [True, False, False]
    assert op_schema(torch.ops.aten.t.default).overload == "default"
