"""torchvision's resnet18 (random weights, eval mode), batch 1 at 224x224, fp32: the CNN
row of docs/BENCHMARKS.md.

    pt2c examples/resnet18/model.py --target cuda -o resnet18_cuda.so

On a GPU every convolution is one cuDNN call with its folded batch norm (a bias) and, where
one follows, the ReLU or the block's residual add + ReLU fused in; the final Linear is a
cuBLASLt matmul. Batch-norm statistics are randomized (torchvision's defaults would make
batch norm almost the identity and hide errors in folding it).
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
    return randomize_batch_norm(torchvision.models.resnet18(weights=None).eval())


def example_inputs():
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(1, 3, 224, 224, generator=generator),)
