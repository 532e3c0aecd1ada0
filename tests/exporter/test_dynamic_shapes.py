"""model.py's dynamic_shapes: sizes that follow dynamic dims become expressions in the
artifact, fitted from traces at several sizes; and the errors around them.

Run with either interpreter (torch 1.13 from Debian, torch 2.x from the venv):
    python -m pytest tests/exporter/test_dynamic_shapes.py
"""
import json
import os
import subprocess

import pytest

# exporter_harness first: it puts pt2c_pb2 on sys.path.
from exporter_harness import REPO, arg, assert_failed, dims, graph_of, nodes, shown, sizes_of

MLP = """
    import torch

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(64, 32)
            self.fc2 = torch.nn.Linear(32, 10)

        def forward(self, x):
            h = x.reshape(x.shape[0], -1)
            return self.fc2(torch.relu(self.fc1(h)))

    model = MLP()
    example_inputs = (torch.randn(8, 4, 16),)
    dynamic_shapes = {"x": {0: ("batch", 1, 64)}}
"""


def test_mlp_dynamic_batch(export_source):
    run = export_source(MLP)
    graph = graph_of(run)
    assert " weights (9.4 KiB), dynamic batch [1, 64] in " in run.stderr
    assert dims(graph) == [("batch", 1, 64, [("x", 0)], [8, 9, 17])]
    assert sizes_of(graph, "x") == ["batch", 4, 16]
    # torch 2.x records view(x, [batch, -1]); 1.13 _reshape_alias(x, [batch, 64], [64, 1]).
    (reshape,) = [n for n in graph.nodes if n.loc.code.startswith("h = x.reshape")]
    assert arg(reshape, "size")[0] == "batch"
    assert sizes_of(graph, reshape.outputs[0]) == ["batch", 64]
    assert [shown(s) for s in graph.values[-1].meta.sizes] == ["batch", 10]
    addmms = nodes(graph, "aten::addmm")
    assert [sizes_of(graph, n.outputs[0]) for n in addmms] == [["batch", 32], ["batch", 10]]
    # The weights keep their numbers; the structured form and hint travel with the text.
    assert sizes_of(graph, "p_fc1_weight") == [32, 64]
    batch = graph.values[[v.name for v in graph.values].index("x")].meta.sizes[0]
    assert batch.hint == 8
    assert [(t.coefficient, list(t.symbols)) for t in batch.symbolic.terms] == [(1, ["batch"])]
    assert (batch.symbolic.constant, batch.symbolic.divisor) == (0, 1)


ATTENTION = """
    import torch

    class Attention(torch.nn.Module):
        def __init__(self, c=16, heads=2):
            super().__init__()
            self.heads = heads
            self.qkv = torch.nn.Linear(c, 3 * c)
            self.register_buffer("causal", torch.tril(torch.ones(32, 32)).view(1, 1, 32, 32))

        def forward(self, x, keep):
            B, T, C = x.shape
            q, k, v = self.qkv(x).split(C, dim=2)
            q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * 0.25
            att = att.masked_fill(self.causal[:, :, :T, :T] == 0, float("-inf"))
            att = att.masked_fill(keep.view(B, 1, 1, T) == 0, -1e4).softmax(-1)
            y = (att @ v).transpose(1, 2).reshape(B * T, C)
            positions = torch.arange(T).expand(B, T)
            return y, positions

    class Dim:  # any object with a name, min and max will do (torch.export.Dim too)
        def __init__(self, name, min, max):
            self.name, self.min, self.max = name, min, max

    model = Attention()
    example_inputs = (torch.randn(2, 8, 16), torch.ones(2, 8, dtype=torch.long))
    dynamic_shapes = {"x": (Dim("batch", 1, 16), Dim("seq", 2, 32), None),
                      "keep": {0: "batch", -1: "seq"}}
"""


