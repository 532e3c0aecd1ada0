"""A branch on tensor data: the graph is specialized to the branch taken at export, and
the compiled library refuses inputs that would take the other one (a guard)."""
import numpy as np
import torch

from conftest import env_without_python, load_model_file, run
from harness import compile_model, write_model

BRANCHY = """
    import torch
    from torch import nn

    class Branchy(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            h = self.lin(x)
            if h.sum(dim=1).amax(dim=0) > 0:
                return h * 2
            return h - 1

    def model():
        torch.manual_seed(0)
        return Branchy()

    example_inputs = (torch.ones(2, 4),)
"""


def test_branch_guard_accepts_same_branch_and_refuses_the_other(pt2c, cpp_host, tmp_path):
    model_py = write_model(tmp_path, BRANCHY)
    so = compile_model(pt2c, model_py, tmp_path)
    module, (example,) = load_model_file(model_py)
    with torch.no_grad():
        taken = bool(module.lin(example).sum(dim=1).amax(dim=0) > 0)
        same = example * 0.5   # scales h's sign pattern only mildly: same branch
        assert bool(module.lin(same).sum(dim=1).amax(dim=0) > 0) == taken
        other = example * -50  # flips the condition
        assert bool(module.lin(other).sum(dim=1).amax(dim=0) > 0) != taken
        np.save(tmp_path / "same.npy", same.numpy())
        np.save(tmp_path / "same_ref.npy", module(same).numpy())
        np.save(tmp_path / "other.npy", other.numpy())

    ok = run([cpp_host, so, "--input", tmp_path / "same.npy", "--reference",
              tmp_path / "same_ref.npy"], env=env_without_python())
    assert ok.returncode == 0, ok.stdout + ok.stderr

    refused = run([cpp_host, so, "--input", tmp_path / "other.npy"], env=env_without_python())
    assert refused.returncode != 0
    assert "guard failed: model.py:12" in refused.stderr, refused.stderr
    assert "h.sum(dim=1).amax(dim=0) > 0" in refused.stderr
