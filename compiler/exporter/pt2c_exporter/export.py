"""The export pipeline: model.py -> trace -> artifact file."""
import contextlib
import os
import platform

import torch
import pt2c_pb2 as pb

from .model_loader import load_model
from .report import summary as report_summary
from .data_dependent import row_count_symbols, select_rows_where_empty
from .dynamic_trace import fit_dynamic_shapes
from .report_text import format_report
from .tracer import ExporterBug, trace
from .user_errors import ExportError, exception_summary, user_traceback
from .weight_registry import WeightRegistry
from .weights import BlobLayout
from .writer import write_artifact

FORMAT_VERSION = 1


class Summary:
    def __init__(self, graphs, ops, weights, weight_bytes, artifact):
        self.graphs = graphs
        self.ops = ops
        self.weights = weights
        self.weight_bytes = weight_bytes
        self.report = list(artifact.report)
        self.dynamic_dims = [d for g in artifact.graphs for d in g.dynamic_dims]
        self.report_text = format_report(artifact.report, artifact.model_path, artifact.producer,
                                         artifact.graphs)


def export(model_path, output_path, supported_ops=None, strict=False):
    """supported_ops: names from aten_ops.txt (None: not checked). strict: any draft
    report finding is an ExportError, and nothing is written."""
    model, signatures = load_model(model_path)
    shown = os.path.basename(model_path)
    multi = len(signatures) > 1
    registry = WeightRegistry(model)
    traces = []
    with _state_restored(model) as restore:
        for sig in signatures:
            single = len(signatures) == 1 and sig.name == "forward"  # example_inputs
            traced = _trace_one(model, sig, model_path, shown, supported_ops, registry,
                                "the model" if single else "signature '%s'" % sig.name, restore)
            traces.append((sig, traced))
            restore()

    layout = BlobLayout(_weights_of(traces))
    artifact = pb.Artifact(
        format_version=FORMAT_VERSION,
        producer="pt2c-exporter torch=%s python=%s" % (torch.__version__, platform.python_version()),
        model_path=model_path)
    for sig, traced in traces:
        artifact.graphs.append(traced.graph)
        artifact.dispatch.append(_dispatch_entry(sig, traced))
        for entry in traced.report.entries():
            if multi:
                entry.graph = sig.name
            artifact.report.append(entry)
    artifact.weights.extend(layout.entries)
    ops = sum(len(traced.graph.nodes) for _, traced in traces)
    summary = Summary(len(traces), ops, len(layout.entries), layout.data_bytes, artifact)
    if strict and summary.report:
        raise ExportError("%s: --strict: the draft report has %s; nothing was written"
                          % (shown, report_summary(summary.report)), summary.report_text)
    try:
        write_artifact(output_path, artifact, layout)
    except OSError as e:
        raise ExportError("cannot write %s: %s" % (output_path, e.strerror or e))
    return summary


def _trace_one(model, sig, model_path, shown, supported_ops, registry, who, restore):
    model_dir = os.path.dirname(os.path.abspath(model_path))
    inputs = _copies(sig.inputs)  # as they were: the trace may write them in place
    checkpoint = registry.checkpoint()
    try:
        traced = trace(model, sig.inputs, model_dir, supported_ops, sig.method, registry,
                       sig.name)
    except ExporterBug:
        raise
    except (Exception, SystemExit) as e:
        raise ExportError("%s: %s raised during tracing: %s" % (shown, who, exception_summary(e)),
                          user_traceback(e))
    if not any(o.kind == pb.OutputSpec.USER_OUTPUT for o in traced.graph.outputs):
        raise ExportError("%s: %s output contains no tensor (%s() returned %s); expected a "
                          "tensor, or a tuple/list/dict holding tensors"
                          % (shown, "the model's" if who == "the model" else who + ":",
                             sig.method, _describe(traced.outputs)))
    # Dynamic dims and data-dependent sizes: traced again at other sizes, each time from
    # the state the example trace started from; sizes become expressions.
    def retrace(resized, rows, names=None):
        restore()
        return trace(model, _copies(resized), model_dir, supported_ops, sig.method, names,
                     sig.name, rows)

    def forced(rows):
        registry.rewind(checkpoint)
        try:
            return retrace(inputs, rows, registry)
        except ExporterBug:
            raise
        except (Exception, SystemExit) as e:
            raise ExportError("%s: %s raised when traced with rows forced on a selection "
                              "that was empty at the example (%s): %s" % (
                                  shown, who, rows, exception_summary(e)), user_traceback(e))
    traced = select_rows_where_empty(traced, forced)
    shapes = sig.dynamic_shapes.with_symbols(row_count_symbols(traced))
    if shapes:
        fit_dynamic_shapes(traced, shapes, inputs, retrace, shown)
    return traced


def _copies(tensors):
    """Clones of the tensors (None stays None; one tensor passed twice, one clone)."""
    clones = {}
    for t in tensors:
        if t is not None and id(t) not in clones:
            clones[id(t)] = t.clone()
    return tuple(None if t is None else clones[id(t)] for t in tensors)


@contextlib.contextmanager
def _state_restored(model):
    """Every signature is traced from the same module state: buffers a trace writes in
    place (a step counter, a cache) are put back before the next one and at the end, and
    so are plain attributes a forward sets (torchvision's MultiScaleRoIAlign computes its
    scales on the first call only: a retrace would otherwise run other ops)."""
    saved = [(b, b.detach().clone()) for _, b in model.named_buffers()]
    attributes = [(m, dict(m.__dict__)) for m in model.modules()]
    def restore():
        with torch.no_grad():
            for buffer, value in saved:
                buffer.copy_(value)
        for module, before in attributes:
            for name in [n for n in module.__dict__ if n not in before]:
                del module.__dict__[name]
            for name, value in before.items():
                if module.__dict__.get(name, value) is not value or name not in module.__dict__:
                    module.__dict__[name] = value
    try:
        yield restore
    finally:
        restore()


def _weights_of(traces):
    """[(fqn, tensor)] of every graph, each FQN once (the first graph's tensor, which is
    the value from before any trace); the blob layout then shares storage."""
    seen, weights = set(), []
    for _, traced in traces:
        for fqn, tensor in traced.weights:
            if fqn not in seen:
                seen.add(fqn)
                weights.append((fqn, tensor))
    return weights


def _dispatch_entry(sig, traced):
    metas = {v.name: v.meta for v in traced.graph.values}
    entry = pb.DispatchEntry(graph=sig.name, method=sig.method)
    for name, value in traced.slots:
        slot = entry.slots.add(name=name, present=value is not None)
        if value is not None:
            slot.value = value
            slot.meta.CopyFrom(metas[value])
    return entry


def _describe(value):
    text = repr(value)
    return "%s %s" % (type(value).__name__, text if len(text) <= 60 else text[:57] + "...")
