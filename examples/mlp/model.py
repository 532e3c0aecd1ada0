"""A two-layer MLP: the smallest model that exercises the whole pt2c pipeline.

    pt2c examples/mlp/model.py -o mlp.so
"""
import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 256)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        h = self.fc1(x)
        h = self.act(h)
        return self.fc2(h)


def model():
    torch.manual_seed(0)  # the same weights on every export
    return MLP()


def example_inputs():
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(8, 64, generator=generator),)
