"""The draft report: each kind's detection, counts, model.py lines and assumed values,
the summary line, --print-report, --strict, and the text layout.

Run with either interpreter (torch 1.13 from Debian, torch 2.x from the venv). Lines of
the test models are found by their `# MARK` comments, so the assertions say which line
of model.py each finding must point at.
"""
import os
import textwrap

import pytest
import torch

from exporter_harness import REPO, run_exporter  # first: puts pt2c_pb2 on sys.path
import pt2c_pb2 as pb
from pt2c_exporter import aten_op_list
from pt2c_exporter.report import Report, summary
from pt2c_exporter.report_text import format_report

KINDS_MODEL = """
import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(1))
        self.register_buffer("hist", torch.zeros(3))
        self.weight = torch.nn.Parameter(torch.ones(3))

    def forward(self, x, y):
        if x.sum() > 0:  # BRANCH
            x = x + 1
        scale = x.max().item()  # ITEM
        n = int(y.sum())  # INT
        idx = torch.nonzero(x > 2.5)  # NONZERO
        picked = x[x > 2.5]  # MASK
        odd = torch.lgamma(x)  # LGAMMA
        y.add_(1)  # INPUT
        y[0] = 7.0  # INPUT_VIEW
        self.calls.add_(1)  # BUFFER
        self.hist[1] = 2.0  # BUFFER_VIEW
        self.weight.mul_(1.0)  # PARAMETER
        noise = torch.rand(3)  # RAND
        for i in range(3):
            x = x * x[i].item()  # LOOP
        return x * scale + noise * self.weight, idx, picked, odd, torch.arange(n)


model = M()
example_inputs = (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 1.0]))
"""


def line_of(source, mark):
    lines = textwrap.dedent(source).splitlines()
    found = [i + 1 for i, text in enumerate(lines) if text.endswith("# " + mark)]
    assert len(found) == 1, mark
    return found[0]


def entries_at(report, line, kind=None):
    return [e for e in report if e.loc.line == line and (kind is None or e.kind == kind)]


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    directory = tmp_path_factory.mktemp("kinds")
    model = directory / "model.py"
    model.write_text(textwrap.dedent(KINDS_MODEL))
    run = run_exporter(str(model), str(directory / "out.pt2c"))
    assert run.returncode == 0, run.stderr
    return run


def the_entry(kinds, mark, kind):
    report = kinds.artifact().message.report
    found = entries_at(report, line_of(KINDS_MODEL, mark), kind)
    assert len(found) == 1, (mark, kind, [(e.kind, e.op, e.loc.line) for e in report])
    entry = found[0]
    assert entry.loc.file == "model.py"
    assert entry.loc.code == textwrap.dedent(KINDS_MODEL).splitlines()[entry.loc.line - 1].strip()
    return entry


@pytest.mark.parametrize("mark, op, assumed", [
    ("BRANCH", "aten::_local_scalar_dense", "True"),   # bool(tensor) in an `if`
    ("ITEM", "aten::_local_scalar_dense", "4.0"),      # .item()
    ("INT", "aten::_local_scalar_dense", "2.0"),       # int(tensor) reads the float 2.0
    # Row counts kept as data-dependent sizes; a mask index is recorded as nonzero.
    ("NONZERO", "aten::nonzero", "kept symbolic: shape [u0, 1]; [2, 1] here"),
    ("MASK", "aten::nonzero", "kept symbolic: shape [u1, 1]; [2, 1] here"),
])
def test_data_dependent(kinds, mark, op, assumed):
    entry = the_entry(kinds, mark, "DATA_DEPENDENT")
    assert (entry.op, entry.count, entry.assumed) == (op, 1, assumed)


def test_data_dependent_in_a_loop_is_one_entry_with_each_value(kinds):
    entry = the_entry(kinds, "LOOP", "DATA_DEPENDENT")
    assert (entry.count, entry.assumed) == (3, "2.0; 6.0; 48.0")


