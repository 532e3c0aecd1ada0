"""transformers' BertModel from a small config with random weights (no download), and a
padding attention mask: the encoder stack users bring from Hugging Face.

    pt2c examples/bert/model.py -o bert.so
"""
import torch
from transformers import BertConfig, BertModel


def model():
    torch.manual_seed(0)  # the same weights on every export
    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=64,
                        max_position_embeddings=16)
    return BertModel(config)


def example_inputs():
    ids = torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(1))
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[1, 5:] = 0  # the second sequence is padded after 5 tokens
    return (ids, mask)
