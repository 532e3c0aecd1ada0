"""timm architectures (timm.create_model(name, pretrained=False), random weights, eval
mode, batch 1) compiled by pt2c and compared with PyTorch eager on a fresh random input:
max|diff| / max|ref| <= 1e-4.

ARCHITECTURES is a sweep over timm's families (convnets, vision transformers, hybrids
and MLP models), the smallest variant of each at a small input (64x64 where the model
takes it; ViTs and other models with a fixed position embedding or attention bias get
an `img_size`, deep transformers fewer blocks) to keep compile time down. Which of them
run (harness.sweep_selection):

- by default the fixed sample MODELS, at 224x224: a ViT (patch embedding as a strided
  convolution, fused-qkv attention through scaled_dot_product_attention, layer norm,
  GELU), ConvNeXt (depthwise 7x7 convolutions in channels-last layout, layer norm over
  channels, layer scale) and EfficientNet (squeeze and excitation, SiLU, depthwise
  convolutions);
- otherwise as harness.sweep_selection says (CI's daily draw, PT2C_SWEEP=all or names);
  harness.sweep_params makes the failures docs/zoo_sweeps.json records xfail (results:
  docs/ZOO.md, "Sweeps"; tools/sweep_report.py records them).
Batch-norm statistics and affine parameters are randomized first, as in
test_cnn_zoo.py, so that batch norm is not almost the identity."""
import pytest

from harness import check_against_eager, sweep_params, with_random_batch_norm, write_model

CONVNET, VIT, HYBRID, MLP = "convnet", "vision transformer", "hybrid", "MLP"

