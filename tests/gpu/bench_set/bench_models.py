"""The models of the CUDA bench set (issue 16: models nobody tuned pt2c for), built the
way users build them: transformers, timm and torchvision classes with random weights
(examples/seeded_weights.py: the same on every machine and library version), batch 1.
Each NAME.py beside this file is one model.py (`model()`, `example_inputs()`) that
calls a builder here; tests/gpu/make_bench_set_bundle.sh compiles them for CUDA."""
import importlib.util
import pathlib

import torch


def find_upward(start, *relative):
    """The first of `relative` found in `start`'s folder or above: these files live in
    the source tree (tests/gpu/bench_set, examples/) and, copied, in a GPU bundle."""
    for folder in pathlib.Path(start).resolve().parents:
        for name in relative:
            if (folder / name).is_file():
                return folder / name
    raise FileNotFoundError(f"none of {relative} above {start}")


def load_file(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_seeded = load_file(find_upward(__file__, "seeded_weights.py", "examples/seeded_weights.py"),
                    "seeded_weights")


def prepared(net, dtype):
    return _seeded.seeded_weights(net).eval().to(dtype)


def image(size, dtype):
    return (torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(1)).to(dtype),)


def llama_gqa(dtype=torch.float16):
    """A Llama/Mistral-style decoder: GQA (12 query heads, 4 key/value heads), RoPE,
    SwiGLU, RMS norm, 6 layers of hidden 768; logits of a 128-token prompt."""
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=8192, hidden_size=768, intermediate_size=2048,
                         num_hidden_layers=6, num_attention_heads=12, num_key_value_heads=4,
                         max_position_embeddings=512, use_cache=False)
    return prepared(LlamaForCausalLM(config), dtype)


def token_ids(vocab, length):
    return (torch.randint(0, vocab, (1, length), generator=torch.Generator().manual_seed(1)),)


def timm_model(name, dtype):
    import timm
    torch.manual_seed(0)
    return prepared(timm.create_model(name, pretrained=False), dtype)


def segformer(dtype):
    """transformers' SegformerForSemanticSegmentation at the b0 size (hidden sizes 32, 64,
    160, 256; efficient self-attention with reduction ratios 8, 4, 2, 1; 150 classes)."""
    from transformers import SegformerConfig, SegformerForSemanticSegmentation
    torch.manual_seed(0)
    return prepared(SegformerForSemanticSegmentation(SegformerConfig(num_labels=150)), dtype)


def torchvision_model(name, dtype):
    import torchvision
    torch.manual_seed(0)
    return prepared(getattr(torchvision.models, name)(weights=None), dtype)