def test_unsupported_op(kinds):
    entry = the_entry(kinds, "LGAMMA", "UNSUPPORTED_OP")
    assert (entry.op, entry.count) == ("aten::lgamma", 1)
    assert "aten_ops.txt" in entry.message
    # Only ops missing from the list the aten dialect is generated from are reported.
    listed = aten_op_list.load(os.path.join(REPO, "ir", "aten", "aten_ops.txt"))
    assert "aten::lgamma" not in listed, "pick another op for this test: lgamma has an op now"
    reported = {e.op for e in kinds.artifact().message.report if e.kind == "UNSUPPORTED_OP"}
    assert reported and not reported & listed


@pytest.mark.parametrize("mark, kind, message, assumed", [
    ("INPUT", "INPUT_MUTATION", "user input y is written in place", "written back"),
    ("INPUT_VIEW", "INPUT_MUTATION", "user input y is written through a view", "written back"),
    ("BUFFER", "BUFFER_MUTATION", "buffer calls is written in place", "supported: written back"),
    ("BUFFER_VIEW", "BUFFER_MUTATION", "buffer hist is written through a view",
     "supported: written back"),
    ("PARAMETER", "PARAMETER_MUTATION", "parameter weight is written in place", "not written back"),
])
def test_mutations(kinds, mark, kind, message, assumed):
    entry = the_entry(kinds, mark, kind)
    assert (entry.message, entry.count) == (message, 1)
    assert entry.assumed.startswith(assumed), entry.assumed
    assert entry.op.startswith("aten::")


def test_mutations_keep_the_signature(kinds):
    # Reported and still exported: writes to the input and buffers, direct or through a
    # view, are written back (functionalization computes their final values).
    graph = kinds.artifact().message.graphs[0]
    mutations = [(o.kind, o.name) for o in graph.outputs if o.kind != pb.OutputSpec.USER_OUTPUT]
    assert mutations == [(pb.OutputSpec.BUFFER_MUTATION, "calls"),
                         (pb.OutputSpec.BUFFER_MUTATION, "hist"),
                         (pb.OutputSpec.USER_INPUT_MUTATION, "y")]


def test_randomness(kinds):
    entry = the_entry(kinds, "RAND", "RANDOMNESS")
    assert (entry.op, entry.count) == ("aten::rand", 1)
    assert "not baked in" in entry.assumed


def test_summary_line_counts_entries_per_kind(kinds):
    counts = {}
    for e in kinds.artifact().message.report:
        counts[e.kind] = counts.get(e.kind, 0) + 1
    assert (counts["DATA_DEPENDENT"], counts["INPUT_MUTATION"], counts["BUFFER_MUTATION"],
            counts["PARAMETER_MUTATION"], counts["RANDOMNESS"]) == (6, 2, 2, 1, 1)
    line = kinds.stderr.strip().splitlines()[-1]
    assert line.startswith("pt2c: exported ")
    assert "; report: 6 DATA_DEPENDENT, %d UNSUPPORTED_OP, 2 INPUT_MUTATION, 2 BUFFER_MUTATION, " \
           "1 PARAMETER_MUTATION, 1 RANDOMNESS (details: pt2c report %s)" % (
               counts["UNSUPPORTED_OP"], kinds.output) in line


# ---- fast paths -------------------------------------------------------------------

TRANSFORMER_MODEL = """
import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        layer = torch.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16,
                                                 batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=2)

    def forward(self, x, padding):
        plain = self.encoder(x)  # PLAIN
        padded = self.encoder(x, src_key_padding_mask=padding)  # PADDED
        return plain, padded


model = M()
example_inputs = (torch.randn(2, 5, 8), torch.tensor([[False] * 5, [False] * 3 + [True] * 2]))
"""


