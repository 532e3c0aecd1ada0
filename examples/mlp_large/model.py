"""The benchmark MLP of docs/BENCHMARKS.md: 1024 -> 4096 -> 1024, ReLU, fp32, batch 64.

    pt2c examples/mlp_large/model.py --target cuda -o mlp_large_cuda.so

On a GPU each Linear is one cuBLASLt matmul with its bias (and the ReLU) fused in.
The weights are 32 MiB of fp32, embedded in the .so.
"""
import torch
from torch import nn

BATCH, IN, HIDDEN, OUT = 64, 1024, 4096, 1024


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(IN, HIDDEN)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(HIDDEN, OUT)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def model():
    torch.manual_seed(0)  # the same weights on every export
    return MLP()


def example_inputs():
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(BATCH, IN, generator=generator),)
