"""torchvision's vit_b_16 (random weights, eval mode, batch 1 at 224x224) compiled by
pt2c and compared with PyTorch eager on a fresh random input: max|diff| / max|ref| <=
1e-4.

torchvision initializes the classification head to zeros, which would make every
output 0 and the comparison empty; the head gets random weights first. The model's
nn.MultiheadAttention layers are steered off their fused kernel
(aten::_native_multi_head_attention) onto the composite path: the class token is
concatenated to the patch embedding (a strided convolution), then 12 encoder blocks of
layer norm, attention (linear, scaled_dot_product_attention) and a GELU MLP."""
from harness import check_against_eager, write_model


# The model.py (tests/e2e/test_cuda_zoo.py compiles it for CUDA too).
VIT_B_16 = """
        import torch
        import torchvision

        def model():
            torch.manual_seed(0)
            net = torchvision.models.vit_b_16(weights=None).eval()
            torch.nn.init.normal_(net.heads.head.weight, std=0.02)
            torch.nn.init.normal_(net.heads.head.bias, std=0.02)
            return net

        example_inputs = lambda: (torch.randn(1, 3, 224, 224),)
"""


def test_vit_b_16_matches_eager(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, VIT_B_16)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)