# name -> (family, timm.create_model keyword arguments, input height and width)
ARCHITECTURES = {
    # convnets
    "resnet18": (CONVNET, {}, 64),
    "resnext26ts": (CONVNET, {}, 64),
    "regnetx_002": (CONVNET, {}, 64),
    "regnety_002": (CONVNET, {}, 64),
    "densenet121": (CONVNET, {}, 64),
    "dpn48b": (CONVNET, {}, 64),
    "res2net50_14w_8s": (CONVNET, {}, 64),
    "resnest14d": (CONVNET, {}, 64),
    "skresnet18": (CONVNET, {}, 64),
    "ghostnet_050": (CONVNET, {}, 64),
    "ghostnetv2_100": (CONVNET, {}, 64),
    "mobilenetv3_small_050": (CONVNET, {}, 64),
    "mobilenetv4_conv_small": (CONVNET, {}, 64),
    "efficientnet_b0": (CONVNET, {}, 224),
    "efficientnetv2_rw_t": (CONVNET, {}, 64),
    "mnasnet_small": (CONVNET, {}, 64),
    "lcnet_050": (CONVNET, {}, 64),
    "rexnet_100": (CONVNET, {}, 64),
    "hrnet_w18_small": (CONVNET, {}, 64),
    "ese_vovnet19b_slim_dw": (CONVNET, {}, 64),
    "cspresnet50": (CONVNET, {}, 64),
    "cspdarknet53": (CONVNET, {}, 64),
    "darknet17": (CONVNET, {}, 64),
    "repvgg_a0": (CONVNET, {}, 64),
    "gernet_s": (CONVNET, {}, 64),
    "hgnetv2_b0": (CONVNET, {}, 64),
    "convnext_atto": (CONVNET, {}, 224),
    "convnextv2_atto": (CONVNET, {}, 64),
    "inception_v3": (CONVNET, {}, 96),
    "inception_next_tiny": (CONVNET, {}, 64),
    "xception41": (CONVNET, {}, 64),
    "nf_resnet26": (CONVNET, {}, 64),
    "dm_nfnet_f0": (CONVNET, {}, 64),
    "dla34": (CONVNET, {}, 64),
    "selecsls42b": (CONVNET, {}, 64),
    "tresnet_m": (CONVNET, {}, 64),
    "repvit_m1": (CONVNET, {}, 64),
    "rdnet_tiny": (CONVNET, {}, 64),
    "vgg11": (CONVNET, {}, 64),
    "fasternet_t0": (CONVNET, {}, 64),
    "starnet_s1": (CONVNET, {}, 64),
    "mambaout_femto": (CONVNET, {}, 64),
    # vision transformers
    "vit_small_patch16_224": (VIT, {}, 224),
    "vit_tiny_patch16_224": (VIT, {"img_size": 64}, 64),
    "deit_tiny_patch16_224": (VIT, {"img_size": 64}, 64),
    "beit_base_patch16_224": (VIT, {"img_size": 64, "depth": 2}, 64),
    "eva02_tiny_patch14_224": (VIT, {"img_size": 56, "depth": 2}, 56),
    "cait_xxs24_224": (VIT, {"img_size": 64, "depth": 2}, 64),
    "xcit_nano_12_p16_224": (VIT, {"img_size": 64, "depth": 2}, 64),
    "swin_tiny_patch4_window7_224": (VIT, {"img_size": 112, "depths": (1, 1, 2, 1)}, 112),
    "swinv2_tiny_window8_256": (VIT, {"img_size": 128, "window_size": 4,
                                      "depths": (1, 1, 2, 1)}, 128),
    "pvt_v2_b0": (VIT, {}, 64),
    "twins_svt_small": (VIT, {"depths": (1, 1, 2, 1)}, 64),
    "crossvit_tiny_240": (VIT, {"img_size": 120}, 120),
    "levit_128s": (VIT, {"img_size": 64}, 64),
    "mvitv2_tiny": (VIT, {"img_size": 64}, 64),
    "tiny_vit_5m_224": (VIT, {}, 64),
    "pit_ti_224": (VIT, {"img_size": 64}, 64),
    "davit_tiny": (VIT, {"depths": (1, 1, 2, 1)}, 64),
    "hiera_tiny_224": (VIT, {"img_size": 64}, 64),
    # hybrids of convolutions and attention (or token mixers)
    "coatnet_nano_rw_224": (HYBRID, {"img_size": 64}, 64),
    "maxvit_nano_rw_256": (HYBRID, {"img_size": 64}, 64),
    "mobilevit_xxs": (HYBRID, {}, 64),
    "mobilevitv2_050": (HYBRID, {}, 64),
    "efficientformer_l1": (HYBRID, {}, 224),
    "efficientformerv2_s0": (HYBRID, {"img_size": 64}, 64),
    "fastvit_t8": (HYBRID, {}, 64),
    "edgenext_xx_small": (HYBRID, {}, 64),
    "poolformer_s12": (HYBRID, {}, 64),
    "convformer_s18": (HYBRID, {}, 64),
    "caformer_s18": (HYBRID, {}, 64),
    "convit_tiny": (HYBRID, {"img_size": 64}, 64),
    "efficientvit_b0": (HYBRID, {}, 64),
    "efficientvit_m0": (HYBRID, {"img_size": 64}, 64),
    "gcvit_xxtiny": (HYBRID, {"img_size": 64}, 64),
    "focalnet_tiny_srf": (HYBRID, {}, 64),
    # MLP models
    "mixer_s16_224": (MLP, {"img_size": 64}, 64),
    "resmlp_12_224": (MLP, {"img_size": 64}, 64),
    "gmlp_ti16_224": (MLP, {"img_size": 64}, 64),
    "sequencer2d_s": (MLP, {}, 64),
}

# The default run's fixed sample (tests/e2e/test_cuda_zoo.py compiles these too).
MODELS = ["vit_small_patch16_224", "convnext_atto", "efficientnet_b0"]


def timm_model_source(name):
    """The model.py of timm model `name` (tests/e2e/test_cuda_zoo.py reuses it)."""
    _, kwargs, size = ARCHITECTURES[name]
    args = "".join(f", {k}={v!r}" for k, v in kwargs.items())
    return with_random_batch_norm(f"""
        import torch
        import timm

        def model():
            torch.manual_seed(0)
            net = timm.create_model("{name}", pretrained=False{args}).eval()
            return random_batch_norm(net)

        example_inputs = lambda: (torch.randn(1, 3, {size}, {size}),)
    """)


@pytest.mark.parametrize("name", sweep_params("timm", ARCHITECTURES, MODELS))
def test_timm_model_matches_eager(name, pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, timm_model_source(name))
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)
