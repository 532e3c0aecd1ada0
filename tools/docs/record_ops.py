#!/usr/bin/env python3
"""Stands in for bazel-bin/tools/pt2c/pt2c while the e2e tests run under
`gen_op_coverage.py --record`: runs the real pt2c with the same arguments, and after
each successful compile of a model.py or .pt2c to a .so asks pt2c for the graph's aten
ops (`--emit aten`) and appends them, with the running test's id, to the JSON-lines
file $PT2C_RECORD_OPS. The test sees exactly what the real pt2c said and returned.
Standard library only: it runs under whatever python3 the test's PATH gives.
"""
import json
import os
import pathlib
import re
import subprocess
import sys

PT2C = pathlib.Path(__file__).resolve().parents[2] / "bazel-bin" / "tools" / "pt2c" / "pt2c"
# `aten.add.Tensor` in generic or custom form; `aten.add` must not match `aten.add_`.
OP = re.compile(r"\b(aten\.[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)?)\b")


def compiled_source(args):
    """The model.py or .pt2c that this pt2c call compiled to a .so, or None."""
    if "--emit" in args or not ("-o" in args or "--output" in args):
        return None
    if args[:1] == ["compile"]:
        return args[1] if len(args) > 1 else None
    return args[0] if args and args[0].endswith(".py") else None


def main():
    args = sys.argv[1:]
    result = subprocess.run([str(PT2C)] + args)
    source = compiled_source(args)
    record = os.environ.get("PT2C_RECORD_OPS")
    if result.returncode == 0 and source and record:
        cmd = [str(PT2C)] + (["compile", source] if args[0] == "compile" else [source])
        for flag in ("--target", "--python"):
            if flag in args:
                cmd += [flag, args[args.index(flag) + 1]]
        emitted = subprocess.run(cmd + ["--emit", "aten", "-q"], capture_output=True,
                                 text=True)
        ops = sorted(set(OP.findall(emitted.stdout)))
        test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
        with open(record, "a") as f:
            f.write(json.dumps({"test": test, "ops": ops,
                                "emit_failed": emitted.returncode != 0}) + "\n")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
