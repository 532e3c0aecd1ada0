"""Pointwise chains around matmuls: fusion of elementwise producers into kernels."""
from harness import check_against_eager, write_model


def test_two_layer_tanh_sigmoid_mlp(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        from torch import nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(16, 32)
                self.b = nn.Linear(32, 4)

            def forward(self, x):
                a = self.a(x)
                h = torch.tanh(a) * torch.sigmoid(a) + torch.relu(-a)
                return self.b(h) - 1.5

        def model():
            torch.manual_seed(0)
            return M()

        example_inputs = (torch.randn(3, 16),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)
