#!/usr/bin/python3
"""Writes the ODS for the `aten` dialect from ATen schema strings (docs/ARCHITECTURE.md decision 4).

Input: aten_ops.txt, one schema per line exactly as `str(torch.ops.aten.X.Y._schema)`
prints it; blank lines and lines starting with '#' are ignored. Ops of other namespaces
that models call like ATen ops (torchvision::nms) are listed the same way.
Output (stdout): AtenOps.td, which mlir-tblgen turns into C++.

The conventions below are what the importer (compiler/import) relies on when it builds
ops generically from a trace, so change them only together with it:
  * op name: `aten.<name>` plus `.<overload>` unless the overload is `default`; an op
    of another namespace is `aten.<namespace>_<name>` (torchvision::nms ->
    aten.torchvision_nms): a dot would read as an overload (mlir_name);
  * operands: the Tensor arguments in schema order (`Tensor?` -> Optional,
    `Tensor[]` -> Variadic);
  * every other argument is an attribute named exactly like the schema argument;
    arguments with a default or a `?` are optional attributes (absent = default/None);
  * results: one ranked tensor per returned Tensor (`Tensor[]` -> Variadic).
"""

import importlib.util
import os
import re
import sys

# The schema splitter is the exporter's, which parses the same schema strings from torch
# at export time. Loaded by path: the genrule carries that one file, not the exporter's
# package (whose modules want torch).
_SCHEMA_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "compiler",
                          "exporter", "pt2c_exporter", "schema.py")
_spec = importlib.util.spec_from_file_location("pt2c_exporter_schema", _SCHEMA_PY)
_schema = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_schema)
split_top_level = _schema.split_top_level

# Non-tensor ATen argument types -> ODS attribute constraints. ScalarType holds the
# pt2c DType number (ir/artifact/pt2c.proto); MemoryFormat and Layout hold the number
# of the torch enum value; Device holds the device string ("cpu", "cuda:0").
SCALAR_ATTRS = {
    "int": "I64Attr",
    "SymInt": "I64Attr",
    "float": "F64Attr",
    "bool": "BoolAttr",
    "str": "StrAttr",
    "Scalar": "Aten_ScalarAttr",
    "ScalarType": "I64Attr",
    "MemoryFormat": "I64Attr",
    "Layout": "I64Attr",
    "Device": "StrAttr",
}
LIST_ATTRS = {
    "int": "DenseI64ArrayAttr",
    "SymInt": "DenseI64ArrayAttr",
    "float": "DenseF64ArrayAttr",
    "bool": "DenseBoolArrayAttr",
}
TENSOR = "AnyRankedTensor"


class SchemaError(Exception):
    pass


def parse_type(text):
    """Returns (base, is_list, is_optional, mutable) for e.g. `Tensor(a!)`, `int[2]?`."""
    mutable = "!" in text
    text = re.sub(r"\([^)]*\)", "", text)  # alias annotations: Tensor(a!), Tensor(a -> *)
    optional = text.endswith("?")
    text = text.rstrip("?")
    is_list = False
    m = re.fullmatch(r"(\w+)(\?)?\[\d*\]", text)
    if m:
        is_list = True
        # Tensor?[] (index.Tensor's indices) is a Variadic of the tensors present; the
        # importer lists their positions in pt2c.present_<name> when some are None.
        # Other lists of optionals have no use yet.
        if m.group(2) and m.group(1) != "Tensor":
            raise SchemaError("lists of optionals (%s) are not supported" % text)
        text = m.group(1)
    return text, is_list, optional, mutable


def mlir_name(qualified):
    """The aten dialect's name (after `aten.`) of a schema's op, overload included:
    `aten::add.Tensor` -> `add.Tensor`, `torchvision::nms` -> `torchvision_nms` (ATen
    has no op of that name). compiler/import/Importer.cpp names ops the same way."""
    namespace, _, name = qualified.partition("::")
    return name if namespace == "aten" else namespace + "_" + name


def parse_schema(line):
    m = re.fullmatch(r"(\w+::\w+)(?:\.(\w+))?\((.*)\) -> (.*)", line)
    if not m:
        raise SchemaError("not a schema (namespace::name(args) -> results)")
    qualified, overload, args_text, rets_text = m.groups()
    name = mlir_name(qualified)
    overload = overload or "default"
    args = []
    for arg in split_top_level(args_text):
        if arg == "*":
            continue
        decl, _, default = arg.partition("=")
        type_text, _, arg_name = decl.strip().rpartition(" ")
        base, is_list, optional, mutable = parse_type(type_text)
        args.append(dict(name=arg_name, base=base, is_list=is_list,
                         optional=optional or bool(default), mutable=mutable))
    rets_text = rets_text.strip()
    if rets_text.startswith("("):
        rets_text = rets_text[1:-1]
    rets = []
    for ret in split_top_level(rets_text):
        type_text, _, ret_name = ret.partition(" ")
        base, is_list, _, _ = parse_type(type_text)
        if base != "Tensor":
            raise SchemaError("non-tensor result %s" % ret)
        rets.append(dict(name=ret_name, is_list=is_list))
    return name, overload, args, rets


