"""Mixture-of-experts layers, compiled by pt2c and compared with PyTorch eager on inputs
that route tokens to other experts than the traced input did: the routing ops on their
own (histc, _grouped_mm over rows sorted by expert) and transformers' Mixtral, whose
experts run as transformers' grouped_mm implementation (sort, histc, cumsum,
_grouped_mm). Neither needs a guard on which experts were hit: the decompositions
(compiler/transforms/decompose/ExpertRouting.cpp) have static shapes."""
import pytest
import torch

from conftest import load_model_file
from harness import check_against_eager, compile_model, write_model
from test_transformers import run_against


def test_expert_routing_ops_match_eager(pt2c, cpp_host, python, tmp_path):
    # Fresh random floats route differently (integer inputs would be copied), so the
    # group sizes _grouped_mm sees at run time differ from the traced ones.
    model = write_model(tmp_path, """
        import torch

        class Experts(torch.nn.Module):
            def __init__(self):
                super().__init__()
                g = torch.Generator().manual_seed(3)
                self.router = torch.nn.Parameter(torch.randn(8, 4, generator=g))
                self.up = torch.nn.Parameter(torch.randn(4, 8, 16, generator=g) / 3)
                self.batched = torch.nn.Parameter(torch.randn(4, 8, 16, generator=g))

            def forward(self, h, x):
                experts = torch.topk(h @ self.router, 2).indices.reshape(-1)  # 2 per token
                # stable: rows of one expert in token order, as pt2c's sort keeps ties
                sorted_ids, order = torch.sort(experts, stable=True)
                counts = torch.histc(sorted_ids.float(), bins=4, min=0, max=3)
                offsets = torch.cumsum(counts, 0, dtype=torch.int32)
                rows = h[order // 2]
                grouped = torch._grouped_mm(rows, self.up, offs=offsets)
                batched = torch._grouped_mm(h[:12].reshape(4, 3, 8), self.batched)
                return (counts, grouped, batched,
                        torch.histc(x, bins=7, min=-1.5, max=2),   # some outside the range
                        torch.histc(x * 3),                        # min = max = 0: data range
                        torch.histc(x[0] * 0 + 2, bins=3),         # one value: widened by 1
                        torch.histc(x, bins=5, min=-1, max=-1))    # equal bounds: data range

        model = Experts()
        example_inputs = (torch.randn(16, 8), torch.randn(3, 40))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


MIXTRAL = """
import torch
import transformers


def model():
    torch.manual_seed(0)
    config = transformers.MixtralConfig(
        vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        num_local_experts=4, num_experts_per_tok=2, use_cache=False)
    return transformers.MixtralForCausalLM(config).eval()


def example_inputs():
    return (torch.randint(3, 128, (2, 16), generator=torch.Generator().manual_seed(1)),)
"""


def routing(net, ids):
    """The experts each layer's router picks for every token of `ids`."""
    picked = []
    hooks = [layer.mlp.gate.register_forward_hook(
        lambda module, args, out: picked.append(out[2].clone())) for layer in net.model.layers]
    with torch.no_grad():
        logits = net(ids).logits
    for hook in hooks:
        hook.remove()
    return picked, logits


def test_mixtral_routes_fresh_tokens_like_eager(pt2c, cpp_host, tmp_path):
    pytest.importorskip("transformers")
    model_py = write_model(tmp_path, MIXTRAL)
    so = compile_model(pt2c, model_py, tmp_path)
    net, (traced_ids,) = load_model_file(model_py)
    traced, _ = routing(net, traced_ids)
    generator = torch.Generator().manual_seed(5)
    for draw in range(3):
        ids = torch.randint(3, 128, traced_ids.shape, generator=generator)
        picked, logits = routing(net, ids)
        # Other experts than in the trace, and other numbers of tokens per expert.
        assert any(not torch.equal(a, b) for a, b in zip(picked, traced))
        assert any(not torch.equal(torch.bincount(a.flatten(), minlength=4),
                                   torch.bincount(b.flatten(), minlength=4))
                   for a, b in zip(picked, traced))
        run_against(cpp_host, so, [ids.numpy()], [logits.numpy()], tmp_path / f"draw{draw}")
