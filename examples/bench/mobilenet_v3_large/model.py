"""torchvision's mobilenet_v3_large (MobileNetV3-Large; random weights, eval mode), batch 1
at 224x224, fp32: a CNN row of the CPU benchmark (tools/bench_cpu.py).

    pt2c examples/bench/mobilenet_v3_large/model.py --cpu native -o mobilenet_v3_large.so
    tools/bench_cpu.py examples/bench/mobilenet_v3_large/model.py mobilenet_v3_large.so

Weights, randomized batch norm and the input come from ../torchvision_cnn.py.
"""

import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "torchvision_cnn", pathlib.Path(__file__).resolve().parents[1] / "torchvision_cnn.py")
_cnn = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cnn)


def model():
    return _cnn.model("mobilenet_v3_large")


def example_inputs():
    return _cnn.example_inputs()
