"""Attention cases for the fused GPU kernels' numerics, in the dtype of PT2C_DTYPE
(float16 by default, bfloat16): pt2c compiles them for CUDA, tests/gpu/run_mlp_cuda.py
checks the outputs against PyTorch eager on a GPU machine (make_attention_bundles.sh).

Each case hits a different edge of the tensor-core kernel (AttentionMmaKernel.cpp):
  - self-attention over 200 tokens with a bool mask: 4 key blocks of 64, the last one
    partial, one for each warp of a block; 13 tiles of 16 query rows, the last partial;
  - causal attention over 77 tokens, head size 32, q/k/v read in place from the
    [B, L, H, D] layout the Linear writes;
  - cross-attention, 50 queries over 130 keys with a float bias per batch and key (the
    shape BERT's padding mask takes), head size 64: 5 key blocks of 32 over 4 warps;
  - causal attention over 1100 tokens: enough tiles of 16 rows (552) that each warp
    takes a tile of its own and walks all 18 key blocks of 64 (no split of the keys).
"""
import os

import torch

DTYPE = getattr(torch, os.environ.get("PT2C_DTYPE", "float16"))


class AttentionCases(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(256, 3 * 256)
        self.causal_qkv = torch.nn.Linear(128, 3 * 128)
        self.cross_q = torch.nn.Linear(256, 4 * 64)
        self.cross_k = torch.nn.Linear(256, 4 * 64)
        self.cross_v = torch.nn.Linear(256, 4 * 64)
        self.long_qkv = torch.nn.Linear(128, 3 * 128)

    def forward(self, x, mask, y, bias, z):
        b, n, _ = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, 4, 64).permute(2, 0, 3, 1, 4)
        masked = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)

        c = x[:, :77, :128]
        q, k, v = self.causal_qkv(c).view(b, 77, 3, 4, 32).unbind(2)
        causal = torch.nn.functional.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)

        q = self.cross_q(y).view(b, 50, 4, 64).transpose(1, 2)
        k = self.cross_k(x[:, :130]).view(b, 130, 4, 64).transpose(1, 2)
        v = self.cross_v(x[:, :130]).view(b, 130, 4, 64).transpose(1, 2)
        cross = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)

        q, k, v = self.long_qkv(z).view(b, 1100, 3, 4, 32).permute(2, 0, 3, 1, 4)
        long = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return masked, causal.transpose(1, 2), cross, long


def model():
    torch.manual_seed(0)
    return AttentionCases().eval().to(DTYPE)


_g = torch.Generator().manual_seed(1)
example_inputs = (
    torch.randn(2, 200, 256, generator=_g).to(DTYPE),
    torch.rand(200, 200, generator=_g) > 0.3,
    torch.randn(2, 50, 256, generator=_g).to(DTYPE),
    torch.randn(2, 1, 1, 130, generator=_g).to(DTYPE),
    torch.randn(2, 1100, 128, generator=_g).to(DTYPE),
)
