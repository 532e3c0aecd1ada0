"""Ops of PyTorch's Core ATen opset that pt2c added for it (docs/OP_COVERAGE.md's "Core
ATen opset" section), compiled by pt2c against PyTorch eager on fresh random inputs
(max|diff| / max|ref| <= 1e-4 for floats; integer and bool outputs must match
exactly: one value off is far over that). Each model holds many ops, since a compile
takes seconds: elementwise math (inputs mapped into each function's domain), rounding
(halves, for round's half-to-even), division with rounding and remainders on negative
operands, clamps and activations, NaN and inf classes, boolean logic, reductions,
flips, copies, reflection/replication padding, slice/select scatters, scatter_reduce,
masked_scatter and embedding bags."""
from harness import check_against_eager, write_model


def test_elementwise_math(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x, y):
                unit = torch.tanh(x) * 0.99              # inside (-1, 1)
                positive = x.abs() + 0.1
                halves = torch.floor(x * 4) / 2          # k / 2: exact halves for round
                return (torch.acos(unit), torch.asin(unit), torch.atan(x * 3),
                        torch.atan2(x, y), torch.atan2(-x.abs(), y),
                        torch.sinh(x), torch.cosh(x), torch.tan(unit * 1.2),
                        torch.asinh(x * 3), torch.acosh(1 + positive * 2),
                        torch.atanh(unit * 0.9), torch.expm1(x * 1e-3) * 1e3,
                        torch.expm1(x), torch.log1p(positive), torch.log1p(x * 1e-4) * 1e4,
                        torch.log2(positive), torch.log10(positive),
                        torch.reciprocal(x.abs() + 0.5), torch.sign(halves),
                        torch.ceil(x * 3), torch.floor(x * 3), torch.trunc(x * 3),
                        torch.round(halves), torch.round(x * 3))

        model = M()
        example_inputs = (torch.randn(4, 33), torch.randn(4, 33))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_division_remainders_and_clamps(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        import torch.nn.functional as F

        class M(torch.nn.Module):
            def forward(self, x, y, i, j):
                d = torch.where(y >= 0, y + 0.5, y - 0.5)  # no divisor near 0
                lo, hi = -x.abs() * 0.5, y.abs() * 0.5
                return (torch.fmod(x * 5, d), torch.remainder(x * 5, d),
                        torch.div(x * 5, d, rounding_mode="floor"),
                        torch.div(x * 5, d, rounding_mode="trunc"),
                        torch.fmod(x * 5, -1.5), x * 5 % 1.5,
                        torch.div(x * 5, 0.7, rounding_mode="floor"),
                        torch.div(x, 0.7, rounding_mode="trunc"),
                        torch.fmod(i, j), torch.remainder(i, j),
                        torch.div(i, j, rounding_mode="floor"),
                        torch.div(i, j, rounding_mode="trunc"), i % 5, torch.fmod(i, -5),
                        torch.div(i, 3, rounding_mode="floor"),
                        # Python numbers arrive as 0-d tensors (div.Tensor_mode): the
                        # Scalar overload is what torch.export's graphs hold.
                        torch.ops.aten.div.Scalar_mode(x * 5, -0.7, rounding_mode="floor"),
                        torch.ops.aten.div.Scalar_mode(i, 4, rounding_mode="trunc"),
                        torch.clamp(x, -0.5, 0.5), torch.clamp(x, min=0.1),
                        torch.clamp(i, max=3), torch.clamp(x, min=lo, max=hi),
                        torch.clamp(x, max=hi), F.elu(x), F.elu(x, alpha=0.5), torch.selu(x),
                        F.leaky_relu(x), F.leaky_relu(x, 0.2))

        model = M()
        ints = torch.arange(-12, 12).reshape(4, 6)
        divisors = torch.tensor([[3, -3, 5, -5, 7, -7]]).expand(4, 6).contiguous()
        example_inputs = (torch.randn(4, 6), torch.randn(4, 6), ints, divisors)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_float_classes_logic_and_reductions(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x, y, i):
                special = torch.where(x > 1, torch.full_like(x, float("inf")), x)
                special = torch.where(x < -1, torch.full_like(x, -float("inf")), special)
                special = torch.where(y > 1, torch.full_like(x, float("nan")), special)
                a, b = x > 0, y > 0
                # isinf of integers is all false: a constant, which a model output
                # cannot be on its own (the plan has no step for it), so it is or-ed.
                return (torch.isnan(special), torch.isinf(special), torch.isinf(i) | a,
                        torch.logical_xor(a, b), torch.logical_xor(x, i.float()), a ^ b,
                        a & True, b | False, a ^ True,
                        (x > 1).any(dim=1), torch.any(x > 1, dim=-1, keepdim=True),
                        torch.any(y > 1.5, dim=(0, 2)), torch.any(x, 0),
                        x.prod(), x.prod(dim=1), torch.prod(x, 2, keepdim=True),
                        i.prod(dim=0), x.mean(), x.var(), x.var(dim=1),
                        x.var(dim=(0, 2), unbiased=False, keepdim=True),
                        torch.var(x, dim=1, correction=0), torch.var(x, dim=-1, correction=2),
                        torch.ops.aten.var.dim(x, [1], False))  # torch 1.13's form

        model = M()
        ints = torch.tensor([[[1, -2, 3], [2, 1, -1]], [[-3, 2, 2], [1, 1, 3]]])
        example_inputs = (torch.randn(2, 2, 3), torch.randn(2, 2, 3), ints)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_flip_copy_and_gather_pads(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        from torch import nn
        import torch.nn.functional as F

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Sequential(nn.ReflectionPad2d(1), nn.Conv2d(3, 4, 3),
                                          nn.ReplicationPad2d((2, 0, 1, 3)))

            def forward(self, x, v, row):
                return (self.conv(x), torch.flip(x, [1, 3]), torch.flip(x, [-1]),
                        F.pad(x.flatten(2), (3, 2), mode="reflect"),
                        F.pad(x, (1, 2, 2, 1), mode="reflect"),
                        F.pad(v, (1, 1, 2, 0, 1, 2), mode="reflect"),
                        F.pad(v, (0, 2, 1, 1, 3, 0), mode="replicate"),
                        torch.ops.aten.copy(x, row), torch.ops.aten.copy(x, row.double()),
                        torch.empty_strided((3, 7), (7, 1)).copy_(row) * 2,
                        torch.slice_scatter(x, x[:, :, :2] * 2, dim=2, start=1, end=5, step=2),
                        torch.slice_scatter(v, v[..., :3].neg(), dim=-1, start=3),
                        torch.select_scatter(x, x[:, 0] + 1, 1, 2),
                        torch.select_scatter(v, v[:, :, -1].abs(), 2, -1))

        def model():
            torch.manual_seed(0)
            return M()

        example_inputs = (torch.randn(2, 3, 6, 7), torch.randn(1, 2, 4, 5, 6),
                          torch.randn(7))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_pooling_3d(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        from torch import nn
        import torch.nn.functional as F

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv3d(2, 4, 3, padding=1)

            def forward(self, v):
                c = self.conv(v)
                return (F.max_pool3d(c, 2), F.max_pool3d(c, (3, 2, 2), stride=(2, 1, 2),
                                                         padding=1, ceil_mode=True),
                        F.max_pool3d(v, 3, stride=1, dilation=(1, 2, 1)),
                        F.avg_pool3d(c, 2), F.avg_pool3d(v, 3, stride=2, padding=1,
                                                         count_include_pad=False),
                        F.avg_pool3d(v, (2, 3, 3), stride=2, padding=(1, 1, 0),
                                     ceil_mode=True),
                        F.avg_pool3d(c, 3, divisor_override=5),
                        F.adaptive_avg_pool3d(c, (3, 2, 5)), F.adaptive_avg_pool3d(v, 1),
                        F.adaptive_avg_pool3d(v, (4, 3, 2)))

        def model():
            torch.manual_seed(0)
            return M()

        example_inputs = (torch.randn(2, 2, 6, 7, 10),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_distances(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        import torch.nn.functional as F

        class M(torch.nn.Module):
            def forward(self, a, b, rows):
                return (torch.cdist(a, b), torch.cdist(a, b, p=1), torch.cdist(a, b, p=3.5),
                        torch.cdist(a, b, p=float("inf")), torch.cdist(a[0], b[1], p=0.5),
                        F.pdist(rows), F.pdist(rows, p=1), F.pdist(rows, p=float("inf")),
                        F.pdist(rows, p=3))

        model = M()
        example_inputs = (torch.randn(2, 5, 4), torch.randn(2, 7, 4), torch.randn(6, 3))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_fold(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        import torch.nn.functional as F

        class M(torch.nn.Module):
            # F.unfold's blocks: 3x3 with padding 1 and stride 2 (overlapping), and
            # dilated 2x3 ones (F.unfold itself, im2col, is not a Core op).
            def forward(self, blocks, wide):
                return (F.fold(blocks, (7, 9), 3, padding=1, stride=2),
                        F.fold(wide, (7, 9), (2, 3), dilation=(2, 1)),
                        F.fold(blocks[0], (7, 9), 3, padding=1, stride=2))

        model = M()
        example_inputs = (torch.randn(2, 27, 20), torch.randn(2, 18, 35))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_grid_sample(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        import torch.nn.functional as F

        class M(torch.nn.Module):
            def forward(self, x, grid):
                wide = grid * 1.4  # past [-1, 1]: the padding modes matter
                out = []
                for mode in ("bilinear", "nearest"):
                    for padding in ("zeros", "border", "reflection"):
                        for align in (False, True):
                            out.append(F.grid_sample(x, wide, mode=mode, padding_mode=padding,
                                                     align_corners=align))
                return tuple(out)

        model = M()
        example_inputs = (torch.randn(2, 3, 5, 7), torch.rand(2, 4, 6, 2) * 2 - 1)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_unfold(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        import torch.nn.functional as F

        class M(torch.nn.Module):
            # F.unfold (im2col): overlapping padded 3x3 blocks with stride 2, dilated 2x3
            # blocks, ConvBERT's [k, 1] blocks over a sequence, and an unbatched image.
            def forward(self, x, seq):
                return (F.unfold(x, 3, padding=1, stride=2),
                        F.unfold(x, (2, 3), dilation=(2, 1)),
                        F.unfold(seq, (5, 1), padding=(2, 0)),
                        F.unfold(x[0], 3, padding=1, stride=2))

        model = M()
        example_inputs = (torch.randn(2, 3, 7, 9), torch.randn(2, 8, 11, 1))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_floor_divide(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            # Python's //: floor for floats and for integers, negative operands included
            # (integer division truncates, floor_divide does not), tensor and Scalar
            # divisors, and the in-place //= on a fresh tensor.
            def forward(self, x, y, i, j):
                d = torch.where(y >= 0, y + 0.5, y - 0.5)  # no divisor near 0
                k = i.clone()
                k //= j
                return (x * 5 // d, torch.floor_divide(x * 5, -0.7), i // j, i // 4,
                        i // -4, torch.ops.aten.floor_divide.Scalar(i, 3),
                        torch.ops.aten.floor_divide.Scalar(x * 5, 1.5), k, i // 2.5)

        model = M()
        ints = torch.arange(-12, 12).reshape(4, 6)
        divisors = torch.tensor([[3, -3, 5, -5, 7, -7]]).expand(4, 6).contiguous()
        example_inputs = (torch.randn(4, 6), torch.randn(4, 6), ints, divisors)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_one_sided_clamps_and_addcmul(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        import torch.nn.functional as F

        class M(torch.nn.Module):
            # clamp_min/clamp_max with Scalar and tensor bounds (F.normalize clamps the
            # norm by eps: XCiT's and Swin-V2's cosine attention), the in-place
            # clamp_min_ (Scalar and tensor bounds), integers, and addcmul/addcdiv
            # (ConvNeXt-V2's response norm) with a value and broadcast operands.
            def forward(self, x, y, i):
                c = x.clone()
                c.clamp_min_(-0.25)
                d = x.clone()
                d.clamp_min_(y[1])
                return (torch.clamp_min(x, 0.1), torch.clamp_max(x, -0.2),
                        torch.clamp_min(x, y), torch.clamp_max(x, y[0]), c, d,
                        torch.clamp_min(i, -3), torch.clamp_max(i, 4),
                        F.normalize(x, dim=-1), F.normalize(x * 0, dim=0),
                        torch.addcmul(x, y, x, value=0.5), torch.addcmul(x, y[0], x[:, :1]),
                        torch.addcdiv(x, y, x.abs() + 1, value=-2))

        model = M()
        example_inputs = (torch.randn(4, 6), torch.randn(4, 6), torch.arange(-12, 12).reshape(4, 6))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_scatter_reduce_and_masked_scatter(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x, y, tokens, features):
                # Targets drawn from the data: some positions get several values, some none.
                index = ((y.abs() * 10).long() % 6)[:, :5]
                src = y[:, :5] * 3
                reduced = [x.scatter_reduce(1, index, src, reduce, include_self=keep)
                           for reduce in ("sum", "prod", "mean", "amax", "amin")
                           for keep in (True, False)]
                rows = x.t().scatter_reduce(0, index.t(), src.t(), "amax", include_self=False)
                # Image features into the token embeddings where a token is a placeholder
                # (transformers' multimodal models), and a flat in-place form.
                placeholder = (tokens[..., :1] > 0.3).expand_as(tokens)
                merged = tokens.masked_scatter(placeholder, features)
                flat = x.clone()
                flat.masked_scatter_(x > 0, y * 10)
                return (*reduced, rows, merged, flat)

        def model():
            return M()

        example_inputs = (torch.randn(4, 6), torch.randn(4, 6), torch.randn(2, 7, 8),
                          torch.randn(14, 8))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_embedding_bags(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        from torch import nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.sums = nn.EmbeddingBag(20, 6, mode="sum")
                self.means = nn.EmbeddingBag(20, 6, mode="mean", padding_idx=3)
                self.maxes = nn.EmbeddingBag(20, 6, mode="max", include_last_offset=True)
                self.rows = nn.EmbeddingBag(20, 6, mode="mean")

            def forward(self, x):
                # Ids drawn from the data (padding id 3 among them); bags of 3, 0, 2 and
                # 5 ids (an empty one), and the 2-D form: one bag per row.
                ids = (x.abs() * 100).long() % 20
                offsets = torch.tensor([0, 3, 3, 5])
                weights = x.sigmoid()
                return (self.sums(ids, offsets, per_sample_weights=weights),
                        self.means(ids, offsets),
                        self.maxes(ids, torch.tensor([0, 3, 3, 5, 10])),
                        self.rows(ids.view(2, 5)))

        def model():
            torch.manual_seed(0)
            return M()

        example_inputs = (torch.randn(10),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)
