"""torchvision's resnet50 in fp32, 224x224 (tests/gpu/bench_set/bench_models.py)."""
import importlib.util
import pathlib

import torch

# bench_models.py: beside this file in the source tree, one folder up in a GPU bundle.
_here = pathlib.Path(__file__).resolve()
_path = next(p / "bench_models.py" for p in _here.parents if (p / "bench_models.py").is_file())
_spec = importlib.util.spec_from_file_location("bench_models", _path)
_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bench)


def model():
    return _bench.torchvision_model("resnet50", torch.float32)


def example_inputs():
    return _bench.image(224, torch.float32)
