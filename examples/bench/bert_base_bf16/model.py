"""examples/bench/bert_base (transformers' BertModel at bert-base's size, random weights,
batch 1, sequence 128, padding mask) in bf16 (`model.to(torch.bfloat16)`): the bf16
transformer row of the CPU benchmark (tools/bench_cpu.py). The inputs are token ids and
a mask (integers), so only the weights and the outputs are bf16.

    pt2c examples/bench/bert_base_bf16/model.py --cpu native -o bert_base_bf16.so
    tools/bench_cpu.py examples/bench/bert_base_bf16/model.py bert_base_bf16.so

About 210 MiB of bf16 weights. PyTorch's CPU kernels compute between bf16 values in f32
(with avx512_bf16 where the CPU has it); compare against eager bf16, not fp32.
"""
import importlib.util
import pathlib

import torch
from transformers import BertConfig, BertModel

SEQUENCE = 128
DTYPE = torch.bfloat16

# examples/seeded_weights.py, two folders up: weights that do not depend on the
# transformers version.
_spec = importlib.util.spec_from_file_location(
    "seeded_weights", pathlib.Path(__file__).resolve().parents[2] / "seeded_weights.py")
_seeded = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_seeded)


def model():
    torch.manual_seed(0)  # the same weights on every export
    config = BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=12,
                        num_attention_heads=12, intermediate_size=3072,
                        max_position_embeddings=512)
    return _seeded.seeded_weights(BertModel(config)).eval().to(DTYPE)


def example_inputs():
    ids = torch.randint(0, 30522, (1, SEQUENCE), generator=torch.Generator().manual_seed(1))
    mask = torch.ones(1, SEQUENCE, dtype=torch.long)
    mask[0, 100:] = 0  # padded after 100 tokens
    return (ids, mask)
