"""A small image classifier (a convolution block and a linear head), compiled as a step
of the build: by the Bazel rule in BUILD.bazel or the CMake function in CMakeLists.txt."""
import torch
from torch import nn


def model():
    torch.manual_seed(0)  # the same weights on every export
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5),
    ).eval()


def example_inputs():
    return (torch.zeros(2, 3, 16, 16),)


def consumer_input():
    """The input both programs build: x[i] = sin(0.01 * i) over the flattened tensor."""
    return torch.sin(0.01 * torch.arange(2 * 3 * 16 * 16, dtype=torch.float32)).reshape(2, 3, 16, 16)
