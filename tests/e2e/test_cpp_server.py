"""One model serving many threads through execution contexts (pt2c.h): the request
server example (examples/cpp_server) answers 8 threads x 200 requests on compiled models,
every answer bit for bit the same as the request run alone, single-threaded, on the model
itself."""
import re

import pytest

from conftest import _tool, run
from harness import compile_model, with_random_batch_norm, write_model

CNN = with_random_batch_norm("""
    import torch
    from torch import nn

    def model():
        torch.manual_seed(0)
        net = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 8 * 8, 10))
        return random_batch_norm(net).eval()

    def example_inputs():
        return (torch.randn(2, 3, 32, 32),)
""")

ATTENTION = """
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.MultiheadAttention(32, 4, batch_first=True)
            self.norm = nn.LayerNorm(32)
            self.ff = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 32))

        def forward(self, x, ids):
            x = x + ids.float().unsqueeze(-1)
            h = self.norm(x)
            x = x + self.attn(h, h, h, need_weights=False)[0]
            return x + self.ff(self.norm(x)), ids.sum()

    def model():
        torch.manual_seed(0)
        return Block().eval()

    def example_inputs():
        return (torch.randn(2, 16, 32), torch.randint(0, 7, (2, 16)))
"""


@pytest.fixture(scope="module")
def cpp_server():
    return _tool("examples/cpp_server/cpp_server")


@pytest.mark.parametrize("source", [CNN, ATTENTION], ids=["cnn", "attention"])
def test_eight_threads_answer_like_one(tmp_path, pt2c, cpp_server, source):
    so = compile_model(pt2c, write_model(tmp_path, source), tmp_path)
    result = run([cpp_server, so, "--threads", "8", "--requests", "200"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "8 threads x 200 requests: 200 answered, 200 bit-identical" in result.stdout
    assert re.search(r"per context\)", result.stdout), result.stdout
    # runs that split over the thread pool as well (contexts then share the pool)
    result = run([cpp_server, so, "--threads", "4", "--requests", "40", "--threads-per-run", "2"])
    assert result.returncode == 0, result.stdout + result.stderr