def test_transformer_encoder_is_steered_off_its_fast_paths(export_source):
    run = export_source(TRANSFORMER_MODEL)
    assert run.returncode == 0, run.stderr
    artifact = run.artifact().message
    fast = {(e.loc.line, e.op): e for e in artifact.report if e.kind == "FAST_PATH"}
    plain, padded = line_of(TRANSFORMER_MODEL, "PLAIN"), line_of(TRANSFORMER_MODEL, "PADDED")
    for line in (plain, padded):  # one per layer, both calls
        entry = fast[(line, "aten::_transformer_encoder_layer_fwd")]
        assert entry.count == 2 and entry.assumed.startswith("steered off")
        assert entry.message.startswith("nn.TransformerEncoderLayer ")
    nested = fast[(padded, "aten::_nested_tensor_from_mask")]
    assert nested.count == 1 and "padded positions" in nested.assumed
    assert (plain, "aten::_nested_tensor_from_mask") not in fast
    # The graph holds the composite path: no fused op, no nested tensor, no mask probe.
    targets = {n.target for n in artifact.graphs[0].nodes}
    assert not {"aten::_transformer_encoder_layer_fwd", "aten::_nested_tensor_from_mask",
                "aten::_nested_tensor_from_mask_left_aligned"} & targets
    assert "aten::native_layer_norm" in targets


def test_fast_path_steering_keeps_eager_values():
    # The steered-off path computes what the fused kernel does (except at padded
    # positions, where eager's nested-tensor path leaves zeros).
    from pt2c_exporter import fast_path
    from pt2c_exporter.source_location import SourceLocator
    namespace = {}
    exec(compile(textwrap.dedent(TRANSFORMER_MODEL), "model.py", "exec"), namespace)
    model = namespace["model"].eval()
    x, padding = namespace["example_inputs"]
    report = Report()
    with torch.no_grad():
        eager_plain, eager_padded = model(x, padding)
        with fast_path.steered_off(report, SourceLocator(".")):
            plain, padded = model(x, padding)
    assert any(e.kind == "FAST_PATH" for e in report.entries())
    assert torch.allclose(plain, eager_plain, atol=1e-5)
    keep = ~padding
    assert torch.allclose(padded[keep], eager_padded[keep], atol=1e-5)
    assert eager_padded[padding].abs().max() == 0 and padded[padding].abs().max() > 0


# ---- values read without an ATen call -----------------------------------------------

def test_tolist_numpy_and_array_reads(export_source):
    source = """
        import numpy
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                print(x)  # PRINT
                if x.tolist()[0] > 0:  # TOLIST
                    x = x + 1
                s = float(x.numpy().sum())  # NUMPY
                a = numpy.asarray(x)  # ARRAY
                return x * s + float(a[0])
        model = M()
        example_inputs = (torch.tensor([1.0, 0.0, 2.0]),)
    """
    run = export_source(source)
    assert run.returncode == 0, run.stderr
    found = [(e.loc.line, e.op, e.assumed) for e in run.artifact().message.report
             if e.kind == "DATA_DEPENDENT"]
    assert found == [
        (line_of(source, "TOLIST"), "Tensor.tolist", "[1.0, 0.0, 2.0]"),
        (line_of(source, "NUMPY"), "Tensor.numpy", "array of shape [3]: [2.0, 1.0, 3.0]"),
        (line_of(source, "ARRAY"), "Tensor.__array__", "array of shape [3]: [2.0, 1.0, 3.0]")]
    # Printing reads values through torch's own code (and on 1.13 runs ATen ops under
    # the mode): neither a finding nor a node of the graph.
    graph = run.artifact().message.graphs[0]
    assert all(n.loc.line != line_of(source, "PRINT") for n in graph.nodes)


def test_code_asking_whether_it_is_exported_takes_its_export_path(export_source):
    # As under torch.export, library code outside torch is told it is being exported, so
    # it skips reads of tensor values written for eager runs (transformers' `mask.all()`)
    # and the graph needs no guard. is_compiling() keeps its answer (False).
    source = """
        import torch

        def exporting():
            compiler = getattr(torch, "compiler", None)
            return compiler is not None and compiler.is_exporting()  # ASK

        class M(torch.nn.Module):
            def forward(self, mask):
                compiling = hasattr(torch, "compiler") and torch.compiler.is_compiling()
                if compiling or exporting() or not bool(mask.all()):  # BRANCH
                    return mask * 2
                return mask
        model = M()
        example_inputs = (torch.ones(4),)
    """
    run = export_source(source)
    assert run.returncode == 0, run.stderr
    found = [(e.kind, e.loc.line, e.op, e.assumed) for e in run.artifact().message.report]
    if not hasattr(torch, "compiler"):  # torch 1.13: nothing to answer, the read is a guard
        assert [kind for kind, *_ in found] == ["DATA_DEPENDENT"], found
        return
    assert found == [("EXPORT_PATH", line_of(source, "ASK"), "torch.compiler.is_exporting",
                      "True")]
    message = run.artifact().message.report[0].message
    assert "to exporting (from forward at model.py:%d)" % line_of(source, "BRANCH") in message
    assert not run.artifact().message.graphs[0].guards


