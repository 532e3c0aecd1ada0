"""transformers' BertModel at bert-base's size (12 layers, hidden 768, 12 heads,
intermediate 3072) with random weights (no download), fp32, batch 1 at sequence length
128 with a padding mask: the BERT-base row of the CPU benchmark (tools/bench_cpu.py).
examples/bert_base_fp16 is the same model in fp16, examples/bench/bert_base_bf16 in bf16.

    pt2c examples/bench/bert_base/model.py --cpu native -o bert_base.so
    tools/bench_cpu.py examples/bench/bert_base/model.py bert_base.so

About 420 MiB of fp32 weights (`--external-weights` keeps them out of the .so).
"""
import importlib.util
import pathlib

import torch
from transformers import BertConfig, BertModel

SEQUENCE = 128

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
    return _seeded.seeded_weights(BertModel(config)).eval()


def example_inputs():
    ids = torch.randint(0, 30522, (1, SEQUENCE), generator=torch.Generator().manual_seed(1))
    mask = torch.ones(1, SEQUENCE, dtype=torch.long)
    mask[0, 100:] = 0  # padded after 100 tokens
    return (ids, mask)
