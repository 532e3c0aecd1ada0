"""Module buffers written in place (a step counter): the compiled model keeps its own
copy of the buffer and updates it on every run, as the PyTorch module does."""
import numpy as np
import torch

from conftest import env_without_python, run
from harness import compile_model, write_model

COUNTER = """
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", torch.zeros(1))
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            self.count.add_(1)
            return self.lin(x) * self.count

    def model():
        torch.manual_seed(0)
        return M()

    example_inputs = (torch.randn(2, 4),)
"""


def test_step_counter_advances_on_every_run(pt2c, cpp_host, tmp_path):
    model_py = write_model(tmp_path, COUNTER)
    so = compile_model(pt2c, model_py, tmp_path)
    namespace = {}
    exec(compile(model_py.read_text(), str(model_py), "exec"), namespace)
    module = namespace["model"]().eval()
    x = torch.randn(2, 4, generator=torch.Generator().manual_seed(3))
    np.save(tmp_path / "x.npy", x.numpy())
    with torch.no_grad():
        for runs in (1, 3):
            expected = (module.lin(x) * runs).numpy()
            np.save(tmp_path / f"ref{runs}.npy", expected)
            result = run([cpp_host, so, "--input", tmp_path / "x.npy", "--runs", str(runs),
                          "--reference", tmp_path / f"ref{runs}.npy", "--tolerance", "1e-5"],
                         env=env_without_python())
            assert result.returncode == 0, result.stdout + result.stderr
