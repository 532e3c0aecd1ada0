"""GroupNorm, vector and weight norms, F.interpolate (nearest, bilinear, bicubic) and
batch norm with batch statistics compiled by pt2c against PyTorch eager on fresh random
inputs. Under torch 2.x they reach the exporter as native_group_norm,
linalg_vector_norm, _weight_norm_interface, upsample_nearest2d, upsample_bilinear2d,
upsample_bicubic2d and native_batch_norm; under torch 1.13 the resizes are the .vec
overloads (run this file with /usr/bin/python3 for those)."""
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


def test_bicubic_interpolate_matches_eager(pt2c, cpp_host, python, tmp_path):
    # Both align_corners modes, up and down, scale factors (the step is 1/scale) and
    # sizes: taps past the border read the edge pixel, and the cubic weights (A = -0.75)
    # overshoot, so a wrong weight or clamp shows at once.
    model = write_model(tmp_path, """
        import torch
        import torch.nn.functional as F

        class M(torch.nn.Module):
            def forward(self, x):
                return tuple(
                    F.interpolate(x, mode="bicubic", align_corners=align, **size)
                    for align in (False, True)
                    for size in ({"scale_factor": 2}, {"scale_factor": 1.7},
                                 {"size": (3, 4)}, {"size": (11, 13)}, {"size": (5, 1)}))

        model = M()
        example_inputs = (torch.randn(2, 3, 5, 7),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)


def test_vector_norms_match_eager(pt2c, cpp_host, python, tmp_path):
    # linalg.vector_norm's orders (2, inf, -inf, 0, 1, a fractional and a negative p),
    # over one dim, several, all, with keepdim and a dtype; rows scaled to unit length
    # and ConvNeXt-V2's global response norm (a 2-norm over H and W).
    model = write_model(tmp_path, """
        import torch
        from torch.linalg import vector_norm

        class M(torch.nn.Module):
            def forward(self, x, v):
                sparse = torch.where(x.abs() < 0.5, torch.zeros_like(x), x)
                gx = vector_norm(x, 2, dim=(1, 2), keepdim=True)
                return (vector_norm(x), vector_norm(x, dim=-1), vector_norm(x, 2, dim=(0, 2)),
                        vector_norm(x, float("inf"), dim=1, keepdim=True),
                        vector_norm(x, float("-inf"), dim=2), vector_norm(sparse, 0, dim=-1),
                        vector_norm(x, 1, dim=0), vector_norm(x, 3.5, dim=-1),
                        vector_norm(x.abs() + 0.5, -1.5, dim=1),
                        vector_norm(x, dim=-1, dtype=torch.float64), x.norm(dim=1),
                        v / vector_norm(v, dim=-1, keepdim=True),
                        gx / (gx.mean(dim=-1, keepdim=True) + 1e-6))

        model = M()
        example_inputs = (torch.randn(3, 4, 5), torch.randn(6, 8))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)


def test_weight_norm_conv_matches_eager(pt2c, cpp_host, python, tmp_path):
    # nn.utils.weight_norm over the last dim of a grouped Conv1d's weight (wav2vec2's
    # positional convolution) and over dim 0 of a Linear's: _weight_norm_interface.
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                conv = torch.nn.Conv1d(8, 8, 5, padding=2, groups=2)
                self.conv = torch.nn.utils.weight_norm(conv, name="weight", dim=2)
                self.linear = torch.nn.utils.weight_norm(torch.nn.Linear(8, 6))
                with torch.no_grad():
                    self.conv.weight_g.uniform_(0.5, 2.0)
                    self.linear.weight_g.uniform_(0.5, 2.0)

            def forward(self, x):
                y = torch.nn.functional.gelu(self.conv(x))
                return self.linear(y.transpose(1, 2))

        torch.manual_seed(0)
        model = M().eval()
        example_inputs = (torch.randn(2, 8, 12),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)


def test_batch_norm_with_batch_statistics_matches_eager(pt2c, cpp_host, python, tmp_path):
    # F.batch_norm(training=True) without running statistics normalizes with the batch's
    # own mean and variance: NF-Nets' ScaledStdConv standardizes its weights so (a
    # weight-only computation), and here an activation too.
    model = write_model(tmp_path, """
        import torch
        import torch.nn.functional as F

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = torch.nn.Parameter(torch.randn(16, 3, 3, 3) * 2 + 0.3)
                self.gain = torch.nn.Parameter(torch.rand(16) + 0.5)

            def forward(self, x):
                w = F.batch_norm(self.weight.reshape(1, 16, -1), None, None,
                                 weight=self.gain, training=True, momentum=0.0, eps=1e-6)
                y = F.conv2d(x, w.reshape_as(self.weight), padding=1)
                return F.batch_norm(y * 3 + 1, None, None, training=True, eps=1e-5)

        torch.manual_seed(0)
        model = M().eval()
        example_inputs = (torch.randn(2, 3, 9, 7),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)
