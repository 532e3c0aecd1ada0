"""transformers' BertModel at bert-base's size (12 layers, hidden 768, 12 heads,
intermediate 3072) with random weights (no download), in fp16 (`model.half()`), batch 1
at sequence length 128 with a padding mask: the issue's BERT-base fp16 latency row in
docs/BENCHMARKS.md.

    pt2c examples/bert_base_fp16/model.py --target cuda --external-weights -o bert_base_fp16_cuda.so

About 210 MiB of fp16 weights, hence external weights when the .so must travel light.
"""
import importlib.util
import pathlib

import torch
from transformers import BertConfig, BertModel

SEQUENCE = 128


# examples/seeded_weights.py, one folder up (in a GPU bundle too: make_big_cuda_bundle.sh)
_spec = importlib.util.spec_from_file_location(
    "seeded_weights", pathlib.Path(__file__).resolve().parent.parent / "seeded_weights.py")
_seeded = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_seeded)


def model():
    torch.manual_seed(0)  # the same weights on every export, here and on the GPU machine
    config = BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=12,
                        num_attention_heads=12, intermediate_size=3072,
                        max_position_embeddings=512)
    return _seeded.seeded_weights(BertModel(config)).eval().half()


def example_inputs():
    ids = torch.randint(0, 30522, (1, SEQUENCE), generator=torch.Generator().manual_seed(1))
    mask = torch.ones(1, SEQUENCE, dtype=torch.long)
    mask[0, 100:] = 0  # padded after 100 tokens
    return (ids, mask)
