"""The export pipeline: model.py -> trace -> artifact file."""
import os
import platform

import torch
import pt2c_pb2 as pb

from .model_loader import load_model
from .report import summary as report_summary
from .report_text import format_report
from .tracer import ExporterBug, trace
from .user_errors import ExportError, exception_summary, user_traceback
from .weights import BlobLayout
from .writer import write_artifact

FORMAT_VERSION = 1


class Summary:
    def __init__(self, ops, weights, weight_bytes, artifact):
        self.ops = ops
        self.weights = weights
        self.weight_bytes = weight_bytes
        self.report = list(artifact.report)
        self.report_text = format_report(artifact.report, artifact.model_path, artifact.producer)


def export(model_path, output_path, supported_ops=None, strict=False):
    """supported_ops: names from aten_ops.txt (None: not checked). strict: any draft
    report finding is an ExportError, and nothing is written."""
    model, example_inputs = load_model(model_path)
    shown = os.path.basename(model_path)
    try:
        traced = trace(model, example_inputs, os.path.dirname(os.path.abspath(model_path)),
                       supported_ops)
    except ExporterBug:
        raise
    except (Exception, SystemExit) as e:
        raise ExportError("%s: the model raised during tracing: %s" % (shown, exception_summary(e)),
                          user_traceback(e))
    if not any(o.kind == pb.OutputSpec.USER_OUTPUT for o in traced.graph.outputs):
        raise ExportError("%s: the model's output contains no tensor (it returned %s); expected "
                          "a tensor, or a tuple/list/dict holding tensors"
                          % (shown, _describe(traced.outputs)))

    layout = BlobLayout(traced.weights)
    artifact = pb.Artifact(
        format_version=FORMAT_VERSION,
        producer="pt2c-exporter torch=%s python=%s" % (torch.__version__, platform.python_version()),
        model_path=model_path)
    artifact.graphs.append(traced.graph)
    artifact.weights.extend(layout.entries)
    artifact.report.extend(traced.report.entries())
    summary = Summary(len(traced.graph.nodes), len(layout.entries), layout.data_bytes, artifact)
    if strict and summary.report:
        raise ExportError("%s: --strict: the draft report has %s; nothing was written"
                          % (shown, report_summary(summary.report)), summary.report_text)
    try:
        write_artifact(output_path, artifact, layout)
    except OSError as e:
        raise ExportError("cannot write %s: %s" % (output_path, e.strerror or e))
    return summary


def _describe(value):
    text = repr(value)
    return "%s %s" % (type(value).__name__, text if len(text) <= 60 else text[:57] + "...")
