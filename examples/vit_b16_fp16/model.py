"""torchvision's vit_b_16 (random weights, eval mode) in fp16 (`model.half()`), batch 1 at
224x224: the issue's ViT-B/16 fp16 latency row in docs/BENCHMARKS.md.

    pt2c examples/vit_b16_fp16/model.py --target cuda --external-weights -o vit_b16_fp16_cuda.so

About 165 MiB of fp16 weights, hence external weights when the .so must travel light.
"""
import torch
import torchvision


def seeded_weights(net):
    """Draws every parameter from one seeded generator, module by module in definition
    order, instead of keeping the library's init: the GPU machine remakes the weights
    file from this model.py (`python -m pt2c_exporter weights`), possibly with another
    torchvision whose init consumes random numbers in another order. LayerNorm gets weights
    near 1; everything else N(0, 0.02)."""
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for module in net.modules():
            for name, p in module.named_parameters(recurse=False):
                p.normal_(0.0, 0.1 if isinstance(module, torch.nn.LayerNorm) else 0.02,
                          generator=g)
                if isinstance(module, torch.nn.LayerNorm) and name == "weight":
                    p.add_(1.0)
    return net


def model():
    torch.manual_seed(0)  # the same weights on every export, here and on the GPU machine
    return seeded_weights(torchvision.models.vit_b_16(weights=None)).eval().half()


def example_inputs():
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(1, 3, 224, 224, generator=generator).half(),)
