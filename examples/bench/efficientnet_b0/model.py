"""torchvision's efficientnet_b0 (EfficientNet-B0; random weights, eval mode), batch 1
at 224x224, fp32: a CNN row of the CPU benchmark (tools/bench_cpu.py).

    pt2c examples/bench/efficientnet_b0/model.py --cpu native -o efficientnet_b0.so
    tools/bench_cpu.py examples/bench/efficientnet_b0/model.py efficientnet_b0.so

Weights, randomized batch norm and the input come from ../torchvision_cnn.py.
"""

import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "torchvision_cnn", pathlib.Path(__file__).resolve().parents[1] / "torchvision_cnn.py")
_cnn = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cnn)


def model():
    return _cnn.model("efficientnet_b0")


def example_inputs():
    return _cnn.example_inputs()
