"""Every torchvision classification model of the installed torchvision exports: a graph
with nodes, a user output, and a draft report (the report may be empty; it must be there
and readable).

Random weights, batch 1, at a small input (64x64 where the model accepts it) so that the
sweep measures tracing, not convolution time. The full list is slow on a small machine
(README.md, Quick start): by default a fixed sample runs; PT2C_FULL_SWEEP=1 (which
.ci/run sets; tools/test.sh passes it to the torch 2.x run only) runs every model. Each model exports in-process through the
exporter's own `export()`, into a temporary file that is removed right after the checks
(the largest models have 2.5 GB of weights).

Run: PT2C_PB2_DIR=$PWD/bazel-bin/ir/artifact python -m pytest tests/exporter/test_torchvision_sweep.py
"""
import os
import textwrap
import time

import pytest
import torch
import torchvision

from exporter_harness import REPO  # first: puts pt2c_exporter and pt2c_pb2 on sys.path
import pt2c_pb2 as pb
from pt2c_exporter import aten_op_list
from pt2c_exporter.export import export

# One of each family, small ones: the default suite's sample.
SAMPLE = ["alexnet", "resnet18", "mobilenet_v3_small", "squeezenet1_1", "shufflenet_v2_x0_5",
          "mnasnet0_5", "googlenet", "efficientnet_b0", "regnet_x_400mf", "densenet121",
          "convnext_tiny", "swin_t", "vit_b_32", "inception_v3"]

# Constructor arguments and input sizes where 64x64 does not work: ViTs have a fixed
# position embedding (image_size must be a multiple of the patch), Inception v3's stem
# needs 75x75, MaxViT's 7x7 partitions need 224x224.
_BUILD_ARGS = {"vit_b_16": "image_size=64", "vit_b_32": "image_size=64",
               "vit_l_16": "image_size=64", "vit_l_32": "image_size=64",
               "vit_h_14": "image_size=56"}
_INPUT_SIZE = {"inception_v3": 80, "vit_h_14": 56, "maxvit_t": 224}


def classification_models():
    models = torchvision.models
    if hasattr(models, "list_models"):  # torchvision >= 0.14 (both installed versions)
        return sorted(models.list_models(module=models))
    return sorted(name for name, f in vars(models).items()  # pragma: no cover
                  if callable(f) and name[0].islower() and not name.startswith("_")
                  and name not in ("get_model", "get_weight", "get_model_weights"))


def selected_models():
    names = classification_models()
    if os.environ.get("PT2C_FULL_SWEEP") == "1":
        return names
    return [n for n in SAMPLE if n in names]


_TIMES = {}


def write_model_py(directory, name):
    size = _INPUT_SIZE.get(name, 64)
    path = directory / "model.py"
    path.write_text(textwrap.dedent("""\
        import torch
        import torchvision

        def model():
            torch.manual_seed(0)
            return torchvision.models.{name}(weights=None{args})

        example_inputs = lambda: (torch.randn(1, 3, {size}, {size}),)
        """).format(name=name, args=", " + _BUILD_ARGS[name] if name in _BUILD_ARGS else "",
                    size=size))
    return str(path)


@pytest.mark.parametrize("name", selected_models())
def test_classification_model_exports(name, tmp_path):
    model_py = write_model_py(tmp_path, name)
    output = str(tmp_path / "model.pt2c")
    ops = aten_op_list.load(os.path.join(REPO, "ir", "aten", "aten_ops.txt"))
    start = time.perf_counter()
    try:
        summary = export(model_py, output, ops)
        _TIMES[name] = time.perf_counter() - start
        from pt2c_exporter.reader import ArtifactFile
        artifact = ArtifactFile(output).message
    finally:
        if os.path.exists(output):
            os.unlink(output)
    assert len(artifact.graphs) == 1
    graph = artifact.graphs[0]
    assert len(graph.nodes) > 10
    assert any(o.kind == pb.OutputSpec.USER_OUTPUT for o in graph.outputs)
    logits = [o for o in graph.outputs if o.kind == pb.OutputSpec.USER_OUTPUT][0]
    meta = {v.name: v.meta for v in graph.values}[logits.value]
    assert [s.value for s in meta.sizes] == [1, 1000]
    # The report is part of the artifact and of the summary, findings or not.
    assert list(summary.report) == list(artifact.report)
    assert summary.report_text.startswith("draft report for ")


def teardown_module(module):
    if _TIMES:
        total = sum(_TIMES.values())
        slowest = sorted(_TIMES.items(), key=lambda kv: -kv[1])[:5]
        print("\ntorchvision sweep (torch %s): %d models exported in %.1f s; slowest: %s"
              % (torch.__version__, len(_TIMES), total,
                 ", ".join("%s %.1f s" % kv for kv in slowest)))
