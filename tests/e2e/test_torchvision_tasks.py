"""A sweep of torchvision's models beyond classification (classification: the exporter's
tests/exporter/test_torchvision_sweep.py and test_cnn_zoo.py): every segmentation, video,
optical-flow and detection model torchvision lists, random weights, eval mode, small
inputs where the model allows, compiled by pt2c and compared with PyTorch eager on a
fresh random input (max|diff| / max|ref| <= 1e-4; batch-norm statistics randomized, as in
test_cnn_zoo.py).

What each returns: segmentation the `out` map; video the class scores; optical flow the
last of the flow predictions (RAFT with 4 refinement steps instead of 12, to keep the
compile short); detection the boxes, scores and labels of the first image, whose count
depends on the input (post-processing with score thresholds and non-maximum
suppression), with PyTorch's default initialization of the layers (_DEFAULT_INIT) and
compared as a set of detections in which equally scored ones may swap
(tools/detection_match.py).

Which architectures run is harness.sweep_selection's choice (the fixed SAMPLE by
default, CI adds CI_DRAW drawn by the day); failures recorded in docs/zoo_sweeps.json
are xfail, and tools/sweep_report.py --sweep torchvision records them (docs/ZOO.md,
"Sweeps")."""
import numpy as np
import pytest

from detection_match import detection_error
from harness import (check_against_eager, compile_model, eager_data, run_against_references,
                     sweep_params, with_random_batch_norm, write_model)

SEGMENTATION, VIDEO, OPTICAL_FLOW, DETECTION = (
    "segmentation", "video", "optical flow", "detection")

_SEGMENT = dict(weights=None, weights_backbone=None, num_classes=8)
_DETECT = dict(weights=None, weights_backbone=None, num_classes=5, min_size=128, max_size=128)
_CLIP = (1, 3, 8, 112, 112)  # [batch, channels, frames, height, width]
_CLIP16 = (1, 3, 16, 224, 224)  # MViT's positional embeddings and S3D's pooling need these

# name -> (family, torchvision.models attribute, keyword arguments, input shape)
ARCHITECTURES = {
    "deeplabv3_mobilenet_v3_large": (SEGMENTATION, "segmentation.deeplabv3_mobilenet_v3_large",
                                     _SEGMENT, (1, 3, 96, 96)),
    "deeplabv3_resnet50": (SEGMENTATION, "segmentation.deeplabv3_resnet50", _SEGMENT,
                           (1, 3, 64, 64)),
    "deeplabv3_resnet101": (SEGMENTATION, "segmentation.deeplabv3_resnet101", _SEGMENT,
                            (1, 3, 64, 64)),
    "fcn_resnet50": (SEGMENTATION, "segmentation.fcn_resnet50", _SEGMENT, (1, 3, 64, 64)),
    "fcn_resnet101": (SEGMENTATION, "segmentation.fcn_resnet101", _SEGMENT, (1, 3, 64, 64)),
    "lraspp_mobilenet_v3_large": (SEGMENTATION, "segmentation.lraspp_mobilenet_v3_large",
                                  _SEGMENT, (1, 3, 96, 96)),
    "r3d_18": (VIDEO, "video.r3d_18", dict(weights=None, num_classes=10), _CLIP),
    "mc3_18": (VIDEO, "video.mc3_18", dict(weights=None, num_classes=10), _CLIP),
    "r2plus1d_18": (VIDEO, "video.r2plus1d_18", dict(weights=None, num_classes=10), _CLIP),
    "s3d": (VIDEO, "video.s3d", dict(weights=None, num_classes=10), _CLIP16),
    "mvit_v1_b": (VIDEO, "video.mvit_v1_b", dict(weights=None, num_classes=10), _CLIP16),
    "mvit_v2_s": (VIDEO, "video.mvit_v2_s", dict(weights=None, num_classes=10), _CLIP16),
    "swin3d_t": (VIDEO, "video.swin3d_t", dict(weights=None, num_classes=10), _CLIP),
    "swin3d_s": (VIDEO, "video.swin3d_s", dict(weights=None, num_classes=10), _CLIP),
    "swin3d_b": (VIDEO, "video.swin3d_b", dict(weights=None, num_classes=10), _CLIP),
    "raft_small": (OPTICAL_FLOW, "optical_flow.raft_small", dict(weights=None), (1, 3, 128, 128)),
    "raft_large": (OPTICAL_FLOW, "optical_flow.raft_large", dict(weights=None), (1, 3, 128, 128)),
    "fasterrcnn_mobilenet_v3_large_320_fpn": (
        DETECTION, "detection.fasterrcnn_mobilenet_v3_large_320_fpn", _DETECT, (1, 3, 128, 128)),
    "fasterrcnn_mobilenet_v3_large_fpn": (
        DETECTION, "detection.fasterrcnn_mobilenet_v3_large_fpn", _DETECT, (1, 3, 128, 128)),
    "fasterrcnn_resnet50_fpn": (DETECTION, "detection.fasterrcnn_resnet50_fpn", _DETECT,
                                (1, 3, 128, 128)),
    "fasterrcnn_resnet50_fpn_v2": (DETECTION, "detection.fasterrcnn_resnet50_fpn_v2", _DETECT,
                                   (1, 3, 128, 128)),
    "fcos_resnet50_fpn": (DETECTION, "detection.fcos_resnet50_fpn", _DETECT, (1, 3, 128, 128)),
    "keypointrcnn_resnet50_fpn": (DETECTION, "detection.keypointrcnn_resnet50_fpn",
                                  dict(_DETECT, num_classes=2), (1, 3, 128, 128)),
    "maskrcnn_resnet50_fpn": (DETECTION, "detection.maskrcnn_resnet50_fpn", _DETECT,
                              (1, 3, 128, 128)),
    "maskrcnn_resnet50_fpn_v2": (DETECTION, "detection.maskrcnn_resnet50_fpn_v2", _DETECT,
                                 (1, 3, 128, 128)),
    "retinanet_resnet50_fpn": (DETECTION, "detection.retinanet_resnet50_fpn", _DETECT,
                               (1, 3, 128, 128)),
    "retinanet_resnet50_fpn_v2": (DETECTION, "detection.retinanet_resnet50_fpn_v2", _DETECT,
                                  (1, 3, 128, 128)),
    "ssd300_vgg16": (DETECTION, "detection.ssd300_vgg16",
                     dict(weights=None, weights_backbone=None, num_classes=5), (1, 3, 300, 300)),
    "ssdlite320_mobilenet_v3_large": (
        DETECTION, "detection.ssdlite320_mobilenet_v3_large",
        dict(weights=None, weights_backbone=None, num_classes=5), (1, 3, 320, 320)),
}

