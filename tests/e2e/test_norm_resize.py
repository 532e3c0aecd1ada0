"""GroupNorm and F.interpolate (nearest, bilinear) compiled by pt2c against PyTorch
eager on fresh random inputs. Under torch 2.x they reach the exporter as
native_group_norm, upsample_nearest2d and upsample_bilinear2d; under torch 1.13 the
resizes are the .vec overloads (run this file with /usr/bin/python3 for those)."""
from harness import check_against_eager, write_model


def test_group_norm_in_conv_net_matches_eager(pt2c, cpp_host, python, tmp_path):
    # Random affine parameters: the defaults (ones, zeros) would hide a wrong weight or
    # bias broadcast. The second norm has none; odd spatial sizes.
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = torch.nn.Conv2d(3, 16, 3)
                self.norm1 = torch.nn.GroupNorm(4, 16)
                self.conv2 = torch.nn.Conv2d(16, 8, 3, padding=1)
                self.norm2 = torch.nn.GroupNorm(2, 8, affine=False)
                torch.nn.init.normal_(self.norm1.weight)
                torch.nn.init.normal_(self.norm1.bias)

            def forward(self, x):
                y = torch.relu(self.norm1(self.conv1(x)))
                return self.norm2(self.conv2(y) * 3 + 1)

        torch.manual_seed(0)
        model = M().eval()
        example_inputs = (torch.randn(2, 3, 11, 9),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)


def test_interpolate_matches_eager(pt2c, cpp_host, python, tmp_path):
    # Scale factors that are not in/out (1.5, 1.7) make ATen use 1/scale as the step,
    # which picks different pixels than in/out would; downsizing and odd sizes too.
    model = write_model(tmp_path, """
        import torch
        import torch.nn.functional as F

        class M(torch.nn.Module):
            def forward(self, x):
                return (
                    F.interpolate(x, scale_factor=2, mode="nearest"),
                    F.interpolate(x, size=(9, 4), mode="nearest"),
                    F.interpolate(x, scale_factor=1.7, mode="nearest"),
                    F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
                    F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False),
                    F.interpolate(x, size=(3, 4), mode="bilinear", align_corners=False),
                    F.interpolate(x, size=(11, 13), mode="bilinear", align_corners=True),
                    F.interpolate(x, size=(1, 4), mode="bilinear", align_corners=True),
                )

        model = M()
        example_inputs = (torch.randn(2, 3, 5, 7),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)