def test_attention_dynamic_batch_and_seq(export_source):
    graph = graph_of(export_source(ATTENTION))
    assert dims(graph) == [("batch", 1, 16, [("x", 0), ("keep", 0)], [2, 3, 5]),
                           ("seq", 2, 32, [("x", 1), ("keep", 1)], [8, 9, 17])]
    assert sizes_of(graph, "keep") == ["batch", "seq"]
    views = [arg(n, "size") for n in nodes(graph, "aten::view")]
    assert ["batch", "seq", 2, 8] in views
    assert ["batch", 1, 1, "seq"] in views
    (arange,) = nodes(graph, "aten::arange")
    assert arg(arange, "end") == "seq"
    assert sizes_of(graph, arange.outputs[0]) == ["seq"]
    slices = [n for n in nodes(graph, "aten::slice") if "causal" in n.loc.code]
    assert [arg(n, "end") for n in slices if arg(n, "dim") >= 2] == ["seq", "seq"]
    (expand,) = [n for n in nodes(graph, "aten::expand") if n.loc.code.startswith("positions")]
    assert arg(expand, "size") == ["batch", "seq"]
    # Attention scores and the flattened output: products of the dims.
    (scores,) = [n for n in nodes(graph, "aten::bmm") if n.loc.code.startswith("att = (q")]
    assert sizes_of(graph, scores.outputs[0]) == ["2*batch", "seq", "seq"]
    outputs = [o.value for o in graph.outputs]
    assert sizes_of(graph, outputs[0]) == ["batch*seq", 16]
    assert sizes_of(graph, outputs[1]) == ["batch", "seq"]


def test_fitted_expressions(export_source):
    graph = graph_of(export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                T = x.shape[1]
                with_cls = torch.cat([x[:, :1], x], dim=1)    # seq + 1
                every_other = x[:, ::2]                        # (seq + 1) // 2
                half = torch.arange(T // 2)                    # seq // 2
                flat = x.reshape(x.shape[0], T * 4)            # 4*seq
                tail = x[:, 1:T - 1]                           # seq - 2
                return with_cls, every_other, half, flat, tail

        model = M()
        example_inputs = (torch.randn(2, 10, 4),)
        dynamic_shapes = {"x": {1: ("seq", 4, 40)}}
    """))
    assert dims(graph) == [("seq", 4, 40, [("x", 1)], [10, 11, 21])]
    outs = [sizes_of(graph, o.value) for o in graph.outputs]
    assert outs == [[2, "seq + 1", 4], [2, "(seq + 1) // 2", 4], ["seq // 2"], [2, "4*seq"],
                    [2, "seq - 2", 4]]
    (arange,) = nodes(graph, "aten::arange")
    assert arg(arange, "end") == "seq // 2"
    ends = [arg(n, "end") for n in nodes(graph, "aten::slice")]
    assert "seq - 1" in ends and 1 in ends


def test_graph_that_depends_on_the_size(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                if x.shape[0] > 8:
                    x = x * 2
                return x + 1

        model = M()
        example_inputs = (torch.randn(8, 3),)
        dynamic_shapes = {"x": {0: ("batch", 1, 32)}}
    """)
    assert_failed(run, "the graph depends on the size of batch (x dim 0)",
                  "traced 1 ops at batch=8 and 2 at batch=9",
                  "first difference at op 0: aten::add.Tensor at model.py:8: `return x + 1` "
                  "at batch=8, aten::mul.Tensor at model.py:7: `x = x * 2` at batch=9")


def test_attributes_a_forward_sets_are_reset_between_traces(export_source):
    # torchvision's MultiScaleRoIAlign sets its scales on the first call only: every
    # trace must start from the module as it was, or the retraces would skip that work
    # and record other ops.
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = None

            def forward(self, x):
                if self.scale is None:
                    self.scale = float(torch.tensor(8.0).log2())
                return x * self.scale

        model = M()
        example_inputs = (torch.randn(8, 3),)
        dynamic_shapes = {"x": {0: ("batch", 1, 32)}}
    """)
    assert run.returncode == 0, run.stderr


def test_range_that_excludes_the_example_size(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                return x + 1

        model = M()
        example_inputs = (torch.randn(8, 3),)
        dynamic_shapes = {"x": {0: ("batch", 16, 64)}}
    """)
    assert_failed(run, "model.py: dynamic_shapes['x'] dim 0: the example input's size 8 is "
                  "outside batch's range [16, 64]")


