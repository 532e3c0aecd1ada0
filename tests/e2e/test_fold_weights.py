"""pt2c-fold-weights end to end: batch norm after convolutions (plain with and without
bias, depthwise) and after a Linear layer is folded into their weights at compile time.
The folded and the unfolded (--no-fold-weights) .so both match eager; folding leaves
fewer prim ops (no rsqrt/mul/sub left at run time) and a smaller weights blob (the BN
parameters are gone, only the folded weights and bias vectors remain)."""
import re

from conftest import env_without_python, run
from harness import EAGER_REFERENCE, with_random_batch_norm, write_model

MODEL = with_random_batch_norm("""
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(8)
            self.conv2 = nn.Conv2d(8, 8, 3, padding=1, groups=8)  # depthwise, with bias
            self.bn2 = nn.BatchNorm2d(8)
            self.fc = nn.Linear(8 * 6 * 6, 10)
            self.bn3 = nn.BatchNorm1d(10)

        def forward(self, x):
            x = torch.relu(self.bn1(self.conv1(x)))
            x = self.bn2(self.conv2(x)) + x
            return self.bn3(self.fc(x.flatten(1)))

    def model():
        torch.manual_seed(0)
        net = Net().eval()
        return random_batch_norm(net)

    example_inputs = lambda: (torch.randn(2, 3, 6, 6),)
""")


def compile_and_check(pt2c, cpp_host, artifact, data, so, *flags):
    compiled = run([pt2c, "compile", artifact, "-o", so, *flags])
    assert compiled.returncode == 0, compiled.stderr
    prim_ops = int(re.search(r"prim\s+(\d+) prim ops", compiled.stderr).group(1))
    result = run([cpp_host, so, "--input", data / "input0.npy", "--reference", data / "ref0.npy",
                  "--tolerance", "1e-4"], env=env_without_python())
    assert result.returncode == 0, result.stdout + result.stderr
    return prim_ops, so.stat().st_size


def test_batch_norm_folds_into_conv_and_linear(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, MODEL)
    artifact = tmp_path / "model.pt2c"
    exported = run([pt2c, "export", model, "-o", artifact])
    assert exported.returncode == 0, exported.stderr
    data = tmp_path / "data"
    made = run([python, EAGER_REFERENCE, model, data, "--seed", "3"])
    assert made.returncode == 0, made.stderr

    folded_ops, folded_size = compile_and_check(pt2c, cpp_host, artifact, data,
                                                tmp_path / "folded.so")
    plain_ops, plain_size = compile_and_check(pt2c, cpp_host, artifact, data,
                                              tmp_path / "plain.so", "--no-fold-weights")
    # Each BN costs add, rsqrt, mul (gamma), mul (mean), sub, a broadcast and a mul
    # at run time; folded, only its bias add and broadcast remain.
    assert folded_ops + 3 * 5 <= plain_ops, (folded_ops, plain_ops)
    # 3 BNs x 4 vectors (8, 8, 10 floats) leave the blob; each adds one bias vector.
    assert folded_size < plain_size, (folded_size, plain_size)
