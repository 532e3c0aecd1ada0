"""Random weights that do not depend on the library version: every parameter drawn from
one seeded generator, module by module in definition order, instead of the library's
init. The GPU machine remakes an external weights file from model.py (`python -m
pt2c_exporter weights`), possibly with another transformers or torchvision whose init
consumes random numbers in another order (torchvision even zero-initializes ViT's head,
which would make every logit 0 and the numerics check unable to fail). Normalization
layers (LayerNorm, GroupNorm, batch norm, and library classes named ...Norm such as RMS
norms) get weights near 1, so that deep networks keep their activations' scale;
everything else N(0, 0.02).

model.py files load this file by path (examples/NAME/model.py -> examples/, and in a GPU
bundle BUNDLE/NAME/model.py -> BUNDLE/, where tests/gpu/make_big_cuda_bundle.sh puts a
copy)."""
import torch


def is_norm(module):
    return (isinstance(module, (torch.nn.LayerNorm, torch.nn.GroupNorm,
                                torch.nn.modules.batchnorm._BatchNorm))
            or type(module).__name__.endswith("Norm"))


def seeded_weights(net):
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for module in net.modules():
            norm = is_norm(module)
            for name, p in module.named_parameters(recurse=False):
                p.normal_(0.0, 0.1 if norm else 0.02, generator=g)
                if norm and name == "weight":
                    p.add_(1.0)
    return net
