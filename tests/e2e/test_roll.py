"""torch.roll (Swin's cyclic window shift) compiled by pt2c against PyTorch eager on
fresh random inputs: shifts over two dims both ways, a shift past the size, a negative
dim, and the flattened roll without dims."""
from harness import check_against_eager, write_model


def test_roll_matches_eager(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                shifted = torch.roll(x, shifts=(-3, -3), dims=(1, 2))
                back = torch.roll(shifted * 2, shifts=(3, 3), dims=(1, 2))
                far = torch.roll(x, shifts=9, dims=-1)
                flat = torch.roll(x, 5)
                return shifted, back, far, flat

        model = M()
        example_inputs = (torch.randn(2, 7, 7, 4),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)
