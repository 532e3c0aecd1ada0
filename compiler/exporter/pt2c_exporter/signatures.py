"""model.py's `signatures` (or `example_inputs`) -> the graphs to trace.

    signatures = {
        "with_mask": (x, mask),                        # forward(x, mask)
        "no_mask": (x, None),                          # forward(x, None): mask absent
        "encode": {"method": "encode", "inputs": (x,)},  # model.encode(x)
        "prefill": {"inputs": (ids, pos),                # forward(ids, pos), the prompt
                    "dynamic_shapes": {"ids": {1: ("prompt", 2, 512)}, "pos": {0: "prompt"}}},
    }

A key names its graph (a C identifier: it becomes a symbol prefix in the model.so); a
value is the positional inputs of forward(), or a dict with those `inputs` and
optionally the `method` (default forward) and the graph's `dynamic_shapes` (as
model.py's top-level one, keyed by that method's parameter names). Inputs are tensors or None (an optional argument left out). Each entry is
checked against the method's Python signature before anything is traced, and two
entries the compiled library could not tell apart (same method, same inputs present,
same dtypes and sizes) are an error, as is one that a run could never select because an
earlier one of the same method takes every size it does (check_reachable, once the
dynamic shapes are read). forward()'s graphs come first: the default method of the
compiled library is graph 0's, and a run picks the first graph that takes its inputs.
"""
import inspect
import re

import torch

from .user_errors import ExportError

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_EXPECTED = ("a dict {name: inputs}, where inputs is a tuple of tensors (None for an absent "
             "optional argument) for forward(), or {\"inputs\": tuple} with optional "
             "\"method\": NAME (another method) and \"dynamic_shapes\"")
_KEYS = {"inputs", "method", "dynamic_shapes"}


class Signature:
    def __init__(self, name, method, inputs):
        self.name = name        # the graph's name
        self.method = method    # "forward", "encode", ...
        self.inputs = inputs    # tuple of tensors and Nones
        self.declared_dynamic = None  # the signature's dynamic_shapes as model.py wrote it
        self.dynamic_shapes = None  # dynamic_shapes.DynamicShapes, once validated

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
    method, inputs, declared_dynamic = "forward", value, None
    if isinstance(value, dict):
        if ("inputs" not in value or not set(value) <= _KEYS or
                not isinstance(value.get("method", ""), str)):
            raise ExportError("%s: %s is a dict with keys %s; expected {\"inputs\": tuple} "
                              "with optional \"method\": NAME and \"dynamic_shapes\""
                              % (shown, what, sorted(map(str, value))))
        method = value.get("method", "forward")
        inputs, declared_dynamic = value["inputs"], value.get("dynamic_shapes")
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
    sig = Signature(name, method, tuple(inputs))
    sig.declared_dynamic = declared_dynamic
    return sig


def check_reachable(signatures, shown):
    """Fails if a signature can never be selected: an earlier one of the same method takes
    the same inputs at every size it takes (a prefill for 1..64 tokens before a one-token
    decode step). Dynamic dims count as their ranges."""
    for i, later in enumerate(signatures):
        for earlier in signatures[:i]:
            if earlier.method == later.method and _covers(earlier, later):
                raise ExportError(
                    "%s: signature '%s' can never be selected: '%s' comes first and takes "
                    "the same inputs at every size '%s' does; narrow '%s's dynamic ranges "
                    "(a prefill for 2 or more tokens beside a one-token decode step) or "
                    "reorder them" % (shown, later.name, earlier.name, later.name,
                                      earlier.name))


def _size_ranges(sig):
    """Per input: None if absent, else (dtype, [(low, high)] per dim)."""
    ranges = [None if t is None else (t.dtype, [(n, n) for n in t.shape]) for t in sig.inputs]
    for symbol in (sig.dynamic_shapes.symbols if sig.dynamic_shapes else []):
        for index, _, dim in symbol.places:
            ranges[index][1][dim] = (symbol.min, symbol.max)
    return ranges


def _covers(earlier, later):
    a, b = _size_ranges(earlier), _size_ranges(later)
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if (x is None) != (y is None):
            return False
        if x is None:
            continue
        if x[0] != y[0] or len(x[1]) != len(y[1]):
            return False
        if any(not (lo_a <= lo_b and hi_b <= hi_a) for (lo_a, hi_a), (lo_b, hi_b)
               in zip(x[1], y[1])):
            return False
    return True
