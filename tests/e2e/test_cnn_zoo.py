"""torchvision CNNs (random weights, eval mode, batch 1 at 224x224) compiled by pt2c and
compared with PyTorch eager on a fresh random input: max|diff| / max|ref| <= 1e-4.

Batch-norm statistics and affine parameters are randomized first: torchvision's
defaults (mean 0, var 1, weight 1, bias 0) would leave batch norm almost the
identity and untested. Each test exports, compiles, makes the eager reference and runs
the .so; the models emit convolution (plain, strided, grouped, depthwise),
native_batch_norm, relu_/hardtanh_/hardswish_/silu_/hardsigmoid/sigmoid, add_/mul,
max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d, mean.dim, cat, view and
addmm."""
import pytest

from harness import check_against_eager, with_random_batch_norm, write_model

MODELS = [
    "resnet18",
    "mobilenet_v2",
    "mobilenet_v3_small",
    "squeezenet1_1",
    "vgg11_bn",
    "efficientnet_b0",
    "regnet_y_400mf",
    "densenet121",
    "resnet50",
]


def torchvision_model_source(name):
    """The model.py of torchvision model `name` (tools/zoo_report.py reuses it)."""
    return with_random_batch_norm(f"""
        import torch
        import torchvision

        def model():
            torch.manual_seed(0)
            net = torchvision.models.{name}(weights=None).eval()
            return random_batch_norm(net)

        example_inputs = lambda: (torch.randn(1, 3, 224, 224),)
    """)


@pytest.mark.parametrize("name", MODELS)
def test_torchvision_model_matches_eager(name, pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, torchvision_model_source(name))
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)
