"""Transformer models end to end against PyTorch eager: nn.TransformerEncoder with a
key padding mask (examples/transformer), a GPT-style decoder block
(examples/gpt_block), and transformers' BertModel and GPT2LMHeadModel built from small
configs with random weights."""
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


BERT = """
    import torch
    from transformers import BertConfig, BertModel

    def model():
        torch.manual_seed(0)
        config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2,
                            num_attention_heads=4, intermediate_size=64,
                            max_position_embeddings=16)
        return BertModel(config)

    def example_inputs():
        ids = torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(1))
        mask = torch.ones(2, 8, dtype=torch.long)
        mask[1, 5:] = 0
        return (ids, mask)
"""

GPT2 = """
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    def model():
        torch.manual_seed(0)
        config = GPT2Config(vocab_size=100, n_positions=16, n_embd=32, n_layer=2, n_head=4,
                            bos_token_id=0, eos_token_id=0)
        return GPT2LMHeadModel(config)

    def example_inputs():
        return (torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(1)),)
"""


@pytest.mark.parametrize("source", [BERT, GPT2], ids=["bert", "gpt2"])
def test_huggingface_model(pt2c, cpp_host, python, tmp_path, source):
    pytest.importorskip("transformers")
    check_against_eager(pt2c, cpp_host, python, write_model(tmp_path, source), tmp_path)