# The declaration is checked before anything is traced: in process, without an export.
@pytest.mark.parametrize("declared, parts", [
    ({"y": {0: ("batch", 1, 64)}}, ["dynamic_shapes names input 'y', but forward() takes x"]),
    ({"x": {2: ("batch", 1, 64)}}, ["declares dim 2, but the input has rank 2 (shape [8, 3])"]),
    ({"x": {0: ("batch", 64, 1)}}, ["batch has an empty or negative range [64, 1]"]),
    ({"x": {0: ("batch", 1, 64), 1: "seq"}}, ["'seq' names no dimension declared"]),
    ({"x": {0: ("n", 1, 64), 1: ("n", 1, 64)}}, ["n is 3 here but 8 at x dim 0"]),
    ({"x": {0: ("n", 1, 64), 1: ("n", 1, 32)}},
     ["n is declared with range [1, 32] here and [1, 64] elsewhere"]),
    ({"x": {0: ("batch", 8, 8)}}, ["holds one size; it is not dynamic"]),
    ({"x": {0: ("batch", 1.5, 8)}}, ["batch needs integer bounds"]),
    ({"x": {0: ("2d", 1, 8)}}, ["the dimension's name '2d' must be an identifier"]),
    ({"x": {0: 64}}, ["64 is no dimension spec"]),
    ({"x": {0: ("b", 1, 64), -2: ("c", 1, 64)}}, ["dynamic_shapes['x'] declares dim 0 twice"]),
    ({"x": [("batch", 1, 64)]}, ["dynamic_shapes['x'] has 1 entries but the input has rank 2"]),
    ([{0: ("batch", 1, 64)}], ["dynamic_shapes has 1 entries but example_inputs has 2"]),
    ({"mask": {0: ("batch", 1, 64)}}, ["declares dims of 'mask', which example_inputs passes as None"]),
    ("batch", ["dynamic_shapes is a str; expected a dict"]),
])
def test_declaration_errors(declared, parts):
    import torch
    from pt2c_exporter.dynamic_shapes import load_dynamic_shapes
    from pt2c_exporter.user_errors import ExportError
    inputs = (torch.zeros(8, 3), None)
    with pytest.raises(ExportError) as error:
        load_dynamic_shapes(declared, ["x", "mask"], inputs, "model.py")
    for part in parts:
        assert part in error.value.message


def test_declaration_forms():
    import torch
    from pt2c_exporter.dynamic_shapes import load_dynamic_shapes
    inputs = (torch.zeros(8, 3, 5), torch.zeros(8, 3))
    forms = [{"x": {0: ("b", 1, 64), -2: {"name": "t", "min": 2, "max": 9}}, "mask": {0: "b", 1: "t"}},
             [(("b", 1, 64), ("t", 2, 9), None), {0: "b", 1: "t"}],
             lambda: {"mask": [("b", 1, 64), ("t", 2, 9)], "x": {0: "b", 1: "t"}}]
    for declared in forms:
        shapes = load_dynamic_shapes(declared, ["x", "mask"], inputs, "model.py")
        found = sorted((s.name, s.min, s.max, s.example, sorted(s.places)) for s in shapes.symbols)
        assert found == [("b", 1, 64, 8, [(0, "x", 0), (1, "mask", 0)]),
                         ("t", 2, 9, 3, [(0, "x", 1), (1, "mask", 1)])]


def test_model_that_raises_at_another_size(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                assert x.shape[0] <= 12, "at most 12 rows"
                return x + 1

        model = M()
        example_inputs = (torch.randn(8, 3),)
        dynamic_shapes = {"x": {0: ("rows", 1, 32)}}
    """)
    assert_failed(run, "the model raised when traced at rows=17 (dynamic_shapes declares rows "
                  "in [1, 32]): AssertionError: at most 12 rows", "model.py\", line 6")


def test_size_without_an_expression(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                t = x.shape[0]
                return x.sum() + torch.zeros(t * t % 7 + 1)

        model = M()
        example_inputs = (torch.randn(8, 3),)
        dynamic_shapes = {"x": {0: ("n", 1, 32)}}
    """)
    assert_failed(run, "entry 0 of argument size of aten::zeros.default at model.py:7",
                  "follows no expression of the dynamic dims",
                  "(2 at n=8; 5 at n=9; 3 at n=17; tried")


