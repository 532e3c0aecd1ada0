"""Transformer models end to end against PyTorch eager: nn.TransformerEncoder with a
key padding mask (examples/transformer), a GPT-style decoder block
(examples/gpt_block), and transformers' BertModel, GPT2LMHeadModel, LlamaForCausalLM and
T5ForConditionalGeneration built from small configs with random weights."""
import os

import numpy as np
import pytest
import torch

from conftest import REPO, env_without_python, load_model_file, run
from harness import check_against_eager, compile_model, write_model

TRANSFORMER = REPO / "examples" / "transformer" / "model.py"
GPT_BLOCK = REPO / "examples" / "gpt_block" / "model.py"


def run_against(cpp_host, so, inputs, refs, work, tolerance=1e-4):
    """Runs `so` on numpy `inputs` in a process without Python, comparing with `refs`."""
    work.mkdir(parents=True, exist_ok=True)
    cmd = [cpp_host, so, "--output-dir", work / "out", "--tolerance", str(tolerance)]
    for i, x in enumerate(inputs):
        np.save(work / f"input{i}.npy", x)
        cmd += ["--input", work / f"input{i}.npy"]
    for i, r in enumerate(refs):
        np.save(work / f"ref{i}.npy", r)
        cmd += ["--reference", work / f"ref{i}.npy"]
    result = run(cmd, env=env_without_python())
    assert result.returncode == 0, result.stdout + result.stderr


def test_transformer_encoder_with_padding_masks(pt2c, cpp_host, tmp_path):
    so = compile_model(pt2c, TRANSFORMER, tmp_path)
    model, (x, mask) = load_model_file(TRANSFORMER)
    generator = torch.Generator().manual_seed(5)
    # The traced mask, no padding, and padding in both sequences: the mask is data.
    masks = [mask, torch.zeros_like(mask), torch.tensor([[False] * 6 + [True] * 4,
                                                         [False] * 9 + [True]])]
    for i, m in enumerate(masks):
        x = torch.randn(x.shape, generator=generator)
        with torch.no_grad():
            ref = model(x, m)
        run_against(cpp_host, so, [x.numpy(), m.numpy()], [ref.numpy()], tmp_path / str(i))


def test_gpt_block_example(pt2c, cpp_host, python, tmp_path):
    check_against_eager(pt2c, cpp_host, python, GPT_BLOCK, tmp_path)


def test_gpt_block_without_kv_cache(pt2c, cpp_host, python, tmp_path):
    source = "".join(line for line in GPT_BLOCK.read_text().splitlines(keepends=True)
                     if "kv_cache" not in line)
    model = write_model(tmp_path, source)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_gpt2_residual_adds_join_their_gemm_steps(pt2c, tmp_path):
    """GPT-2's residual adds after c_proj (attention and MLP, 2 layers) join those GEMM
    steps as BIAS_ADD: a Linear on [batch, seq, features] keeps its bias add and the
    residual add in two kernels, and the GEMM's operands live until the second
    (ExecutionPlan.cpp), so that no output lands on an operand's bytes."""
    pytest.importorskip("transformers")
    so = compile_model(pt2c, REPO / "examples" / "gpt2" / "model.py", tmp_path)
    env = dict(os.environ, PT2C_PROFILE="100")
    profiled = run([pt2c, "bench", so, "--runs", "1", "--warmup", "0"], env=env)
    assert profiled.returncode == 0, profiled.stderr
    assert profiled.stderr.count("+ bias + C") == 4, profiled.stderr


@pytest.mark.parametrize("example", ["bert", "gpt2"])
def test_huggingface_model(pt2c, cpp_host, python, tmp_path, example):
    pytest.importorskip("transformers")
    check_against_eager(pt2c, cpp_host, python, REPO / "examples" / example / "model.py",
                        tmp_path)


# LLaMA: RMSNorm, rotary embeddings (cos/sin, rotate_half, cat), SiLU MLP and grouped
# key/value heads (4 query heads share 2). Without a cache: use_cache=False keeps
# DynamicCache objects out of the trace.
LLAMA = """
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    def model():
        torch.manual_seed(0)
        config = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128,
                             num_hidden_layers=2, num_attention_heads=4,
                             num_key_value_heads=2, max_position_embeddings=64,
                             use_cache=False)
        return LlamaForCausalLM(config)

    def example_inputs():
        ids = torch.randint(0, 256, (2, 16), generator=torch.Generator().manual_seed(1))
        return (ids,%s)
"""
# With an attention mask, transformers builds the causal-and-padding mask itself
# (masking_utils: arange, comparisons, index, bitwise_and, all over the mask).
LLAMA_PADDING_MASK = " torch.tensor([[1] * 16, [1] * 12 + [0] * 4])"

