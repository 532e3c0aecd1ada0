"""timm models (timm.create_model(name, pretrained=False), random weights, eval mode,
batch 1 at 224x224) compiled by pt2c and compared with PyTorch eager on a fresh random
input: max|diff| / max|ref| <= 1e-4.

Batch-norm statistics and affine parameters are randomized first, as in
test_cnn_zoo.py, so that batch norm is not almost the identity. The models bring timm's
own layers: a ViT (patch embedding as a strided convolution, fused-qkv attention through
scaled_dot_product_attention, layer norm, GELU), ConvNeXt (depthwise 7x7 convolutions in
channels-last layout, layer norm over channels, layer scale) and EfficientNet (squeeze
and excitation, SiLU, depthwise convolutions)."""
import pytest

from harness import check_against_eager, with_random_batch_norm, write_model

MODELS = ["vit_small_patch16_224", "convnext_atto", "efficientnet_b0"]


def timm_model_source(name):
    """The model.py of timm model `name` (tests/e2e/test_cuda_zoo.py reuses it)."""
    return with_random_batch_norm(f"""
        import torch
        import timm

        def model():
            torch.manual_seed(0)
            net = timm.create_model("{name}", pretrained=False).eval()
            return random_batch_norm(net)

        example_inputs = lambda: (torch.randn(1, 3, 224, 224),)
    """)


@pytest.mark.parametrize("name", MODELS)
def test_timm_model_matches_eager(name, pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, timm_model_source(name))
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)
