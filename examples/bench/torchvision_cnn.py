"""What the torchvision CNN rows of the CPU benchmark share (examples/bench/NAME/model.py
load this file by path): the network in eval mode with torchvision's random init and
randomized batch norm (torchvision's defaults would make batch norm almost the identity
and hide errors in folding it, as examples/resnet18 says), and one 224x224 image."""
import torch
import torchvision


def randomize_batch_norm(net):
    generator = torch.Generator().manual_seed(1)
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.rand(n, generator=generator) - 0.5)
            m.running_var.copy_(torch.rand(n, generator=generator) + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=generator) + 0.5)
            m.bias.data.copy_(torch.rand(n, generator=generator) - 0.5)
    return net


def model(name):
    torch.manual_seed(0)  # the same weights on every export
    return randomize_batch_norm(getattr(torchvision.models, name)(weights=None).eval())


def example_inputs():
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(1, 3, 224, 224, generator=generator),)
