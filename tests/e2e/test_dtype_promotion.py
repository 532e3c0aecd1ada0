"""PyTorch's type promotion end to end: a model mixing bool, int8/16/32/64, f16, bf16 and
f32 tensors, zero-dim tensors and Python numbers. Its trace must pass the aten dtype
rules (ir/aten/AtenDtypeRules.cpp: every result dtype the exporter recorded is the one
the rules compute), and the compiled .so must match eager on fresh inputs, outputs of
every dtype included. The f16 sum with a f32 zero-dim tensor is exact only if the
zero-dim tensor is rounded to f16 first, as eager does (decompose/LowPrecision.cpp);
the in-place ops need pt2c-functionalize to compute in the promoted dtype."""
from harness import check_against_eager, write_model

PROMOTIONS = """
    import torch

    class Promotions(torch.nn.Module):
        def forward(self, x):
            i = (x * 10).to(torch.int64)            # int64 in about [-30, 30]
            b = x > 0
            h = x.half()
            zi, zf = i.sum(), x.sum()               # zero-dim int64 and float32
            i32 = i.int()
            i32.mul_(i)                             # int64 product written into int32
            h2 = h.clone()
            h2.add_(x)                              # computed in f32, rounded into f16
            i8 = torch.minimum(torch.maximum(i, torch.full_like(i, -5)),
                               torch.full_like(i, 5)).to(torch.int8)
            return (i + 2.5,                        # int + float number: f32
                    i * 3,                          # int * int number: int64
                    b + zi,                         # bool + zero-dim int64: int64
                    h + zf,                         # f16 + zero-dim f32: f16
                    i / (i.abs() + 1),              # true division of ints: f32
                    torch.sigmoid(i),               # float op of ints: f32
                    torch.where(b, h, zf),          # f16
                    torch.where(b, i, 0.5),         # int64 and a float number: f32
                    b.sum(1), b.cumsum(1),          # int64
                    i.argmax(1),
                    torch.arange(6) * x,            # int64 and f32: f32
                    torch.full((4, 6), 2) + i,      # int64
                    i32, h2,
                    h * 2.5, h + b,                 # f16
                    torch.softmax(h, -1, dtype=torch.float32),
                    x.bfloat16() + h,               # bf16 and f16: f32
                    i8 + i.to(torch.int16),         # int8 and int16: int16
                    1.5 ** (i.abs() / 10).to(torch.int64),  # float number ** int: f32
                    torch.maximum(i, x),            # f32
                    (b & (i > 3)) | ~b,
                    x.masked_fill(b, 3),
                    h < zf)                         # compared in f16

    model = Promotions()
    example_inputs = (torch.randn(4, 6),)
"""


def test_promotion_matches_eager(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, PROMOTIONS)
    for seed in (7, 8):
        check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4,
                            seed=seed)
