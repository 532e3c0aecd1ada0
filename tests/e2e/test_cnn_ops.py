"""CNN building blocks against PyTorch eager: convolutions with strides, padding,
dilation and groups, eval-mode batch norm with non-trivial statistics, in-place
activations, pooling (ceil_mode, count_include_pad, divisor_override, adaptive sizes
that do not divide, max-pool indices), reductions, padding and concatenation."""
from harness import (check_against_eager, compile_model, eager_data, run_against_references,
                     write_model)

# Eval-mode batch norm with statistics far from the defaults (mean 0, var 1), so that
# the scale and shift really matter. Indented like the model texts it is pasted into.
RANDOM_BATCH_NORM = """
        def randomize_batch_norm(module):
            g = torch.Generator().manual_seed(1)
            for m in module.modules():
                if isinstance(m, nn.modules.batchnorm._BatchNorm):
                    m.running_mean.copy_(torch.rand(m.num_features, generator=g) - 0.5)
                    m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
                    m.weight.data.copy_(torch.rand(m.num_features, generator=g) + 0.5)
                    m.bias.data.copy_(torch.rand(m.num_features, generator=g) - 0.5)
            return module
"""


def test_convolution_variants(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        from torch import nn
    """ + RANDOM_BATCH_NORM + """
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                # strided with bias; grouped and dilated; depthwise with a channel
                # multiplier; asymmetric kernel, stride and padding; 1-D.
                self.a = nn.Conv2d(6, 16, 3, stride=2, padding=1)
                self.bn_a = nn.BatchNorm2d(16)
                self.b = nn.Conv2d(16, 16, 3, padding=2, dilation=2, groups=4, bias=False)
                self.bn_b = nn.BatchNorm2d(16)
                self.c = nn.Conv2d(16, 32, 5, padding=2, groups=16)
                self.bn_c = nn.BatchNorm2d(32)
                self.d = nn.Conv2d(32, 8, (1, 3), stride=(1, 2), padding=(0, 1), bias=False)
                self.e = nn.Conv1d(6, 4, 3, stride=2, padding=1, dilation=3)

            def forward(self, x):
                a = torch.relu_(self.bn_a(self.a(x)))
                b = nn.functional.relu6(self.bn_b(self.b(a)), inplace=True)
                c = nn.functional.hardswish(self.bn_c(self.c(b)), inplace=True)
                d = self.d(c)
                e = self.e(x.flatten(2))
                return d, e

        def model():
            torch.manual_seed(0)
            return randomize_batch_norm(M())

        example_inputs = (torch.randn(2, 6, 17, 19),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_pooling_variants(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        from torch import nn
        import torch.nn.functional as F

        class M(nn.Module):
            def forward(self, x):
                return (
                    F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
                    F.max_pool2d(x, 2, dilation=2),
                    F.max_pool2d(x, 3, stride=3, padding=1, ceil_mode=True),
                    F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                                 count_include_pad=False),
                    F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
                    F.avg_pool2d(x, (2, 3), divisor_override=4),
                    F.adaptive_avg_pool2d(x, (4, 5)),   # 11x13 -> 4x5: uneven windows
                    F.adaptive_avg_pool2d(x, 1),
                    F.adaptive_avg_pool2d(x[:, :, :10, :12], (5, 3)),
                )

        model = M()
        example_inputs = (torch.randn(2, 3, 11, 13),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_reductions_activations_padding_cat(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        from torch import nn
        import torch.nn.functional as F

        class M(nn.Module):
            def forward(self, x):
                h = F.hardsigmoid(x) + F.hardtanh(x, -0.5, 0.25)
                s = x.clone()
                s.sigmoid_()
                # Darknet's and CSPNet's nn.LeakyReLU(inplace=True): leaky_relu_.
                leaky = x * 2
                F.leaky_relu(leaky, 0.1, inplace=True)
                t = F.silu(x, inplace=False) * s
                t.mul_(x)
                p = F.pad(x, (1, 2, 0, 3), value=-0.75)
                return (
                    x.mean(dim=(2, 3), keepdim=True),
                    x.sum(dim=1),
                    torch.amax(x, dim=(0, -1)),
                    torch.amin(x, dim=2, keepdim=True),
                    h, t, p,
                    torch.cat([x, h, t], dim=1),
                    leaky,
                )

        model = M()
        example_inputs = (torch.randn(2, 3, 5, 6),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_in_place_op_through_a_view_of_a_tensor_read_later(pt2c, cpp_host, python, tmp_path):
    # pt2c-functionalize: the relu_ through the view reaches `a`, which is read after it.
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                a = x * 2
                v = a.view(-1)
                v.relu_()
                return a + 1

        model = M()
        example_inputs = (torch.randn(2, 3),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_used_max_pool_indices_match_eager(pt2c, cpp_host, python, tmp_path):
    # Each maximum's flat position in its input plane, with padding, dilation and
    # ceil_mode windows that hang over the edge (decompose/Pooling.cpp).
    model = write_model(tmp_path, """
        import torch
        import torch.nn.functional as F

        class M(torch.nn.Module):
            def forward(self, x):
                values, indices = F.max_pool2d(x, 2, return_indices=True)
                v2, i2 = F.max_pool2d(x, 3, 2, padding=1, ceil_mode=True, return_indices=True)
                v3, i3 = F.max_pool2d(x, 2, 1, dilation=2, return_indices=True)
                return values, indices, v2, i2, v3, i3

        model = M()
        example_inputs = (torch.randn(1, 2, 7, 9),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_transposed_convolutions(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        from torch import nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                # kernel = stride (Mask R-CNN's mask head, U-Net upsampling): one product;
                # the rest as convolutions of a zero-interleaved input: overlapping
                # windows with padding, output padding, groups and dilation; 1-D and 3-D.
                self.tile = nn.ConvTranspose2d(6, 5, 2, stride=2)
                self.overlap = nn.ConvTranspose2d(5, 4, 4, stride=2, padding=1, bias=False)
                self.grouped = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1,
                                                  groups=2, dilation=2)
                self.rect = nn.ConvTranspose2d(6, 3, (3, 2), stride=(1, 3), padding=(1, 0))
                self.line = nn.ConvTranspose1d(6, 4, 5, stride=3, padding=2, output_padding=2)
                self.volume = nn.ConvTranspose3d(2, 3, 2, stride=2)

            def forward(self, x, v):
                t = torch.relu(self.tile(x))
                o = self.overlap(t)
                g = self.grouped(o)
                return g, self.rect(x), self.line(x.flatten(2)), self.volume(v)

        def model():
            torch.manual_seed(0)
            return M()

        example_inputs = (torch.randn(2, 6, 5, 7), torch.randn(1, 2, 3, 2, 4))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_transposed_convolution_of_a_dynamic_batch(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        from torch import nn

        def model():
            torch.manual_seed(0)
            return nn.Sequential(nn.ConvTranspose2d(4, 4, 2, stride=2), nn.ReLU(),
                                 nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1))

        example_inputs = (torch.randn(3, 4, 6, 6),)
        dynamic_shapes = {"input": {0: ("rois", 1, 16)}}
    """)
    so = compile_model(pt2c, model, tmp_path)
    for seed, rois in ((7, 1), (8, 11)):
        inputs, refs = eager_data(python, model, tmp_path / f"data{seed}", seed,
                                  shapes=[[rois, 4, 6, 6]])
        run_against_references(cpp_host, so, inputs, refs, tmp_path / f"out{seed}", 1e-4)
