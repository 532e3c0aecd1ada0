#!/usr/bin/env python3
"""Writes tools/docs/core_aten_ops.txt: PyTorch's Core ATen opset, the op overloads that
torch tags `torch.Tag.core` (the opset torch.export's core decompositions reduce a
model to), one schema a line in `str(op._schema)` form, sorted by name. It needs a
torch with the tag (2.1 or later), such as pt2c's venv:

    ~/.cache/pt2c/venv/bin/python tools/docs/list_core_aten.py

The header line names the torch version the list came from; gen_op_coverage.py reads
the file (it needs no torch) for docs/OP_COVERAGE.md's "Core ATen opset" section.
"""
import pathlib
import sys

OUT = pathlib.Path(__file__).resolve().parent / "core_aten_ops.txt"


def core_schemas(torch):
    schemas = []
    for name in dir(torch.ops.aten):
        packet = getattr(torch.ops.aten, name)
        if not isinstance(packet, torch._ops.OpOverloadPacket):
            continue
        for overload in packet.overloads():
            op = getattr(packet, overload)
            if torch.Tag.core in op.tags:
                schemas.append(str(op._schema))
    return sorted(schemas, key=lambda s: s.split("(", 1)[0])


def main():
    import torch
    if not hasattr(torch.Tag, "core"):
        sys.exit(f"torch {torch.__version__} has no torch.Tag.core: use torch 2.1 or later")
    schemas = core_schemas(torch)
    OUT.write_text(f"# Core ATen opset of torch {torch.__version__} "
                   "(written by tools/docs/list_core_aten.py)\n" + "\n".join(schemas) + "\n")
    print(f"{OUT}: {len(schemas)} overloads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
