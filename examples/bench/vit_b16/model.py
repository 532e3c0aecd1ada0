"""torchvision's vit_b_16 (ViT-B/16, random weights, eval mode), batch 1 at 224x224, fp32:
the ViT row of the CPU benchmark (tools/bench_cpu.py). examples/vit_b16_fp16 is the same
model in fp16.

    pt2c examples/bench/vit_b16/model.py --cpu native -o vit_b16.so
    tools/bench_cpu.py examples/bench/vit_b16/model.py vit_b16.so

About 330 MiB of fp32 weights (`--external-weights` keeps them out of the .so).
"""
import importlib.util
import pathlib

import torch
import torchvision

# examples/seeded_weights.py, two folders up: weights that do not depend on the
# torchvision version (and a head that is not zero-initialized).
_spec = importlib.util.spec_from_file_location(
    "seeded_weights", pathlib.Path(__file__).resolve().parents[2] / "seeded_weights.py")
_seeded = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_seeded)


def model():
    torch.manual_seed(0)  # the same weights on every export
    return _seeded.seeded_weights(torchvision.models.vit_b_16(weights=None)).eval()


def example_inputs():
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(1, 3, 224, 224, generator=generator),)
