"""torchvision's vit_b_16 (random weights, eval mode) in fp16 (`model.half()`), batch 1 at
224x224: the issue's ViT-B/16 fp16 latency row in docs/BENCHMARKS.md.

    pt2c examples/vit_b16_fp16/model.py --target cuda --external-weights -o vit_b16_fp16_cuda.so

About 165 MiB of fp16 weights, hence external weights when the .so must travel light.
"""
import importlib.util
import pathlib

import torch
import torchvision


# examples/seeded_weights.py, one folder up (in a GPU bundle too: make_big_cuda_bundle.sh)
_spec = importlib.util.spec_from_file_location(
    "seeded_weights", pathlib.Path(__file__).resolve().parent.parent / "seeded_weights.py")
_seeded = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_seeded)


def model():
    torch.manual_seed(0)  # the same weights on every export, here and on the GPU machine
    return _seeded.seeded_weights(torchvision.models.vit_b_16(weights=None)).eval().half()


def example_inputs():
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(1, 3, 224, 224, generator=generator).half(),)
