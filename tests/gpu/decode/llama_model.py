"""A Llama-style fp16 decoder (transformers' LlamaForCausalLM, small random config: GQA
with 8 query and 2 key/value heads, RoPE, SwiGLU, RMS norm) with a static KV cache as
model state, for the decode benchmark on a GPU (tests/gpu/README.md, "Decode latency"):
the same two graphs as examples/gpt2_generate (a `prefill` graph for prompts of 2..1088
tokens, a one-token `decode` graph), so that tools/bench_decode.py measures decode steps
at contexts up to 1024 with 64 steps to spare.

    pt2c tests/gpu/decode/llama_model.py --target cuda -o llama_cuda.so
"""
import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM
from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

VOCAB = 4096
MAX_LEN = 1088


def model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=512, intermediate_size=1024,
                         num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2,
                         max_position_embeddings=MAX_LEN, initializer_range=0.3,
                         bos_token_id=0, eos_token_id=0, pad_token_id=0)
    lm = LlamaForCausalLM(config).to(torch.float16).eval()
    lm.generation_config = GenerationConfig(
        use_cache=True, cache_implementation="static",
        cache_config={"batch_size": 1, "max_cache_len": MAX_LEN})
    return TorchExportableModuleWithStaticCache(lm)


def signatures():
    prompt = torch.randint(0, VOCAB, (1, 8), generator=torch.Generator().manual_seed(1))
    return {
        "prefill": {"inputs": (prompt, None, torch.arange(8)),
                    "dynamic_shapes": {"input_ids": {1: ("prompt", 2, MAX_LEN)},
                                       "cache_position": {0: "prompt"}}},
        "decode": (prompt[:, :1], None, torch.tensor([8])),
    }
