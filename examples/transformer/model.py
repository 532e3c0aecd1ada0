"""A two-layer nn.TransformerEncoder (batch_first, d_model 64, 4 heads) with a key
padding mask: the attention, layer-norm and softmax path of real encoder models.

    pt2c examples/transformer/model.py -o transformer.so
"""
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                           dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2,
                                             enable_nested_tensor=False)

    def forward(self, x, padding_mask):
        return self.encoder(x, src_key_padding_mask=padding_mask)


def model():
    torch.manual_seed(0)  # the same weights on every export
    return Encoder()


def example_inputs():
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(2, 10, 64, generator=generator)
    # Sequence 0 is full length, sequence 1 has its last 3 positions padded.
    padding_mask = torch.zeros(2, 10, dtype=torch.bool)
    padding_mask[1, 7:] = True
    return (x, padding_mask)
