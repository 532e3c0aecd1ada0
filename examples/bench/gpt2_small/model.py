"""transformers' GPT2LMHeadModel at GPT-2 small's size (12 layers, n_embd 768, 12 heads,
vocabulary 50257, the LM head tied to the token embedding) with random weights (no
download), fp32, batch 1, one 128-token prompt, use_cache=False (no KV cache: a prefill
that returns the logits): the decoder row of the CPU benchmark (tools/bench_cpu.py).

    pt2c examples/bench/gpt2_small/model.py --cpu native -o gpt2_small.so
    tools/bench_cpu.py examples/bench/gpt2_small/model.py gpt2_small.so

About 475 MiB of fp32 weights (`--external-weights` keeps them out of the .so). The
output is the logits, 128 x 50257.
"""
import importlib.util
import pathlib

import torch
from transformers import GPT2Config, GPT2LMHeadModel

SEQUENCE = 128
VOCAB = 50257

# examples/seeded_weights.py, two folders up: weights that do not depend on the
# transformers version.
_spec = importlib.util.spec_from_file_location(
    "seeded_weights", pathlib.Path(__file__).resolve().parents[2] / "seeded_weights.py")
_seeded = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_seeded)


def model():
    torch.manual_seed(0)  # the same weights on every export
    config = GPT2Config(vocab_size=VOCAB, n_positions=1024, n_embd=768, n_layer=12,
                        n_head=12, use_cache=False)
    return _seeded.seeded_weights(GPT2LMHeadModel(config)).eval()


def example_inputs():
    return (torch.randint(0, VOCAB, (1, SEQUENCE), generator=torch.Generator().manual_seed(1)),)