# The default run: one small model of the two families that compile quickly.
SAMPLE = ["lraspp_mobilenet_v3_large", "r3d_18"]
# How many more CI's daily draw adds (these models are larger than the other sweeps').
CI_DRAW = 2

# forward() per family: what of the model's output is compared.
_FORWARD = {
    SEGMENTATION: "def forward(self, x):\n        return self.net(x)['out']",
    VIDEO: "def forward(self, x):\n        return self.net(x)",
    OPTICAL_FLOW: ("def forward(self, a, b):\n"
                   "        return self.net(a, b, num_flow_updates=4)[-1]"),
    DETECTION: ("def forward(self, x):\n"
                "        found = self.net([x[0]])[0]\n"
                "        return found['boxes'], found['scores'], found['labels']"),
}


# torchvision's detection heads start near-constant (weights of std 0.01, a bias of the
# prior probability 0.01): with random weights elsewhere every box then scores alike,
# saturated at 1 or below the score threshold (FCOS detected nothing). PyTorch's default
# initialization of every convolution and linear layer spreads the scores as a trained
# detector's are spread.
_DEFAULT_INIT = """
    for m in net.modules():
        if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
            m.reset_parameters()"""


def model_source(name):
    """The model.py of architecture `name`."""
    family, builder, kwargs, shape = ARCHITECTURES[name]
    args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    inputs = 2 if family == OPTICAL_FLOW else 1
    examples = ", ".join([f"torch.randn({shape})"] * inputs)
    init = _DEFAULT_INIT if family == DETECTION else ""
    return with_random_batch_norm(f"""
import torch
import torchvision


class Task(torch.nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    {_FORWARD[family]}


def model():
    torch.manual_seed(0)
    net = torchvision.models.{builder}({args}).eval(){init}
    return Task(random_batch_norm(net))


example_inputs = lambda: ({examples},)
""")


@pytest.mark.parametrize("name", sweep_params("torchvision", ARCHITECTURES, SAMPLE, CI_DRAW))
def test_torchvision_task_model_matches_eager(name, pt2c, cpp_host, python, tmp_path):
    pytest.importorskip("torchvision")
    model = write_model(tmp_path, model_source(name))
    if ARCHITECTURES[name][0] != DETECTION:
        check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)
        return
    so = compile_model(pt2c, model, tmp_path)
    inputs, refs = eager_data(python, model, tmp_path / "data")
    run_against_references(cpp_host, so, inputs, [], tmp_path / "out", 1e-4)
    written = sorted((tmp_path / "out").glob("*.npy"), key=lambda p: int(p.stem.split("_")[0]))
    error = detection_error([np.load(p) for p in written], [np.load(p) for p in refs], 1e-4)
    assert error <= 1e-4, f"detections differ from eager's: {error}"
