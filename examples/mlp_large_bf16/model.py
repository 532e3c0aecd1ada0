"""examples/mlp_large (1024 -> 4096 -> 1024, ReLU, batch 64) in bf16: `model.to(torch.bfloat16)`
with bf16 inputs.

    pt2c examples/mlp_large_bf16/model.py --target cuda -o mlp_large_bf16_cuda.so

On a GPU each Linear is one cuBLASLt matmul on bf16 data with f32 accumulation, its bias
(and the ReLU) fused in; the 16 MiB of bf16 weights are embedded in the .so. On the CPU
the same .so computes between bf16 values in f32, as PyTorch's CPU kernels do.
"""
import torch
from torch import nn

BATCH, IN, HIDDEN, OUT = 64, 1024, 4096, 1024
DTYPE = torch.bfloat16


def model():
    torch.manual_seed(0)  # the same weights on every export
    return nn.Sequential(nn.Linear(IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT)).to(DTYPE)


def example_inputs():
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(BATCH, IN, generator=generator).to(DTYPE),)
