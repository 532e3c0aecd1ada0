"""What the torchvision CNN rows of the CPU benchmark share (examples/bench/NAME/model.py
load this file by path): the network in eval mode with torchvision's random init and the
batch norm randomized as examples/resnet18/model.py does it (torchvision's defaults would
make batch norm almost the identity and hide errors in folding it), and its 224x224
image. resnet18's model.py stays self-contained (GPU bundles copy it alone), so this file
loads it instead of the other way round."""
import importlib.util
import pathlib

import torch
import torchvision

_spec = importlib.util.spec_from_file_location(
    "resnet18_model", pathlib.Path(__file__).resolve().parents[1] / "resnet18" / "model.py")
_resnet18 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_resnet18)

example_inputs = _resnet18.example_inputs


def model(name):
    torch.manual_seed(0)  # the same weights on every export
    return _resnet18.randomize_batch_norm(getattr(torchvision.models, name)(weights=None).eval())
