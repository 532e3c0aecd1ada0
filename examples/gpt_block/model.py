"""A GPT-style decoder block in plain PyTorch: pre-LayerNorm, causal multi-head
self-attention through F.scaled_dot_product_attention, a GELU MLP, residuals.

The block also writes the step's keys and values into a KV-cache buffer (in place, as
incremental decoding does); the cache is a buffer mutation of the exported graph.

    pt2c examples/gpt_block/model.py -o gpt_block.so
"""
import torch
from torch import nn
from torch.nn import functional as F


class GPTBlock(nn.Module):
    def __init__(self, d_model=64, n_head=4, max_len=32):
        super().__init__()
        self.n_head = n_head
        self.ln_1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln_2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.fc_out = nn.Linear(4 * d_model, d_model)
        self.register_buffer("kv_cache", torch.zeros(2, 1, n_head, max_len, d_model // n_head))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln_1(x)).split(c, dim=2)
        q = q.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        k = k.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        v = v.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        # Incremental decoding keeps the keys and values of the prefix.
        self.kv_cache[0, :b, :, :t] = k
        self.kv_cache[1, :b, :, :t] = v
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        x = x + self.fc_out(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))
        return x


def model():
    torch.manual_seed(0)  # the same weights on every export
    return GPTBlock()


def example_inputs():
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(1, 16, 64, generator=generator),)
