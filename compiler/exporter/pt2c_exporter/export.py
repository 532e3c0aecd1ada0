"""The export pipeline: model.py -> trace -> artifact file."""
import os
import platform

import torch
import pt2c_pb2 as pb

from .model_loader import load_model
from .tracer import ExporterBug, trace
from .user_errors import ExportError, exception_summary, user_traceback
from .weights import BlobLayout
from .writer import write_artifact

FORMAT_VERSION = 1


class Summary:
    def __init__(self, ops, weights, weight_bytes, findings):
        self.ops = ops
        self.weights = weights
        self.weight_bytes = weight_bytes
        self.findings = findings


def export(model_path, output_path):
    model, example_inputs = load_model(model_path)
    shown = os.path.basename(model_path)
    try:
        traced = trace(model, example_inputs, os.path.dirname(os.path.abspath(model_path)))
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
    try:
        write_artifact(output_path, artifact, layout)
    except OSError as e:
        raise ExportError("cannot write %s: %s" % (output_path, e.strerror or e))
    return Summary(len(traced.graph.nodes), len(layout.entries), layout.data_bytes,
                   len(artifact.report))


def _describe(value):
    text = repr(value)
    return "%s %s" % (type(value).__name__, text if len(text) <= 60 else text[:57] + "...")