def camel(text):
    return "".join(p[:1].upper() + p[1:] for p in text.split("_") if p)


def class_name_of(name, overload):
    """`add.Tensor` -> AddTensor, `add_.Tensor` -> Add_Tensor (in-place), `_to_copy` ->
    InternalToCopy (ATen's leading underscore marks internal ops; `_softmax` and
    `softmax` must not collide, and C++ reserves `_Upper` names), `__and__.Tensor` ->
    DunderAndTensor."""
    cls = camel(name)
    if name.startswith("__") and name.endswith("__"):  # Python operators: __and__
        cls = "Dunder" + cls
    else:
        if name.startswith("_"):
            cls = "Internal" + cls
        if name.endswith("_"):
            cls += "_"
    return cls + ("" if overload == "default" else camel(overload))


def ods_argument(arg):
    if arg["base"] == "Tensor":
        if arg["is_list"]:
            return "Variadic<%s>" % TENSOR
        return "Optional<%s>" % TENSOR if arg["optional"] else TENSOR
    table = LIST_ATTRS if arg["is_list"] else SCALAR_ATTRS
    if arg["base"] not in table:
        raise SchemaError("unsupported argument type %s%s" %
                          (arg["base"], "[]" if arg["is_list"] else ""))
    attr = table[arg["base"]]
    return "OptionalAttr<%s>" % attr if arg["optional"] else attr


def tablegen_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def emit_op(line, class_names):
    name, overload, args, rets = parse_schema(line)
    mnemonic = name if overload == "default" else name + "." + overload
    class_name = class_name_of(name, overload)
    if class_name in class_names:
        raise SchemaError("duplicate op " + mnemonic)
    class_names.add(class_name)

    tensor_args = [a for a in args if a["base"] == "Tensor"]
    traits = []
    # Mutating schemas (Tensor(a!)) keep unknown side effects; the rest are pure values.
    if not any(a["mutable"] for a in args):
        traits.append("Pure")
    if sum(1 for a in tensor_args if a["optional"] or a["is_list"]) > 1:
        traits.append("AttrSizedOperandSegments")
    if sum(1 for r in rets if r["is_list"]) > 1:
        traits.append("AttrSizedResultSegments")

    arguments = ",\n    ".join("%s:$%s" % (ods_argument(a), a["name"]) for a in args)
    results = []
    for i, ret in enumerate(rets):
        ret_name = ret["name"] or ("result" if len(rets) == 1 else "result%d" % i)
        results.append("%s:$%s" % ("Variadic<%s>" % TENSOR if ret["is_list"] else TENSOR,
                                   ret_name))
    cxx_schema = line.replace("\\", "\\\\").replace('"', '\\"')
    return """
def Aten_{cls}Op : Aten_Op<"{mnemonic}", [{traits}]> {{
  let summary = {summary};
  let arguments = (ins
    {arguments}
  );
  let results = (outs
    {results}
  );
  let extraClassDeclaration = [{{
    /// The ATen schema this op was generated from.
    static ::llvm::StringRef getSchema() {{ return "{cxx_schema}"; }}
  }}];
}}
""".format(cls=class_name, mnemonic=mnemonic, traits=", ".join(traits),
           summary=tablegen_string(line), arguments=arguments,
           results=",\n    ".join(results), cxx_schema=cxx_schema)


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: gen_aten_ops.py aten_ops.txt > AtenOps.td")
    out = ["// Generated by ir/aten/gen_aten_ops.py from ir/aten/aten_ops.txt. Do not edit.",
           "#ifndef PT2C_ATEN_OPS_TD", "#define PT2C_ATEN_OPS_TD",
           'include "ir/aten/AtenBase.td"']
    class_names, errors = set(), []
    with open(argv[1]) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                out.append(emit_op(line, class_names))
            except SchemaError as e:
                errors.append("%s:%d: %s: %s" % (argv[1], lineno, e, line))
    if errors:
        sys.exit("\n".join(errors))
    out.append("#endif // PT2C_ATEN_OPS_TD")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv)
