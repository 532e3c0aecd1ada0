"""Runs the model once with real tensors and records every ATen call that reaches us.

A TorchDispatchMode sits below autograd, so composite ops arrive already decomposed
(F.linear as aten::t + aten::addmm) and what we record is what the kernels run. The mode
is off while an op executes, so an op's own internals are not recorded. The same code
runs on torch 1.13 and 2.x: only `__torch_dispatch__` and the mode's context manager
are used.
"""
import os
import sys

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from . import (batched_nms, export_mode, fast_path, mask_indexing, paste_masks, roi_align,
               value_escapes)
from .data_dependent import NonzeroCalls, is_nonzero, is_row_producer
from .graph_builder import GraphBuilder
from .op_findings import OpFindings
from .report import Report
from .restrides import is_identity_restride
from .schema import op_schema
from .signatures import method_parameters
from .source_location import SourceLocator
from .user_errors import is_user_file

# Calls recorded as the ATen ops they mean (each rewrite returns None for other calls).
_REWRITERS = (mask_indexing, roi_align)

_TENSOR_STR = os.path.join(os.sep + "torch", "_tensor_str.py")


class ExporterBug(Exception):
    """Raised from our own code inside the mode, so it is not blamed on the model."""


class _RecordingMode(TorchDispatchMode):
    def __init__(self, builder, findings, locator, nonzero_calls):
        super().__init__()
        self._builder = builder
        self._findings = findings
        self._locator = locator
        self._nonzero_calls = nonzero_calls

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if (func._schema.name in fast_path.UNRECORDED_PROBES or _printing_a_tensor()
                or is_identity_restride(func, args, kwargs)):
            return func(*args, **kwargs)
        # Mask indexing is recorded as the nonzero and index it means, roi_align as its
        # matrix products; their sub-ops come back through this method, and so are
        # recorded like any call.
        dispatch = lambda sub_op, *sub_args: self.__torch_dispatch__(sub_op, types, sub_args)
        for rewriter in _REWRITERS:
            result = rewriter.rewrite(func, args, kwargs, dispatch)
            if result is not None:
                return result
        if is_nonzero(func):  # a second count of one mask is a copy of the first
            earlier = self._nonzero_calls.earlier_result(args[0])
            if earlier is not None:
                return dispatch(torch.ops.aten.clone.default, earlier)
        return self._record(func, args, kwargs)

    def _record(self, func, args, kwargs):
        rows = is_row_producer(func)
        try:
            loc = self._locator.current()
            node = self._builder.begin_node(func, args, kwargs, loc)
        except Exception as e:
            raise ExporterBug("recording %s" % func) from e
        result = func(*args, **kwargs)  # the model's own errors propagate unchanged
        try:
            if rows:  # other row counts in a retrace (data_dependent.py)
                result = self._nonzero_calls.result(op_schema(func).target, args[0], result)
            self._builder.end_node(node, result)
            if rows:
                self._nonzero_calls.recorded_as(node.outputs[0])
            self._findings.check(func, op_schema(func), args, kwargs, result, loc)
        except Exception as e:
            raise ExporterBug("recording the results of %s" % func) from e
        return result


def _printing_a_tensor():
    """True inside torch's tensor printing, called from the user's code (print(x)).

    torch 2.x prints with dispatch modes disabled; 1.13 does not, and its printing ops
    (masked_select, abs, ...) would become nodes and findings of the model's graph.
    """
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.endswith(_TENSOR_STR):
            return True
        if is_user_file(name):
            return False
        frame = frame.f_back
    return False


class Trace:
    """The outcome of one traced run: graph, weights to store, draft report, the input
    slots: [(parameter name, Value name, or None for an input passed as None)], and the
    nonzero calls: [data_dependent.NonzeroCall] in call order."""

    def __init__(self, graph, weights, report, outputs, slots, nonzero_calls):
        self.graph = graph
        self.weights = weights
        self.report = report
        self.outputs = outputs
        self.slots = slots
        self.nonzero_calls = nonzero_calls


def input_names(function, count):
    """The method's parameter names for the inputs, `input<i>` where there is none."""
    names = []
    params = method_parameters(function)
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for i in range(count):
        names.append(positional[i] if i < len(positional) else "input%d" % i)
    return names


def trace(model, example_inputs, model_dir, supported_ops=None, method="forward",
          registry=None, graph_name="forward", forced_rows=None):
    """Run model.<method>(*example_inputs) under the recording mode; exceptions propagate.

    supported_ops: the op names of ir/aten/aten_ops.txt, or None not to check them.
    registry: a WeightRegistry shared by the graphs of one artifact (anonymous constants
    then get names unique across them). None inputs are absent optional arguments.
    forced_rows: {nonzero call index: row count} to force those results to (a retrace
    at other data-dependent sizes, data_dependent.py), or None.
    """
    report = Report()
    builder = GraphBuilder(model, report, registry, graph_name)
    # forward through __call__, so that module hooks run as they do for the user.
    function = model if method == "forward" else getattr(model, method)
    slots = []
    for name, tensor in zip(input_names(getattr(model, method), len(example_inputs)),
                            example_inputs):
        slots.append((name, None if tensor is None else builder.add_user_input(name, tensor)))
    locator = SourceLocator(model_dir)
    nonzero_calls = NonzeroCalls(forced_rows)
    mode = _RecordingMode(builder, OpFindings(report, supported_ops, nonzero_calls), locator,
                          nonzero_calls)
    with torch.no_grad(), fast_path.steered_off(report, locator), \
            export_mode.answered(report, locator), batched_nms.steered(report, locator), \
            paste_masks.steered(report, locator), value_escapes.reported(report, locator), mode:
        result = function(*example_inputs)
    graph, weights = builder.finish(result)
    return Trace(graph, weights, report, result, slots, nonzero_calls.calls)
