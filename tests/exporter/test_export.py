"""Exporter tests: the MLP example's graph and weights, signatures, and error handling.

Run with either interpreter (torch 1.13 from Debian, torch 2.x from the venv):
    python -m pytest tests/exporter
"""
import importlib.util
import linecache
import os
import struct

import torch

from exporter_harness import MLP_MODEL, run_exporter  # first: puts pt2c_pb2 on sys.path
import pt2c_pb2 as pb


def graph_of(run):
    artifact = run.artifact()
    assert len(artifact.message.graphs) == 1
    return artifact.message.graphs[0]


def values_of(graph):
    return {v.name: v for v in graph.values}


def sizes(meta):
    return [s.value for s in meta.sizes]


def load_mlp():
    spec = importlib.util.spec_from_file_location("mlp_example", MLP_MODEL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.model()


# ---- the MLP example --------------------------------------------------------------

def test_mlp_op_sequence(mlp):
    graph = graph_of(mlp)
    # F.linear is CompositeImplicitAutograd: below autograd it is t + addmm, on 1.13 and 2.x.
    assert [n.target for n in graph.nodes] == [
        "aten::t", "aten::addmm", "aten::gelu", "aten::t", "aten::addmm"]
    assert all(n.overload == "default" for n in graph.nodes)
    assert graph.nodes[1].schema.startswith("aten::addmm(Tensor self, Tensor mat1, Tensor mat2")


def test_mlp_arguments(mlp):
    t, addmm, gelu = list(graph_of(mlp).nodes)[:3]
    assert [(a.name, a.tensor) for a in t.args] == [("self", "p_fc1_weight")]
    assert [a.name for a in addmm.args] == ["self", "mat1", "mat2", "beta", "alpha"]
    assert [a.tensor for a in addmm.args[:3]] == ["p_fc1_bias", "x", t.outputs[0]]
    assert addmm.args[3].int_value.value == 1  # defaults are recorded explicitly
    assert [(a.name, a.string_value) for a in gelu.args][1] == ("approximate", "none")
    assert gelu.args[0].tensor == addmm.outputs[0]


def test_mlp_signature(mlp):
    graph = graph_of(mlp)
    P, U = pb.InputSpec.PARAMETER, pb.InputSpec.USER_INPUT
    assert [(i.kind, i.name, i.value) for i in graph.inputs] == [
        (P, "fc1.weight", "p_fc1_weight"), (P, "fc1.bias", "p_fc1_bias"),
        (P, "fc2.weight", "p_fc2_weight"), (P, "fc2.bias", "p_fc2_bias"),
        (U, "x", "x")]
    assert [(o.kind, o.name, o.value) for o in graph.outputs] == [
        (pb.OutputSpec.USER_OUTPUT, "0", graph.nodes[-1].outputs[0])]


def test_mlp_value_metadata(mlp):
    graph = graph_of(mlp)
    values = values_of(graph)
    x = values["x"].meta
    assert (x.dtype, sizes(x), list(x.strides), x.storage_offset) == (pb.F32, [8, 64], [64, 1], 0)
    w = values["p_fc1_weight"]
    assert (sizes(w.meta), list(w.meta.strides)) == ([256, 64], [64, 1])
    t = values[graph.nodes[0].outputs[0]]  # a view: same storage, transposed strides
    assert (sizes(t.meta), list(t.meta.strides)) == ([64, 256], [1, 64])
    assert t.storage_id == w.storage_id != 0
    out = values[graph.outputs[0].value].meta
    assert (out.dtype, sizes(out), list(out.strides)) == (pb.F32, [8, 10], [10, 1])
    ids = [v.storage_id for v in graph.values if v.name not in ("t", "t_1")]
    assert len(set(ids)) == len(ids)  # nothing else aliases


def test_mlp_weights_blob(mlp):
    artifact = mlp.artifact()
    params = dict(load_mlp().named_parameters())
    entries = {w.name: w for w in artifact.message.weights}
    assert sorted(entries) == sorted(params)
    assert artifact.blob_start % 64 == 0
    for name, param in params.items():
        entry = entries[name]
        assert entry.offset % 64 == 0
        assert entry.nbytes == param.numel() * 4
        assert sizes(entry.meta) == list(param.shape)
        assert artifact.weight_bytes(name) == param.detach().numpy().tobytes()
    with open(mlp.output, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"PT2CART\x02"
    assert struct.unpack("<Q", head[8:16])[0] == artifact.message.ByteSize()
    assert struct.unpack("<I", head[20:24])[0] == 0  # reserved


def test_mlp_source_locations(mlp):
    graph = graph_of(mlp)
    expected = ["self.fc1(x)", "self.fc1(x)", "self.act(h)", "self.fc2(h)", "self.fc2(h)"]
    for node, code in zip(graph.nodes, expected):
        assert node.loc.file == "model.py"
        assert code in node.loc.code
        assert linecache.getline(MLP_MODEL, node.loc.line).strip() == node.loc.code


def test_mlp_producer_and_progress(mlp):
    artifact = mlp.artifact()
    assert artifact.message.format_version == 1
    assert "torch=%s" % torch.__version__ in artifact.message.producer
    assert "python=" in artifact.message.producer
    assert mlp.stderr.startswith("pt2c: exported ")
    assert "5 ops, 4 weights (75.0 KiB)" in mlp.stderr
    assert len(mlp.stderr.strip().splitlines()) == 1
    assert "report:" not in mlp.stderr  # every op is in ir/aten/aten_ops.txt
    assert list(artifact.message.report) == []


# ---- signatures of other models ---------------------------------------------------

def test_nested_dict_outputs(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                a = x * 2
                return {"logits": a, "parts": (a + 1, [a - 1]), "unset": None}
        model = M()
        example_inputs = (torch.ones(2, 3),)
    """)
    assert run.returncode == 0, run.stderr
    graph = graph_of(run)
    assert [o.name for o in graph.outputs] == ["logits", "parts.0", "parts.1.0"]
    assert [o.value for o in graph.outputs] == [n.outputs[0] for n in graph.nodes]


def test_nested_tuple_outputs(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def forward(self, x, y):
                return x + y, (x * y, x)
        model = M
        def example_inputs():
            return torch.ones(3), torch.ones(3)
    """)
    assert run.returncode == 0, run.stderr
    graph = graph_of(run)
    assert [(o.name, o.value) for o in graph.outputs] == [
        ("0", "add"), ("1.0", "mul"), ("1.1", "x")]
    assert [(i.name, i.kind) for i in graph.inputs] == [
        ("x", pb.InputSpec.USER_INPUT), ("y", pb.InputSpec.USER_INPUT)]


def test_constant_tensors(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = torch.full((4,), 0.5)  # a plain attribute: not a buffer
            def forward(self, x):
                return x * self.scale + torch.tensor([1.0, 2.0, 3.0, 4.0])
        model = M()
        example_inputs = (torch.ones(4),)
    """)
    assert run.returncode == 0, run.stderr
    artifact = run.artifact()
    graph = artifact.message.graphs[0]
    constants = {i.name: i.value for i in graph.inputs if i.kind == pb.InputSpec.CONSTANT_TENSOR}
    assert sorted(constants) == ["_tensor_constant0", "scale"]
    assert artifact.weight_bytes("scale") == torch.full((4,), 0.5).numpy().tobytes()
    assert (artifact.weight_bytes("_tensor_constant0")
            == torch.tensor([1.0, 2.0, 3.0, 4.0]).numpy().tobytes())
    used = {a.tensor for n in graph.nodes for a in n.args}
    assert set(constants.values()) <= used
    # 2.x's aten::lift_fresh returns its argument: no write, so no mutation finding.
    assert [r.kind for r in artifact.message.report if r.kind.endswith("MUTATION")] == []


def test_inplace_views_and_buffer_mutation(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("calls", torch.zeros(1))
            def forward(self, x):
                self.calls.add_(1)
                y = x.clone()
                y.mul_(2)
                x.relu_()
                return y.view(-1)
        model = M()
        example_inputs = (torch.ones(2, 2),)
    """)
    assert run.returncode == 0, run.stderr
    artifact = run.artifact()
    graph = artifact.message.graphs[0]
    values = values_of(graph)
    assert [n.target for n in graph.nodes] == [
        "aten::add_", "aten::clone", "aten::mul_", "aten::relu_", "aten::view"]
    add, clone, mul, relu, view = graph.nodes
    # In-place results are fresh Values on the same storage; later uses see them.
    assert mul.args[0].tensor == clone.outputs[0] != mul.outputs[0]
    assert view.args[0].tensor == mul.outputs[0]
    ids = {values[n.outputs[0]].storage_id for n in (clone, mul, view)}
    assert len(ids) == 1
    assert [(o.kind, o.name, o.value) for o in graph.outputs] == [
        (pb.OutputSpec.BUFFER_MUTATION, "calls", add.outputs[0]),
        (pb.OutputSpec.USER_INPUT_MUTATION, "x", relu.outputs[0]),
        (pb.OutputSpec.USER_OUTPUT, "0", view.outputs[0])]
    # The blob keeps the buffer's value from before the trace.
    assert artifact.weight_bytes("calls") == torch.zeros(1).numpy().tobytes()


def test_tied_weights_stored_once(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = torch.nn.Linear(4, 4, bias=False)
                self.b = torch.nn.Linear(4, 4, bias=False)
                self.b.weight = self.a.weight
            def forward(self, x):
                return self.b(self.a(x))
        model = M()
        example_inputs = (torch.ones(1, 4),)
    """)
    assert run.returncode == 0, run.stderr
    artifact = run.artifact()
    assert [w.name for w in artifact.message.weights] == ["a.weight"]
    assert [i.name for i in artifact.message.graphs[0].inputs] == ["a.weight", "x"]


def test_bf16_and_non_contiguous_weights(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                torch.manual_seed(0)
                self.w = torch.nn.Parameter(torch.randn(4, 3).t())  # strides (1, 3)
                self.h = torch.nn.Parameter(torch.randn(3).to(torch.bfloat16))
            def forward(self, x):
                return x @ self.w, self.h * 2
        model = M()
        example_inputs = (torch.ones(2, 3),)
    """)
    assert run.returncode == 0, run.stderr
    artifact = run.artifact()
    values = values_of(artifact.message.graphs[0])
    entries = {w.name: w for w in artifact.message.weights}
    torch.manual_seed(0)
    w = torch.randn(4, 3).t()
    h = torch.randn(3).to(torch.bfloat16)
    # The graph sees the parameter's real layout; the blob holds a dense copy.
    assert list(values["p_w"].meta.strides) == [1, 3]
    assert list(entries["w"].meta.strides) == [4, 1]
    assert artifact.weight_bytes("w") == w.contiguous().numpy().tobytes()
    assert entries["h"].meta.dtype == pb.BF16 and entries["h"].nbytes == 6
    assert artifact.weight_bytes("h") == h.view(torch.int16).numpy().tobytes()


def test_data_dependent_read_is_reported(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x + 1
                return x - 1
        model = M()
        example_inputs = (torch.ones(3),)
    """)
    assert run.returncode == 0, run.stderr
    report = [r for r in run.artifact().message.report if r.kind != "UNSUPPORTED_OP"]
    assert [r.kind for r in report] == ["DATA_DEPENDENT"]
    assert report[0].loc.code == "if x.sum() > 0:"
    assert "; report: 1 DATA_DEPENDENT" in run.stderr


# ---- errors -----------------------------------------------------------------------

def assert_failed(run, *fragments):
    assert run.returncode == 1, run.stderr
    assert run.stderr.startswith("pt2c: error: "), run.stderr
    for fragment in fragments:
        assert fragment in run.stderr, run.stderr
    directory = os.path.dirname(run.output)
    assert not os.path.exists(run.output)
    assert [f for f in os.listdir(directory) if f != "model.py"] == []  # no temp file left


def test_error_missing_model_file(tmp_path):
    run = run_exporter(str(tmp_path / "model.py"), str(tmp_path / "out.pt2c"))
    assert_failed(run, "model file not found")


def test_error_model_py_raises(export_source):
    run = export_source("""
        import torch

        def build():
            raise ValueError("cannot build the model")

        model = build()
    """)
    assert_failed(run, "raised while being imported: ValueError: cannot build the model",
                  'model.py", line 7, in <module>', 'model.py", line 5, in build',
                  'raise ValueError("cannot build the model")')
    assert "importlib" not in run.stderr and "pt2c_exporter" not in run.stderr


def test_error_syntax_error(export_source):
    run = export_source("""
        model = (
    """)
    assert_failed(run, "raised while being imported: SyntaxError")


def test_error_no_model(export_source):
    run = export_source("""
        import torch
        example_inputs = (torch.ones(1),)
    """)
    assert_failed(run, "defines no `model`", "nn.Module")


def test_error_no_example_inputs(export_source):
    run = export_source("""
        import torch
        model = torch.nn.ReLU()
    """)
    assert_failed(run, "defines no `example_inputs`", "tuple of tensors")


def test_error_example_inputs_not_tensors(export_source):
    run = export_source("""
        import torch
        model = torch.nn.ReLU()
        example_inputs = (torch.ones(1), [1, 2])
    """)
    assert_failed(run, "`example_inputs[1]` is a list")


def test_error_model_not_a_module(export_source):
    run = export_source("""
        import torch
        model = 3
        example_inputs = (torch.ones(1),)
    """)
    assert_failed(run, "`model` is a int")


def test_error_model_raises_while_tracing(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                return x @ torch.ones(5, 5)
        model = M()
        example_inputs = (torch.ones(2, 3),)
    """)
    assert_failed(run, "the model raised during tracing: RuntimeError",
                  'model.py", line 5, in forward', "return x @ torch.ones(5, 5)")
    assert "pt2c_exporter" not in run.stderr


def test_error_no_tensor_output(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                return {"n": x.shape[0], "gone": None}
        model = M()
        example_inputs = (torch.ones(2),)
    """)
    assert_failed(run, "output contains no tensor", "dict")