def test_a_fused_op_that_reaches_the_trace_is_reported_as_taken(export_source):
    source = """
        import torch

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
            def forward(self, x):
                m = self.mha
                return torch._native_multi_head_attention(  # FUSED
                    x, x, x, 8, 2, m.in_proj_weight, m.in_proj_bias, m.out_proj.weight,
                    m.out_proj.bias, need_weights=False)[0]
        model = M()
        example_inputs = (torch.randn(1, 3, 8),)
    """
    run = export_source(source)
    assert run.returncode == 0, run.stderr
    [entry] = [e for e in run.artifact().message.report if e.kind == "FAST_PATH"]
    assert (entry.op, entry.loc.line) == ("aten::_native_multi_head_attention",
                                          line_of(source, "FUSED"))
    assert entry.assumed.startswith("taken")


# ---- randomness that is none ------------------------------------------------------

def test_zero_probability_dropout_is_not_randomness(export_source):
    if not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        pytest.skip("torch %s has no F.scaled_dot_product_attention" % torch.__version__)
    source = """
        import torch
        import torch.nn.functional as F

        class M(torch.nn.Module):
            def forward(self, q):
                a = F.scaled_dot_product_attention(q, q, q)  # SDPA
                return F.dropout(a, 0.5, training=True)  # DROPOUT
        model = M()
        example_inputs = (torch.randn(1, 2, 4, 8),)
    """
    run = export_source(source)
    assert run.returncode == 0, run.stderr
    random = [e for e in run.artifact().message.report if e.kind == "RANDOMNESS"]
    # 2.x reaches a CPU attention kernel tagged nondeterministic (for its dropout_p,
    # 0.0 here): not reported. The training-mode dropout is.
    assert [e.loc.line for e in random] == [line_of(source, "DROPOUT")]


# ---- source locations -------------------------------------------------------------