# t5-small's config (its config.json: d_model 512, 8 heads, d_ff 2048, 32 relative-position
# buckets, vocabulary 32128, 6 + 6 layers). The default run keeps 2 + 2 layers to stay
# quick; PT2C_FULL_SWEEP=1 (CI) compiles the full 6 + 6 (docs/ZOO.md has its numbers).
# Called with keywords: T5's second positional input is attention_mask.
T5_LAYERS = """
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    class Seq2SeqLogits(torch.nn.Module):
        def __init__(self, t5):
            super().__init__()
            self.t5 = t5

        def forward(self, input_ids, decoder_input_ids):
            return self.t5(input_ids=input_ids, decoder_input_ids=decoder_input_ids).logits

    def model():
        torch.manual_seed(0)
        config = T5Config(vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=LAYERS,
                          num_decoder_layers=LAYERS, num_heads=8,
                          relative_attention_num_buckets=32,
                          relative_attention_max_distance=128, layer_norm_epsilon=1e-6,
                          feed_forward_proj="relu", decoder_start_token_id=0,
                          pad_token_id=0, eos_token_id=1, use_cache=False)
        return Seq2SeqLogits(T5ForConditionalGeneration(config).eval())

    def example_inputs():
        g = torch.Generator().manual_seed(1)
        return (torch.randint(0, 32128, (1, 16), generator=g),
                torch.randint(0, 32128, (1, 8), generator=g))
"""


def t5_source(layers):
    """model.py of t5-small's config with `layers` encoder and decoder layers."""
    return T5_LAYERS.replace("LAYERS", str(layers))


T5 = t5_source(2)


def check_token_model(pt2c, cpp_host, tmp_path, source, vocab, feeds):
    """Compiles a model whose inputs are token ids (and masks), then compares it with
    eager on fresh random token ids: `feeds(ids, draw)` gives the inputs for each draw of
    ids (eager_reference copies integer inputs, so it cannot draw them)."""
    model_py = write_model(tmp_path, source)
    so = compile_model(pt2c, model_py, tmp_path)
    model, examples = load_model_file(model_py)
    generator = torch.Generator().manual_seed(5)
    for draw in range(2):
        ids = [torch.randint(0, vocab, e.shape, generator=generator) for e in examples
               if e.dtype == torch.long]
        inputs = feeds(ids, draw)
        with torch.no_grad():
            ref = model(*inputs)
        ref = ref if isinstance(ref, torch.Tensor) else ref.logits
        run_against(cpp_host, so, [x.numpy() for x in inputs], [ref.numpy()],
                    tmp_path / f"draw{draw}")


def test_llama_causal_lm(pt2c, cpp_host, tmp_path):
    pytest.importorskip("transformers")
    check_token_model(pt2c, cpp_host, tmp_path, LLAMA % "", 256, lambda ids, draw: ids)


def test_llama_causal_lm_with_padding_mask(pt2c, cpp_host, tmp_path):
    pytest.importorskip("transformers")

    def with_mask(ids, draw):
        # Right padding of 8 tokens, then none at all. The trace saw padding, but
        # transformers, told it is being exported, builds the mask without reading whether
        # there is any (before, that read was a guard that refused the second draw).
        mask = torch.ones(ids[0].shape, dtype=torch.long)
        if draw == 0:
            mask[1, 8:] = 0
        return [ids[0], mask]

    check_token_model(pt2c, cpp_host, tmp_path, LLAMA % LLAMA_PADDING_MASK, 256, with_mask)


def test_t5_small_architecture(pt2c, cpp_host, tmp_path):
    pytest.importorskip("transformers")
    layers = 6 if os.environ.get("PT2C_FULL_SWEEP") == "1" else 2
    check_token_model(pt2c, cpp_host, tmp_path, t5_source(layers), 32128, lambda ids, draw: ids)