def test_float_that_depends_on_the_size(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                return x * (1.0 / x.shape[0])

        model = M()
        example_inputs = (torch.randn(8, 3),)
        dynamic_shapes = {"x": {0: ("n", 1, 32)}}
    """)
    assert_failed(run, "argument other of aten::mul.Tensor at model.py:6",
                  "is a float that depends on the dynamic dims", "0.125 at n=8")


def test_report_lists_the_dynamic_dims(export_source):
    run = export_source(ATTENTION)
    graph_of(run)
    from pt2c_exporter.report_text import format_report
    artifact = run.artifact().message
    text = format_report(artifact.report, artifact.model_path, artifact.producer,
                         artifact.graphs)
    assert ("dynamic dimensions of forward:\n"
            "NAME   RANGE    INPUTS               TRACED AT\n"
            "batch  [1, 16]  x dim 0, keep dim 0  2 (example), 3, 5\n"
            "seq    [2, 32]  x dim 1, keep dim 1  8 (example), 9, 17\n") in text
    pt2c = os.path.join(REPO, "bazel-bin", "tools", "pt2c", "pt2c")
    if os.path.exists(pt2c):  # the C++ printer prints the same bytes
        report = subprocess.run([pt2c, "report", run.output], stdout=subprocess.PIPE,
                                universal_newlines=True)
        assert report.returncode == 0 and report.stdout == text
        as_json = subprocess.run([pt2c, "report", "--json", run.output], stdout=subprocess.PIPE,
                                 universal_newlines=True)
        assert json.loads(as_json.stdout)["dynamic_dims"] == [
            {"graph": "forward", "name": "batch", "min": 1, "max": 16,
             "inputs": [{"input": "x", "dim": 0}, {"input": "keep", "dim": 0}],
             "traced_sizes": [2, 3, 5]},
            {"graph": "forward", "name": "seq", "min": 2, "max": 32,
             "inputs": [{"input": "x", "dim": 1}, {"input": "keep", "dim": 1}],
             "traced_sizes": [8, 9, 17]}]


def test_a_dynamic_artifact_compiles_and_runs_other_batch_sizes(export_source, tmp_path):
    """The artifact this torch exported compiles, and the .so takes other batch sizes
    (numerics against eager: tests/e2e/test_dynamic_shapes.py)."""
    import numpy as np
    pt2c = os.path.join(REPO, "bazel-bin", "tools", "pt2c", "pt2c")
    if not os.path.exists(pt2c):
        pytest.skip("bazel-bin/tools/pt2c/pt2c is not built (bazel build //tools/pt2c)")
    run = export_source(MLP)
    assert run.returncode == 0, run.stderr
    so = str(tmp_path / "model.so")
    proc = subprocess.run([pt2c, "compile", run.output, "-o", so], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
    for batch in (1, 3, 64):
        x = tmp_path / f"x{batch}.npy"
        np.save(x, np.ones((batch, 4, 16), np.float32))
        out = tmp_path / f"out{batch}"
        proc = subprocess.run([pt2c, "run", so, "--input", str(x), "--output-dir", str(out)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)
        assert proc.returncode == 0, proc.stderr
        y = np.load(out / "0.npy")
        assert y.shape == (batch, 10)
        assert np.allclose(y, y[:1])  # equal rows in, equal rows out


@pytest.mark.parametrize("truth, text", [
    (lambda b, t: 7, "7"),
    (lambda b, t: b, "batch"),
    (lambda b, t: 3 * t - 2, "3*seq - 2"),
    (lambda b, t: -t, "-seq"),
    (lambda b, t: 12 * b * t, "12*batch*seq"),
    (lambda b, t: 2 * b * t * t, "2*batch*seq*seq"),
    (lambda b, t: b + t, "batch + seq"),
    (lambda b, t: b * t + t, "seq + batch*seq"),
    (lambda b, t: t // 4, "seq // 4"),
    (lambda b, t: (t + 2 * 1 - 3) // 2 + 1, "(seq + 1) // 2"),  # conv: k=3, s=2, p=1
    (lambda b, t: (b * t) // 3, "batch*seq // 3"),
    (lambda b, t: (t * t) % 7, None),
])
def test_fitter(truth, text):
    from pt2c_exporter.dynamic_trace import trace_sizes
    from pt2c_exporter.dynamic_shapes import Symbol
    from pt2c_exporter.symbolic_fit import Fitter
    batch, seq = Symbol("batch", 1, 64), Symbol("seq", 2, 512)
    batch.example, seq.example = 4, 16
    assert (trace_sizes(batch), trace_sizes(seq)) == ([5, 9], [17, 33])
    points = [{"batch": 4, "seq": 16}, {"batch": 5, "seq": 16}, {"batch": 9, "seq": 16},
              {"batch": 4, "seq": 17}, {"batch": 4, "seq": 33}, {"batch": 5, "seq": 17}]
    fitted = Fitter(["batch", "seq"], points).fit([truth(p["batch"], p["seq"]) for p in points])
    assert (fitted and fitted.text()) == text
    if fitted is not None:  # right at sizes it was not fitted to
        assert all(fitted.evaluate({"batch": b, "seq": t}) == truth(b, t)
                   for b in (1, 2, 7, 64) for t in (2, 3, 100, 512))


@pytest.mark.parametrize("example, low, high, sizes", [
    (8, 1, 64, [9, 17]),
    (16, 1, 32, [17, 24]),   # not 32: `buffer[:t]` of a 32-long buffer is no op at all
    (32, 1, 32, [31, 16]),
    (1, 1, 64, [2, 3]),      # not 0 or 1: broadcasting's special case
    (2, 1, 2, [1]),          # nothing else in range
])
def test_trace_sizes(example, low, high, sizes):
    from pt2c_exporter.dynamic_trace import trace_sizes
    from pt2c_exporter.dynamic_shapes import Symbol
    symbol = Symbol("n", low, high)
    symbol.example = example
    assert trace_sizes(symbol) == sizes


def test_bert_dynamic_batch_and_seq(export_source):
    pytest.importorskip("transformers")
    graph = graph_of(export_source("""
        import torch
        from transformers import BertConfig, BertModel

        torch.manual_seed(0)
        model = BertModel(BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=64,
                                     max_position_embeddings=64))
        ids = torch.randint(0, 100, (2, 12))
        mask = torch.ones(2, 12, dtype=torch.long)
        mask[1, 9:] = 0
        example_inputs = (ids, mask)
        dynamic_shapes = {"input_ids": {0: ("batch", 1, 8), 1: ("seq", 2, 64)},
                          "attention_mask": {0: "batch", 1: "seq"}}
    """))
    assert [d.name for d in graph.dynamic_dims] == ["batch", "seq"]
    (positions,) = [n for n in nodes(graph, "aten::slice")
                    if n.args[0].tensor == "b_embeddings_position_ids"]
    assert arg(positions, "end") == "seq"
    hidden = {o.name: o.value for o in graph.outputs}["last_hidden_state"]
    assert sizes_of(graph, hidden) == ["batch", "seq", 32]


def test_resized_inputs_repeat_the_example_in_its_memory_order():
    import torch
    from pt2c_exporter.dynamic_trace import resized_inputs
    example = torch.arange(6).view(2, 3).t()  # [3, 2], transposed in memory
    mask = torch.ones(3)
    (grown, same) = resized_inputs((example, mask), {(0, 0): 5, (0, 1): 3})
    assert grown.shape == (5, 3) and grown.stride() == (1, 5)
    assert grown.tolist() == [[0, 3, 0], [1, 4, 1], [2, 5, 2], [0, 3, 0], [1, 4, 1]]
    assert same is mask


def test_torch_export_dims():
    import torch
    export = pytest.importorskip("torch.export")
    if not hasattr(export, "Dim"):
        pytest.skip("this torch has no torch.export.Dim")
    from pt2c_exporter.dynamic_shapes import load_dynamic_shapes
    from pt2c_exporter.user_errors import ExportError
    inputs = (torch.zeros(8, 3),)
    shapes = load_dynamic_shapes({"x": {0: export.Dim("batch", min=1, max=64)}}, ["x"],
                                 inputs, "model.py")
    assert [(s.name, s.min, s.max) for s in shapes.symbols] == [("batch", 1, 64)]
    with pytest.raises(ExportError) as error:  # torch's default max is unbounded
        load_dynamic_shapes({"x": {0: export.Dim("batch")}}, ["x"], inputs, "model.py")
    assert "batch needs integer bounds" in error.value.message
