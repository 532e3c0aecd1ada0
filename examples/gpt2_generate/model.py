"""transformers' GPT-2 (a small config, random weights seeded) for generation driven from
C++: the KV cache is model state, filled by a `prefill` graph for the prompt and read and
extended by a one-token `decode` graph. generate.cpp runs greedy decoding with no Python.

    pt2c examples/gpt2_generate/model.py -o gpt2_generate.so
    gpt2_generate gpt2_generate.so --prompt 3,14,15,92 --new-tokens 20

The cache is transformers' StaticCache, made exportable by its own recipe
(TorchExportableModuleWithStaticCache registers the cache tensors as module buffers):
forward(input_ids, inputs_embeds=None, cache_position) writes the new keys and values at
`cache_position` (index_copy_) and attends over the whole cache. Both graphs are that
forward; a run picks the graph by the prompt's length.
"""
import torch
from transformers import GenerationConfig, GPT2Config, GPT2LMHeadModel
from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

VOCAB = 512
MAX_LEN = 128  # the cache: prompt and generated tokens together


def language_model():
    """The plain model, which the eager reference (reference.py) runs too."""
    torch.manual_seed(0)
    # Weights wider than GPT-2's 0.02: with those, a random model repeats one token forever,
    # which would make comparing token sequences with eager a weak test.
    config = GPT2Config(vocab_size=VOCAB, n_positions=MAX_LEN, n_embd=128, n_layer=4, n_head=4,
                        initializer_range=0.3, bos_token_id=0, eos_token_id=0)
    return GPT2LMHeadModel(config).eval()


def model():
    lm = language_model()
    lm.generation_config = GenerationConfig(
        use_cache=True, cache_implementation="static",
        cache_config={"batch_size": 1, "max_cache_len": MAX_LEN})
    return TorchExportableModuleWithStaticCache(lm)


def signatures():
    prompt = torch.randint(0, VOCAB, (1, 8), generator=torch.Generator().manual_seed(1))
    return {
        # The prompt: 2..MAX_LEN tokens at positions 0..n-1 (one token is a decode step).
        "prefill": {"inputs": (prompt, None, torch.arange(8)),
                    "dynamic_shapes": {"input_ids": {1: ("prompt", 2, MAX_LEN)},
                                       "cache_position": {0: "prompt"}}},
        # One token at position p, attending over the cache the earlier runs filled.
        "decode": (prompt[:, :1], None, torch.tensor([8])),
    }
