"""torchvision's resnet50 (ResNet-50; random weights, eval mode), batch 1
at 224x224, fp32: a CNN row of the CPU benchmark (tools/bench_cpu.py).

    pt2c examples/bench/resnet50/model.py --cpu native -o resnet50.so
    tools/bench_cpu.py examples/bench/resnet50/model.py resnet50.so

Batch-norm statistics and affine parameters are randomized (torchvision's defaults would
make batch norm almost the identity and hide errors in folding it), as in
examples/resnet18.
"""
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


def model():
    torch.manual_seed(0)  # the same weights on every export
    return randomize_batch_norm(torchvision.models.resnet50(weights=None).eval())


def example_inputs():
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(1, 3, 224, 224, generator=generator),)
