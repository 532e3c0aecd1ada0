"""transformers' BertModel at bert-base's size (12 layers, hidden 768, 12 heads,
intermediate 3072) with random weights (no download), in fp16 (`model.half()`), batch 1
at sequence length 128 with a padding mask: the issue's BERT-base fp16 latency row in
docs/BENCHMARKS.md.

    pt2c examples/bert_base_fp16/model.py --target cuda --external-weights -o bert_base_fp16_cuda.so

About 210 MiB of fp16 weights, hence external weights when the .so must travel light.
"""
import torch
from transformers import BertConfig, BertModel

SEQUENCE = 128


def seeded_weights(net):
    """Draws every parameter from one seeded generator, module by module in definition
    order, instead of keeping the library's init: the GPU machine remakes the weights
    file from this model.py (`python -m pt2c_exporter weights`), possibly with another
    transformers whose init consumes random numbers in another order. LayerNorm gets weights
    near 1; everything else N(0, 0.02)."""
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for module in net.modules():
            for name, p in module.named_parameters(recurse=False):
                p.normal_(0.0, 0.1 if isinstance(module, torch.nn.LayerNorm) else 0.02,
                          generator=g)
                if isinstance(module, torch.nn.LayerNorm) and name == "weight":
                    p.add_(1.0)
    return net


def model():
    torch.manual_seed(0)  # the same weights on every export, here and on the GPU machine
    config = BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=12,
                        num_attention_heads=12, intermediate_size=3072,
                        max_position_embeddings=512)
    return seeded_weights(BertModel(config)).eval().half()


def example_inputs():
    ids = torch.randint(0, 30522, (1, SEQUENCE), generator=torch.Generator().manual_seed(1))
    mask = torch.ones(1, SEQUENCE, dtype=torch.long)
    mask[0, 100:] = 0  # padded after 100 tokens
    return (ids, mask)
