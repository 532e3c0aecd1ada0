"""examples/resnet18 in fp16 (`model.half()`, fp16 input), batch 1 at 224x224: the issue's
resnet18 fp16 latency row in docs/BENCHMARKS.md.

    pt2c examples/resnet18_fp16/model.py --target cuda -o resnet18_fp16_cuda.so

Convolutions run as fp16 cuDNN calls (f32 accumulation) with their epilogues fused where
recognized; 23 MiB of fp16 weights are embedded in the .so.
"""
import importlib.util
import pathlib

import torch

_spec = importlib.util.spec_from_file_location(
    "resnet18_fp32", pathlib.Path(__file__).resolve().parent.parent / "resnet18" / "model.py")
_fp32 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fp32)


def model():
    return _fp32.model().half()


def example_inputs():
    return tuple(x.half() for x in _fp32.example_inputs())
