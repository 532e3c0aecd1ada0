"""transformers' GPT2LMHeadModel from a small config with random weights (no download):
a decoder-only language model; the outputs are its logits (and the model's other
outputs, named by the exporter).

    pt2c examples/gpt2/model.py -o gpt2.so
"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel


def model():
    torch.manual_seed(0)  # the same weights on every export
    config = GPT2Config(vocab_size=100, n_positions=16, n_embd=32, n_layer=2, n_head=4,
                        bos_token_id=0, eos_token_id=0)
    return GPT2LMHeadModel(config)


def example_inputs():
    return (torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(1)),)