def test_location_is_the_innermost_frame_outside_torch(tmp_path):
    (tmp_path / "helpers.py").write_text(textwrap.dedent("""
        def threshold(t):
            return t.mean().item()
    """))
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import torch
        import helpers

        class M(torch.nn.Module):
            def forward(self, x):
                return x * helpers.threshold(x)
        model = M()
        example_inputs = (torch.ones(3),)
    """))
    run = run_exporter(str(tmp_path / "model.py"), str(tmp_path / "out.pt2c"))
    assert run.returncode == 0, run.stderr
    [entry] = [e for e in run.artifact().message.report if e.kind == "DATA_DEPENDENT"]
    assert (entry.loc.file, entry.loc.line, entry.loc.code) == (
        "helpers.py", 3, "return t.mean().item()")


# ---- --strict, --print-report, --aten-ops -------------------------------------------

def test_strict_fails_with_the_report_and_writes_nothing(export_source):
    run = export_source(KINDS_MODEL, "--strict")
    assert run.returncode == 1, run.stderr
    first, rest = run.stderr.split("\n", 1)
    assert first.startswith("pt2c: error: model.py: --strict: the draft report has 6 "
                            "DATA_DEPENDENT, "), first
    assert first.endswith("; nothing was written")
    assert rest.startswith("draft report for ")
    assert "#   KIND" in rest and "model.py:%d: y.add_(1)  # INPUT" % line_of(
        KINDS_MODEL, "INPUT") in rest
    directory = os.path.dirname(run.output)
    assert sorted(os.listdir(directory)) == ["model.py"]


def test_strict_passes_a_clean_model(tmp_path):
    from exporter_harness import MLP_MODEL
    run = run_exporter(MLP_MODEL, str(tmp_path / "mlp.pt2c"), "--strict")
    assert run.returncode == 0, run.stderr
    assert os.path.exists(run.output)


def test_print_report_and_aten_ops_file(export_source, tmp_path):
    ops = tmp_path / "ops.txt"
    ops.write_text("# only these\naten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)"
                   " -> Tensor\n")
    source = """
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                return torch.lgamma(x) + x  # OPS
        model = M()
        example_inputs = (torch.ones(3),)
    """
    run = export_source(source, "--print-report", "--aten-ops", str(ops))
    assert run.returncode == 0, run.stderr
    report = run.artifact().message.report
    assert [(e.kind, e.op, e.loc.line) for e in report] == [
        ("UNSUPPORTED_OP", "aten::lgamma", line_of(source, "OPS"))]
    summary_line, text = run.stderr.split("\n", 1)
    assert summary_line.endswith("; report: 1 UNSUPPORTED_OP (below)")
    artifact = run.artifact().message
    assert text == format_report(report, artifact.model_path, artifact.producer)


def test_missing_aten_ops_file_is_an_error(export_source, tmp_path):
    run = export_source("import torch\nmodel = torch.nn.ReLU()\nexample_inputs = "
                        "(torch.ones(1),)\n", "--aten-ops", str(tmp_path / "none.txt"))
    assert run.returncode == 1 and "cannot read --aten-ops" in run.stderr, run.stderr


# ---- in-process: grouping and the text layout ---------------------------------------

def loc(line, code="x = f(y)"):
    return pb.SourceLocation(file="model.py", line=line, code=code)


def test_grouping_by_kind_op_and_place():
    report = Report()
    for value in range(6):
        report.add("DATA_DEPENDENT", "read", loc(3), "aten::_local_scalar_dense", str(value))
    report.add("DATA_DEPENDENT", "read", loc(3), "aten::_local_scalar_dense", "0")
    report.add("DATA_DEPENDENT", "read", loc(4), "aten::_local_scalar_dense", "1")
    report.add("UNSUPPORTED_OP", "no op", loc(3), "aten::lgamma", "recorded")
    report.add("NON_TENSOR_OUTPUT", "output 1 is an int")
    entries = report.entries()
    assert [(e.kind, e.loc.line, e.count) for e in entries] == [
        ("DATA_DEPENDENT", 3, 7), ("DATA_DEPENDENT", 4, 1), ("UNSUPPORTED_OP", 3, 1),
        ("NON_TENSOR_OUTPUT", 0, 1)]
    assert entries[0].assumed == "0; 1; 2; 3; ... (6 distinct values)"
    assert summary(entries) == "2 DATA_DEPENDENT, 1 UNSUPPORTED_OP, 1 NON_TENSOR_OUTPUT"


def test_text_layout():
    entries = [
        pb.ReportEntry(kind="DATA_DEPENDENT", message="a value was read", loc=loc(12, "n = int(x)"),
                       count=1, op="aten::_local_scalar_dense", assumed="3.0"),
        pb.ReportEntry(kind="NON_TENSOR_OUTPUT", message="output 1 is an int", count=2),
    ]
    assert format_report(entries, "m/model.py", "pt2c-exporter torch=X") == (
        "draft report for m/model.py: 2 findings (pt2c-exporter torch=X)\n"
        "\n"
        "#  KIND               COUNT  LOCATION     OP\n"
        "1  DATA_DEPENDENT     1      model.py:12  aten::_local_scalar_dense\n"
        "2  NON_TENSOR_OUTPUT  2      -            -\n"
        "\n"
        "1. model.py:12: n = int(x)\n"
        "   a value was read\n"
        "   assumed: 3.0\n"
        "2. -\n"
        "   output 1 is an int\n")
    assert format_report([], "model.py", "p") == "draft report for model.py: no findings (p)\n"
