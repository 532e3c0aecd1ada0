"""model.py's `signatures` (or `example_inputs`) -> the graphs to trace.

    signatures = {
        "with_mask": (x, mask),                        # forward(x, mask)
        "no_mask": (x, None),                          # forward(x, None): mask absent
        "encode": {"method": "encode", "inputs": (x,)},  # model.encode(x)
    }

A key names its graph (a C identifier: it becomes a symbol prefix in the model.so); a
value is the positional inputs of forward(), or a dict naming another method of the
module. Inputs are tensors or None (an optional argument left out). Each entry is
checked against the method's Python signature before anything is traced, and two
entries the compiled library could not tell apart (same method, same inputs present,
same dtypes and sizes) are an error. forward()'s graphs come first: the default method
of the compiled library is graph 0's.
"""
import inspect
import re

import torch

from .user_errors import ExportError

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_EXPECTED = ("a dict {name: inputs}, where inputs is a tuple of tensors (None for an absent "
             "optional argument) for forward(), or {\"method\": NAME, \"inputs\": tuple} for "
             "another method")


class Signature:
    def __init__(self, name, method, inputs):
        self.name = name        # the graph's name
        self.method = method    # "forward", "encode", ...
        self.inputs = inputs    # tuple of tensors and Nones
        self.dynamic_shapes = None  # dynamic_shapes.DynamicShapes of example_inputs' graph

    def key(self):
        """What the compiled library's dispatch compares."""
        return (self.method, tuple(None if t is None else (t.dtype, tuple(t.shape))
                                   for t in self.inputs))


def method_parameters(function):
    """The parameter names of a bound method, for messages and input names ([] if unknown)."""
    try:
        return list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return []


def describe_method(method, function):
    params = method_parameters(function)
    return "%s(%s)" % (method, ", ".join(str(p) for p in params)) if params else method + "(...)"


def signatures_from(model, table, shown, single=None):
    """table: model.py's `signatures` dict. single: the attribute name when the table was
    made from `example_inputs` (messages then name that attribute)."""
    if not isinstance(table, dict) or not table:
        raise ExportError("%s: `signatures` is %s; expected %s"
                          % (shown, "empty" if isinstance(table, dict) else
                             "a " + type(table).__name__, _EXPECTED))
    result = [_one(model, name, value, shown, single) for name, value in table.items()]
    seen = {}
    for sig in result:
        other = seen.setdefault(sig.key(), sig)
        if other is not sig:
            raise ExportError("%s: signatures '%s' and '%s' have the same inputs (method %s, "
                              "same dtypes and sizes, the same ones None): the compiled "
                              "library could not tell them apart"
                              % (shown, other.name, sig.name, sig.method))
    return ([s for s in result if s.method == "forward"] +
            [s for s in result if s.method != "forward"])


def _one(model, name, value, shown, single):
    what = "`%s`" % single if single else "signature '%s'" % name
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ExportError("%s: signature name %r is not an identifier (letters, digits, _)"
                          % (shown, name))
    method, inputs = "forward", value
    if isinstance(value, dict):
        if set(value) != {"method", "inputs"} or not isinstance(value["method"], str):
            raise ExportError("%s: %s is a dict with keys %s; expected {\"method\": NAME, "
                              "\"inputs\": tuple}" % (shown, what, sorted(map(str, value))))
        method, inputs = value["method"], value["inputs"]
    if isinstance(inputs, torch.Tensor) or not isinstance(inputs, (tuple, list)):
        raise ExportError("%s: %s is a %s; expected %s" % (
            shown, what, type(inputs).__name__,
            "a tuple of tensors: write (x,)" if isinstance(inputs, torch.Tensor) else _EXPECTED))
    for i, item in enumerate(inputs):
        if item is not None and not isinstance(item, torch.Tensor):
            raise ExportError("%s: %s: input %d is a %s; every input must be a tensor, or None "
                              "for an absent optional argument"
                              % (shown, what, i, type(item).__name__))
    function = getattr(model, method, None)
    if not callable(function):
        raise ExportError("%s: %s names method '%s', which %s has no callable of"
                          % (shown, what, method, type(model).__name__))
    try:
        inspect.signature(function).bind(*inputs)
    except TypeError as e:
        raise ExportError("%s: %s gives %d input%s, which %s.%s does not accept (%s)"
                          % (shown, what, len(inputs), "" if len(inputs) == 1 else "s",
                             type(model).__name__, describe_method(method, function), e))
    except ValueError:
        pass  # no Python signature (a builtin): tracing will tell
    return Signature(name, method, tuple(inputs))
