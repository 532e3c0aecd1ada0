"""A multi-graph model for tests/gpu/multigraph: forward(x, mask=None) traced with and
without the mask and at two batch sizes, an `encode` method, and a running sum kept as
model state that every forward graph adds to and `total` reads. Its 2048 x 2048 layer
(16 MiB) makes the device memory of the weights easy to see: they must be on the GPU
once, not once per graph (check.py compares with one_graph.py, the same model with one
graph)."""
import torch
from torch import nn

WIDTH = 2048


class MultiGraph(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.big = nn.Linear(WIDTH, WIDTH)
        self.head = nn.Linear(WIDTH, 8)
        self.register_buffer("running", torch.zeros(8))

    def forward(self, x, mask=None):
        y = self.head(torch.relu(self.big(x)))
        if mask is not None:
            y = y.masked_fill(mask, 0.0)
        self.running.add_(y.sum(0))
        return y

    def encode(self, x):
        return torch.tanh(self.big(x)) * 2.0

    def total(self, x):
        return self.running + 0.0 * x


model = MultiGraph()


def signatures():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, WIDTH, generator=g)
    return {
        "masked": (x, torch.rand(2, 8, generator=g) > 0.5),
        "plain": (x, None),
        "plain_batch8": (torch.randn(8, WIDTH, generator=g), None),
        "encode": {"method": "encode", "inputs": (x,)},
        "total": {"method": "total", "inputs": (torch.zeros(8),)},
    }
