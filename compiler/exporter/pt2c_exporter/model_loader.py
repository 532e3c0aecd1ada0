"""Imports model.py and checks its contract.

model.py defines, at module level:
  model           an nn.Module, or a zero-argument function returning one
  example_inputs  a tuple of tensors (None for an absent optional argument), or a
                  zero-argument function returning one: one graph of forward()
or, instead of example_inputs (signatures.py says what a signature may be):
  signatures      {name: inputs}: one graph per entry (a multi-graph artifact)
"""
import importlib.util
import os
import sys

import torch

from .user_errors import ExportError, exception_summary, user_traceback

_MODEL_EXPECTED = "an nn.Module, or a zero-argument function returning one"
_INPUTS_EXPECTED = "a tuple of tensors, or a zero-argument function returning one"


def load_model(path):
    """-> (model in eval mode, [signatures.Signature]), forward's first."""
    # Here, not at the top: load_module_only must not need pt2c_pb2 (tracer imports it).
    from .dynamic_shapes import load_dynamic_shapes
    from .signatures import check_reachable, signatures_from
    from .tracer import input_names
    module = _import_file(path)
    shown = os.path.basename(path)
    model = _load_module_object(module, shown)
    if hasattr(module, "signatures"):
        if hasattr(module, "example_inputs"):
            raise ExportError("%s defines both `example_inputs` and `signatures`; define one "
                              "(`signatures` for several graphs)" % shown)
        if hasattr(module, "dynamic_shapes"):
            raise ExportError("%s: `dynamic_shapes` goes with `example_inputs`; with "
                              "`signatures`, give each signature its own: {\"inputs\": "
                              "(...), \"dynamic_shapes\": {...}}" % shown)
        table = module.signatures
        if callable(table) and not isinstance(table, dict):
            table = _call(table, shown, "signatures()")
        signatures = signatures_from(model, table, shown)
        for sig in signatures:
            sig.dynamic_shapes = load_dynamic_shapes(
                sig.declared_dynamic, input_names(getattr(model, sig.method), len(sig.inputs)),
                sig.inputs, "%s: signature '%s'" % (shown, sig.name))
        check_reachable(signatures, shown)
        return model.eval(), signatures
    inputs = _attribute(module, shown, "example_inputs", _INPUTS_EXPECTED)
    if callable(inputs) and not isinstance(inputs, torch.Tensor):
        inputs = _call(inputs, shown, "example_inputs()")
    _check_inputs(inputs, shown)
    signatures = signatures_from(model, {"forward": tuple(inputs)}, shown,
                                 single="example_inputs")
    signatures[0].dynamic_shapes = load_dynamic_shapes(
        getattr(module, "dynamic_shapes", None), input_names(model.forward, len(inputs)),
        tuple(inputs), shown)
    return model.eval(), signatures


def load_module_only(path):
    """model.py's model in eval mode, without its inputs (the external weights file needs
    nothing else)."""
    return _load_module_object(_import_file(path), os.path.basename(path)).eval()


def _load_module_object(module, shown):
    model = _attribute(module, shown, "model", _MODEL_EXPECTED)
    if not isinstance(model, torch.nn.Module):
        if not callable(model):
            raise ExportError("%s: `model` is a %s; expected %s"
                              % (shown, type(model).__name__, _MODEL_EXPECTED))
        model = _call(model, shown, "model()")
        if not isinstance(model, torch.nn.Module):
            raise ExportError("%s: `model()` returned a %s; expected an nn.Module"
                              % (shown, type(model).__name__))
    return model


def _import_file(path):
    if not os.path.isfile(path):
        raise ExportError("model file not found: %s" % path)
    path = os.path.abspath(path)
    # The model's directory comes first on sys.path, so model.py can import its siblings.
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("__pt2c_model__", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as e:  # SystemExit too: a model.py calling exit() is a user error
        if isinstance(e, KeyboardInterrupt):
            raise
        raise ExportError("%s raised while being imported: %s"
                          % (os.path.basename(path), exception_summary(e)), user_traceback(e))
    return module


def _attribute(module, shown, name, expected):
    if not hasattr(module, name):
        raise ExportError("%s defines no `%s`; expected a module-level `%s`: %s"
                          % (shown, name, name, expected))
    return getattr(module, name)


def _call(function, shown, what):
    try:
        return function()
    except Exception as e:
        raise ExportError("%s: %s raised: %s" % (shown, what, exception_summary(e)),
                          user_traceback(e))


def _check_inputs(inputs, shown):
    if isinstance(inputs, torch.Tensor):
        raise ExportError("%s: `example_inputs` is a single tensor; expected a tuple of "
                          "tensors: write (x,)" % shown)
    if not isinstance(inputs, (tuple, list)):
        raise ExportError("%s: `example_inputs` is a %s; expected %s"
                          % (shown, type(inputs).__name__, _INPUTS_EXPECTED))
    for i, item in enumerate(inputs):
        if item is not None and not isinstance(item, torch.Tensor):
            raise ExportError("%s: `example_inputs[%d]` is a %s; every example input must be "
                              "a tensor (or None for an absent optional argument)"
                              % (shown, i, type(item).__name__))
