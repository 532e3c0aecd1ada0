"""The building blocks of transformers, one small model.py each, compiled and compared
with PyTorch eager on fresh random inputs: softmax and log_softmax over every dim,
layer norm, embedding and the other gathers, slicing with steps and negative bounds,
attention with causal, bool and float masks, masks, comparisons and factories (linspace
among them), and a concatenation with an empty part (Phi-3's rotary embedding)."""
from harness import check_against_eager, write_model


def check(pt2c, cpp_host, python, tmp_path, source):
    check_against_eager(pt2c, cpp_host, python, write_model(tmp_path, source), tmp_path)


def test_softmax_over_each_dim(pt2c, cpp_host, python, tmp_path):
    check(pt2c, cpp_host, python, tmp_path, """
        import torch
        from torch.nn import functional as F

        class M(torch.nn.Module):
            def forward(self, x):
                return (F.softmax(x, 0), F.softmax(x, 1), F.softmax(x, 2),
                        F.softmax(x * 30, -1), F.log_softmax(x, 1), torch.log_softmax(x, -1))

        model = M()

        example_inputs = (torch.randn(2, 3, 5),)
    """)


def test_layer_norm_with_and_without_affine(pt2c, cpp_host, python, tmp_path):
    check(pt2c, cpp_host, python, tmp_path, """
        import torch
        from torch import nn
        from torch.nn import functional as F

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.ln = nn.LayerNorm((4, 8))
                with torch.no_grad():  # non-trivial affine parameters
                    self.ln.weight.uniform_(0.5, 1.5)
                    self.ln.bias.uniform_(-1, 1)

            def forward(self, x):
                return self.ln(x * 5 + 2), F.layer_norm(x, (8,), eps=1e-3)

        def model():
            torch.manual_seed(0)
            return M()

        example_inputs = (torch.randn(2, 3, 4, 8),)
    """)


def test_embedding_index_select_gather(pt2c, cpp_host, python, tmp_path):
    check(pt2c, cpp_host, python, tmp_path, """
        import torch
        from torch import nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(20, 8, padding_idx=0)
                self.register_buffer("pick", torch.tensor([3, 0, 3, 7]))
                self.register_buffer("rows", torch.tensor([[1], [0], [-1]]))
                self.register_buffer("cols", torch.tensor([2, 8, -9, 0]))

            def forward(self, ids, x, idx):
                e = self.emb(ids)                               # [2, 5, 8]
                rows = x.index_select(1, self.pick)             # [2, 4, 8]
                along = torch.gather(x, 2, idx)                 # idx [2, 4, 3] < x's [2, 9, 8]
                # Advanced indexing: [3, 1] and [4] broadcast to [3, 4]; -9 wraps.
                return e, rows, along, x[self.rows, self.cols]

        def model():
            torch.manual_seed(0)
            return M()

        example_inputs = (torch.tensor([[1, 2, 3, 0, 19], [5, 5, 0, 7, 11]]),
                          torch.randn(2, 9, 8),
                          torch.randint(0, 8, (2, 4, 3), generator=torch.Generator().manual_seed(2)))
    """)


def test_slicing_with_steps_and_negative_bounds(pt2c, cpp_host, python, tmp_path):
    check(pt2c, cpp_host, python, tmp_path, """
        import torch

        def forward(x):
            a, b, c = x.split([1, 3, 2], dim=-1)
            first, second = x.chunk(2, dim=-1)
            rows = x.unbind(0)
            return (x[:, 1::2], x[..., ::3], x[-1], x[:, -3:, 2:5], x[:, :-2:3, -1],
                    torch.cat([c, a, b], -1), torch.stack([first, second], 1),
                    rows[1] - rows[0], x[:, 2].unsqueeze(1).squeeze())

        class M(torch.nn.Module):
            forward = staticmethod(forward)

        model = M()

        example_inputs = (torch.randn(2, 7, 6),)
    """)


def test_rotary_embedding_with_empty_pass_through(pt2c, cpp_host, python, tmp_path):
    # Phi-3's partial rotary embedding with a rotary dim equal to the head dim: the
    # pass-through slice q[..., rotary_dim:] is empty and is concatenated after the
    # rotated part (a zero-sized kernel operand once failed the CPU code generation).
    check(pt2c, cpp_host, python, tmp_path, """
        import torch

        def rotate_half(x):
            x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
            return torch.cat((-x2, x1), dim=-1)

        class M(torch.nn.Module):
            def forward(self, q, cos, sin):
                rotary_dim = cos.shape[-1]
                q_rot, q_pass = q[..., :rotary_dim], q[..., rotary_dim:]
                q_embed = torch.cat([(q_rot * cos) + (rotate_half(q_rot) * sin), q_pass], -1)
                return q_embed * 2

        model = M()

        example_inputs = (torch.randn(2, 2, 16, 8), torch.randn(1, 1, 16, 8),
                          torch.randn(1, 1, 16, 8))
    """)


def test_attention_masks(pt2c, cpp_host, python, tmp_path):
    check(pt2c, cpp_host, python, tmp_path, """
        import torch
        from torch.nn import functional as F

        def forward(q, k, v, bias):
            # Query 2 may attend to nothing: torch gives 0 there.
            keep = torch.ones(5, 6, dtype=torch.bool).tril(1) & (torch.arange(5) != 2)[:, None]
            return (F.scaled_dot_product_attention(q, k, v, is_causal=True),
                    F.scaled_dot_product_attention(q, k, v, attn_mask=keep),
                    F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=0.3),
                    F.scaled_dot_product_attention(q, k[:, :2], v[:, :2], enable_gqa=True))

        class M(torch.nn.Module):
            forward = staticmethod(forward)

        model = M()

        example_inputs = (torch.randn(2, 4, 5, 8), torch.randn(2, 4, 6, 8),
                          torch.randn(2, 4, 6, 3), torch.randn(2, 1, 5, 6))
    """)


def test_masks_comparisons_and_factories(pt2c, cpp_host, python, tmp_path):
    check(pt2c, cpp_host, python, tmp_path, """
        import torch

        def forward(x, y, n):
            causal = torch.full((4, 6), float("-inf")).triu(1)
            positions = torch.arange(6) * 0.5 + torch.arange(2, 8, dtype=torch.float32)
            keep = (x > 0) & ~(y < -0.5) | (n == 3)
            return (torch.where(keep, x, y), x.masked_fill(y >= 0.2, -2.0), causal + x,
                    x.tril(-1) + y.triu(2), positions * x, (x != y).float(),
                    torch.logical_not(x <= 0).long(), torch.pow(2.0, x) + x.abs() ** 1.5,
                    torch.zeros_like(x) + torch.ones(6), x.new_full((6,), 3.0) * y,
                    # linspace (RAFT's sampling grids): floats, ints (truncated), one step
                    torch.linspace(-1, 1, 6) * x, torch.linspace(0.5, 9.5, 7, dtype=torch.int64),
                    torch.linspace(-3.3, 2.1, 1), torch.linspace(2, -1, 33).double())

        class M(torch.nn.Module):
            forward = staticmethod(forward)

        model = M()

        example_inputs = (torch.randn(4, 6), torch.randn(4, 6), torch.tensor([1, 3, 5, 3, 0, 2]))
    """)
