"""What an ATen op's schema declares, in a form that works on torch 1.13 and 2.x.

The JIT types on `func._schema.arguments` erase ScalarType, Layout and MemoryFormat to
int, and torch 1.13 has no `real_type`; the schema string keeps the declared types, so
they are parsed from there. The C++ importer parses the same string (SchemaArgs.cpp).
"""
import re


class OpSchema:
    """One overload: target ("aten::addmm"), overload name, schema string and arguments."""

    def __init__(self, func):
        schema = func._schema
        self.target = schema.name
        self.overload = getattr(func, "_overloadname", None) or schema.overload_name or "default"
        self.text = str(schema)
        self.arguments = list(schema.arguments)
        declared = declared_argument_types(self.text)
        if len(declared) != len(self.arguments):  # unparsable: fall back to the JIT types
            declared = [str(a.type) for a in self.arguments]
        self.declared_types = declared
        # Arguments the op writes to: `Tensor(a!) self`, out= tensors.
        self.mutated = [bool(a.alias_info is not None and a.alias_info.is_write)
                        for a in self.arguments]

    @property
    def qualified_name(self):
        return "%s.%s" % (self.target, self.overload)


_cache = {}


def op_schema(func):
    """The OpSchema of an OpOverload, parsed once per overload."""
    schema = _cache.get(func)
    if schema is None:
        schema = _cache[func] = OpSchema(func)
    return schema


def split_top_level(text, sep=","):
    """Splits on `sep` outside (), [] and quotes, up to a bracket that closes nothing (the
    end of an argument list): defaults like [0, 1] or "a,b" stay whole.

    ir/aten/gen_aten_ops.py splits the schemas of aten_ops.txt with it too.
    """
    parts, depth, quote, begin = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]" and depth == 0:
            text = text[:i]
            break
        elif ch in ")]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[begin:i].strip())
            begin = i + 1
    if text[begin:].strip():
        parts.append(text[begin:].strip())
    return parts


def declared_argument_types(text):
    """`aten::f(Tensor(a!) self, *, int[2] k=1) -> ...` -> ["Tensor", "int[]"]."""
    start = text.find("(")
    if start < 0:
        return []
    pieces = split_top_level(text[start + 1:])
    types = []
    for piece in pieces:
        if not piece or piece == "*":
            continue
        declaration = piece.split("=", 1)[0].strip()
        type_text = declaration.rsplit(" ", 1)[0] if " " in declaration else declaration
        types.append(normalize_type(type_text))
    return types


def normalize_type(type_text):
    """Drop alias annotations and list sizes: `Tensor(a!)` -> Tensor, `int[2]?` -> int[]?."""
    type_text = re.sub(r"\([^)]*\)", "", type_text)
    type_text = re.sub(r"\[\d+\]", "[]", type_text)
    return type_text.replace(" ", "")
