"""Small models the GPU tests compile for CUDA and for ROCm: a ReLU MLP that is all GEMM
steps (test_cuda_build.py for cuBLASLt, test_rocm_build.py for hipBLASLt), a transformer
block's residual adds that join their GEMM steps (those two and test_cpu_microkernels.py)
and a CNN that is all convolution steps (test_cuda_conv.py for cuDNN, test_rocm_build.py
for MIOpen), with the convolution records its plan must have."""

NONE, BIAS, BIAS_RELU, BIAS_ADD_RELU = range(4)  # pt2c_conv_epilogue

RELU_MLP = """
import torch
from torch import nn

def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 24), nn.ReLU(),
                         nn.Linear(24, 8))

example_inputs = (torch.randn(4, 16),)
"""

GEMM_ADD, GEMM_BIAS_ADD = 3, 4  # pt2c_gemm_epilogue

# The residual adds of a transformer block right after a Linear: without a bias (Llama's
# o_proj: ADD), with one on [batch, seq, features] (the bias add and the residual add stay
# two kernels, a reshape between them: both join, BIAS_ADD) and on [rows, features] (one
# kernel computes both: BIAS_ADD). Every op is part of a GEMM step, so a fake Lt library
# computes the whole model. WIDTH is the tests' to change (K blocks of the CPU's GEMM).
RESIDUAL = """
import torch
from torch import nn

WIDTH = 16

class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.o_proj = nn.Linear(WIDTH, WIDTH, bias=False)
        self.fc = nn.Linear(WIDTH, WIDTH)

    def forward(self, x, y):
        h = x + self.o_proj(x)
        return h + self.fc(h), y + self.fc(y)

def model():
    torch.manual_seed(0)
    return Residual()

def example_inputs():
    return (torch.randn(2, 3, WIDTH), torch.randn(4, WIDTH))
"""
EXPECTED_RESIDUAL_EPILOGUES = [GEMM_ADD, GEMM_BIAS_ADD, GEMM_BIAS_ADD]

# A stem (conv + folded batch norm + ReLU), a ResNet basic block (conv-BN-ReLU-conv-BN,
# + the identity, ReLU), a grouped conv (2 channels per group) with stride 2, dilation 2
# and a bias, and a grouped 1x1 conv without one: every op is part of a convolution step,
# so the fake cuDNN or MIOpen computes the whole model (the fake drivers run none of
# pt2c's own kernels). With groups=8 (CNN_DEPTHWISE) the strided conv is depthwise: on
# the GPU a kernel of pt2c's own, not a library step (ir/prim ConvolutionOp::
# isDirectDepthwise).
CNN = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.conv1 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.strided = nn.Conv2d(8, 8, 3, stride=2, padding=2, dilation=2, groups=4)
        self.grouped = nn.Conv2d(8, 4, 1, groups=2, bias=False)

    def forward(self, x):
        x = torch.relu(self.bn(self.stem(x)))
        y = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.bn2(self.conv2(y)) + x)
        return self.grouped(self.strided(x))


def model():
    torch.manual_seed(0)
    net = Net().eval()
    g = torch.Generator().manual_seed(1)
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.rand(8, generator=g) - 0.5)
            m.running_var.copy_(torch.rand(8, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(8, generator=g) + 0.5)
            m.bias.data.copy_(torch.rand(8, generator=g) - 0.5)
    return net


example_inputs = (torch.randn(2, 3, 16, 16),)
"""

CNN_DEPTHWISE = CNN.replace("groups=4)", "groups=8)")
assert CNN_DEPTHWISE != CNN

# (epilogue, groups, C, K, input, kernel, output, stride, padding, dilation) per conv.
EXPECTED_CONVS = [
    (BIAS_RELU, 1, 3, 8, (16, 16), (3, 3), (16, 16), (1, 1), (1, 1), (1, 1)),
    (BIAS_RELU, 1, 8, 8, (16, 16), (3, 3), (16, 16), (1, 1), (1, 1), (1, 1)),
    (BIAS_ADD_RELU, 1, 8, 8, (16, 16), (3, 3), (16, 16), (1, 1), (1, 1), (1, 1)),
    (BIAS, 4, 8, 8, (16, 16), (3, 3), (8, 8), (2, 2), (2, 2), (2, 2)),
    (NONE, 2, 8, 4, (8, 8), (1, 1), (8, 8), (1, 1), (0, 0), (1, 1)),
]
