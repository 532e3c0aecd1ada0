"""Data-dependent sizes: nonzero's row count becomes a symbol u0, u1, ... with a bound,
sizes computed from it become expressions of it, and mask indexing / masked_select are
recorded as nonzero and index (compiler/exporter/README.md, "Data-dependent sizes").

Run with either interpreter (torch 1.13 from Debian, torch 2.x from the venv):
    python -m pytest tests/exporter/test_data_dependent.py
"""
import os
import subprocess

import pytest

# exporter_harness first: it puts pt2c_pb2 on sys.path.
from exporter_harness import REPO, arg, assert_failed, dims, graph_of, nodes, sizes_of


def row_counts(graph):
    """(name, min, max, produced value, produced dim, traced sizes) of the u symbols."""
    return [(d.name, d.min, d.max, d.produced.value, d.produced.dim, list(d.traced_sizes))
            for d in graph.dynamic_dims if d.HasField("produced")]


def output_sizes(graph):
    return [sizes_of(graph, o.value) for o in graph.outputs]


def tensors(node, name):
    (found,) = [a for a in node.args if a.name == name]
    return list(found.tensors.values)


def test_nonzero_as_an_output(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                rows, cols = torch.where(x > 0)
                return torch.nonzero(x), rows

        model = M()
        example_inputs = (torch.tensor([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]),)
    """)
    graph = graph_of(run)
    first, second = nodes(graph, "aten::nonzero")
    assert row_counts(graph) == [("u0", 0, 6, first.outputs[0], 0, [3, 4, 2, 6]),
                                 ("u1", 0, 6, second.outputs[0], 0, [3, 4, 2, 6])]
    assert [len(d.inputs) for d in graph.dynamic_dims] == [0, 0]
    assert sizes_of(graph, first.outputs[0]) == ["u0", 2]
    assert output_sizes(graph) == [["u1", 2], ["u0"]]
    # The size carries its structured form and the example's value.
    size = [v for v in graph.values if v.name == second.outputs[0]][0].meta.sizes[0]
    assert (size.hint, [(t.coefficient, list(t.symbols)) for t in size.symbolic.terms]) == \
        (3, [(1, ["u1"])])
    report = run.artifact().message.report
    assert [(e.kind, e.op) for e in report] == [("DATA_DEPENDENT", "aten::nonzero")] * 2
    assert ("keeps it as the data-dependent size u0, at most 6 here (the input's element "
            "count)") in report[0].message
    assert report[0].assumed == "kept symbolic: shape [u0, 2]; [3, 2] here"
    assert ", 2 data-dependent sizes in " in run.stderr


def test_mask_indexing_and_a_size_downstream(export_source):
    graph = graph_of(export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x, scores):
                picked = x[scores > 0.5] * 2                  # [u0, 4]
                flat = picked.reshape(-1)                       # [4*u0]
                steps = torch.arange(picked.shape[0] + 1)       # [u0 + 1]
                return picked, flat, steps, picked.sum(0)

        model = M()
        example_inputs = (torch.arange(20.0).view(5, 4), torch.tensor([0.9, 0.1, 0.7, 0.8, 0.2]))
    """))
    (nonzero,) = nodes(graph, "aten::nonzero")
    assert row_counts(graph) == [("u0", 0, 5, nonzero.outputs[0], 0, [3, 4, 2, 5])]
    (select,) = nodes(graph, "aten::select")
    assert (select.args[0].tensor, arg(select, "dim"), arg(select, "index")) == \
        (nonzero.outputs[0], 1, 0)
    (index,) = nodes(graph, "aten::index")
    assert (index.args[0].tensor, tensors(index, "indices")) == ("x", [select.outputs[0]])
    assert index.loc.code.startswith("picked = x[scores > 0.5] * 2")
    assert output_sizes(graph) == [["u0", 4], ["4*u0"], ["u0 + 1"], [4]]
    (arange,) = nodes(graph, "aten::arange")
    assert arg(arange, "end") == "u0 + 1"


def test_two_masks_and_a_cat(export_source):
    graph = graph_of(export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x, y):
                return torch.cat([x[x > 0], y[y > 0]]), x[:, x[0] > 0]

        model = M()
        example_inputs = (torch.tensor([[1.0, -1.0, 2.0], [3.0, 4.0, -5.0]]),
                          torch.tensor([-1.0, 2.0, 3.0, 4.0, -2.0, 6.0, 7.0]))
    """))
    assert [(name, high, sizes[0]) for name, _, high, _, _, sizes in row_counts(graph)] == \
        [("u0", 6, 4), ("u1", 7, 5), ("u2", 3, 2)]
    assert output_sizes(graph) == [["u0 + u1"], [2, "u2"]]
    # x[:, mask]: the None stays in front of the mask's column.
    last = nodes(graph, "aten::index")[-1]
    assert tensors(last, "indices")[0] == ""


def test_masked_select(export_source):
    graph = graph_of(export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x, keep):
                return torch.masked_select(x, keep) + 1

        model = M()
        example_inputs = (torch.randn(3, 4), torch.tensor([True, False, True, True]))
    """))
    targets = [n.target for n in graph.nodes]
    assert "aten::masked_select" not in targets
    (expand,) = nodes(graph, "aten::expand")  # only the mask needs broadcasting
    assert (expand.args[0].tensor, arg(expand, "size")) == ("keep", [3, 4])
    (nonzero,) = nodes(graph, "aten::nonzero")
    assert nonzero.args[0].tensor == expand.outputs[0]
    assert row_counts(graph)[0][:3] == ("u0", 0, 12)
    assert output_sizes(graph) == [["u0"]]


def test_a_mask_that_selects_nothing(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                return x[x.sum(1) > 100] + 1

        model = M()
        example_inputs = (torch.ones(6, 3),)
    """)
    graph = graph_of(run)
    # The example selects nothing: it is traced with 3 rows forced on the nonzero (the
    # path of a non-empty selection), then at 4, 2 and 6; the report says so.
    (nonzero,) = nodes(graph, "aten::nonzero")
    assert row_counts(graph) == [("u0", 0, 6, nonzero.outputs[0], 0, [3, 4, 2, 6])]
    assert output_sizes(graph) == [["u0", 3]]
    (entry,) = [e for e in run.artifact().message.report if "selects no rows" in e.message]
    assert "aten::nonzero selects no rows at the example inputs" in entry.message


def test_nonzero_over_no_elements_has_no_symbol(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                return torch.nonzero(x[:, :0]), x + 1

        model = M()
        example_inputs = (torch.ones(2, 3),)
    """)
    graph = graph_of(run)
    assert list(graph.dynamic_dims) == [] and list(run.artifact().message.report) == []
    assert output_sizes(graph)[0] == [0, 2]


def test_data_dependent_size_beside_a_dynamic_dim(export_source):
    graph = graph_of(export_source("""
        import torch

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("keep", torch.tensor([True, False, True, True, False]))

            def forward(self, x):
                return x[:, self.keep].flatten()

        model = M()
        example_inputs = (torch.randn(4, 5),)
        dynamic_shapes = {"x": {0: ("batch", 1, 16)}}
    """))
    assert dims(graph) == [("batch", 1, 16, [("x", 0)], [4, 5, 9]),
                           ("u0", 0, 5, [], [3, 4, 2, 5])]
    assert output_sizes(graph) == [["batch*u0"]]


def test_nonzero_over_a_dynamic_input_is_bounded_at_the_maxima(export_source):
    graph = graph_of(export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                return x[x > 0]

        model = M()
        example_inputs = (torch.randn(4, 5),)
        dynamic_shapes = {"x": {0: ("batch", 1, 16)}}
    """))
    (u0,) = [d for d in graph.dynamic_dims if d.name == "u0"]
    assert (u0.min, u0.max) == (0, 16 * 5)  # batch at its maximum
    assert output_sizes(graph) == [["u0"]]


def test_a_selection_of_a_selection_is_bounded_by_the_first(export_source):
    graph = graph_of(export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                positive = x[x > 0]
                return positive[positive > 1] * 2, positive

        model = M()
        example_inputs = (torch.tensor([1.0, 2.0, -1.0, 3.0]),)
    """))
    bounds = {d.name: (d.min, d.max) for d in graph.dynamic_dims}
    assert bounds == {"u0": (0, 4), "u1": (0, 4)}
    assert output_sizes(graph) == [["u1"], ["u0"]]


def test_a_clamped_count_becomes_a_clamp_symbol(export_source):
    # keep[:3] of a count: traced at counts below and above 3, the slice's size is
    # min(u0, 3), a clamp symbol c0 of its own (a floor division that happens to give
    # 3, 3, 2, 3 at the traced counts would be wrong at others).
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                return x[x > 0][:3]

        model = M()
        example_inputs = (torch.tensor([1.0, 2.0, -1.0, 3.0, 4.0, 5.0]),)
    """)
    graph = graph_of(run)
    (clamp,) = [d for d in graph.dynamic_dims if d.HasField("clamp")]
    assert (clamp.name, clamp.min, clamp.max, clamp.clamp.at_most) == ("c0", 0, 3, 3)
    assert [(list(t.symbols), t.coefficient) for t in clamp.clamp.of.terms] == [(["u0"], 1)]
    assert clamp.clamp.of.constant == 0 and clamp.clamp.expr == "min(u0, 3)"
    assert output_sizes(graph) == [["c0"]]
    # The report's table of dims names the clamp, in both printers.
    from pt2c_exporter.report_text import format_report
    artifact = run.artifact().message
    text = format_report(artifact.report, artifact.model_path, artifact.producer,
                         artifact.graphs)
    assert "c0    [0, 3]  min(u0, 3)                      3 (example), 2\n" in text
    pt2c = os.path.join(REPO, "bazel-bin", "tools", "pt2c", "pt2c")
    if os.path.exists(pt2c):
        report = subprocess.run([pt2c, "report", run.output], stdout=subprocess.PIPE,
                                universal_newlines=True)
        assert report.stdout == text


def test_a_branch_on_a_data_dependent_size(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                picked = x[x > 0]
                if picked.shape[0] > 3:
                    picked = picked * 2
                return picked + 1

        model = M()
        example_inputs = (torch.tensor([1.0, 2.0, -1.0, 3.0, 4.0, -2.0]),)
    """)
    assert_failed(run, "the graph depends on the size of u0 (the row count of aten::nonzero at "
                  "model.py:6): traced 6 ops at u0=4 and 5 at u0=2",
                  "whatever nonzero's row count is")


def test_retraces_start_from_the_inputs_as_they_were(export_source):
    # The trace writes y; a retrace that read the written y would make arange's end differ.
    graph = graph_of(export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x, y):
                n = int(y.sum())
                y.add_(1)
                return x[x > 0], torch.arange(n)

        model = M()
        example_inputs = (torch.tensor([1.0, -1.0, 2.0]), torch.tensor([1.0, 1.0]))
    """))
    assert output_sizes(graph)[1:] == [["u0"], [2]]


# ---- mask indexing: the rewritten calls give eager's results ------------------------

def _index_cases():
    import torch
    torch.manual_seed(0)
    x3 = torch.randn(3, 4, 5)
    return [
        ("x[mask]", lambda x: x[x > 0], torch.randn(6)),
        ("x[mask2d] of 3-d", lambda x: x[x.sum(2) > 0], x3),
        ("x[:, mask]", lambda x: x[:, x[0, :, 0] > 0], x3),
        ("x[mask, idx]", lambda x: x[x[:, 0, 0] > -5, torch.tensor([0, 2, 1])], x3),
        ("x[None, mask]", lambda x: x[None, x[:, 0] > 0], torch.randn(4, 3)),
        ("uint8 mask", lambda x: x[(x > 0).to(torch.uint8)], torch.randn(2, 3)),
        ("transposed", lambda x: x.t()[x.t()[:, 0] > 0], torch.randn(3, 4)),
        ("empty selection", lambda x: x[x > 100], torch.randn(2, 3)),
        ("masked_select", lambda x: torch.masked_select(x, x[0] > 0), torch.randn(3, 4)),
        ("masked_select broadcasting x", lambda x: torch.masked_select(x[0], x > 0),
         torch.randn(3, 4)),
        ("where(cond)", lambda x: torch.stack(torch.where(x > 0)), torch.randn(3, 4)),
    ]


@pytest.mark.parametrize("case", range(len(_index_cases())),
                         ids=[name for name, _, _ in _index_cases()])
def test_mask_indexing_gives_eager_results(case, tmp_path):
    import warnings
    import torch
    import pt2c_pb2 as pb
    from pt2c_exporter.tracer import trace
    _, function, example = _index_cases()[case]

    class M(torch.nn.Module):
        def forward(self, x):
            return function(x)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # uint8 masks are deprecated
        expected = function(example)
        traced = trace(M(), (example.clone(),), str(tmp_path))
    got = traced.outputs
    assert (got.dtype, got.shape, got.stride()) == (expected.dtype, expected.shape,
                                                   expected.stride())
    assert torch.equal(got, expected)
    targets = [n.target for n in traced.graph.nodes]
    assert "aten::masked_select" not in targets and "aten::nonzero" in targets
    dtypes = {v.name: v.meta.dtype for v in traced.graph.values}
    for node in nodes(traced.graph, "aten::index"):  # no mask left among the indices
        assert all(dtypes[name] == pb.I64 for name in tensors(node, "indices") if name)


def test_a_mask_of_the_wrong_shape_raises_eagers_error(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                return x[torch.tensor([True, False])]

        model = M()
        example_inputs = (torch.randn(3),)
    """)
    assert_failed(run, "the model raised during tracing: IndexError: The shape of the mask [2] "
                  "at index 0 does not match the shape of the indexed tensor [3]")


def test_a_write_through_a_mask_stays_as_it_is(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                y = x.clone()
                y[y > 0] = torch.tensor(0.0)
                return y

        model = M()
        example_inputs = (torch.randn(3, 4),)
    """)
    graph = graph_of(run)
    assert not nodes(graph, "aten::nonzero") and list(graph.dynamic_dims) == []


def test_one_mask_indexing_two_tensors_is_one_count(export_source):
    # boxes[keep], scores[keep]: the second nonzero of the same mask repeats the first
    # (a clone), so a retrace cannot force the two selections to different sizes.
    graph = graph_of(export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, boxes, scores):
                keep = scores > 0
                return boxes[keep], scores[keep]

        model = M()
        example_inputs = (torch.randn(6, 4), torch.tensor([1.0, -1.0, 2.0, 3.0, -2.0, 1.0]))
    """))
    assert [d.name for d in graph.dynamic_dims] == ["u0"]
    assert len(nodes(graph, "aten::nonzero")) == 1
    assert output_sizes(graph) == [["u0", 4], ["u0"]]


def test_a_path_for_no_selection_is_reported(export_source):
    # torchvision's batched_nms returns early for no boxes: the compiled graph has the
    # path of the other counts, and the draft report says so.
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                picked = x[x > 0]
                if picked.numel() == 0:
                    return torch.zeros(1)
                return picked.max().reshape(1)

        model = M()
        example_inputs = (torch.tensor([1.0, 2.0, -1.0, 3.0]),)
    """)
    assert run.returncode == 0, run.stderr
    report = run.artifact().message.report
    (empty,) = [e for e in report if "when u0 is 0" in e.message]
    assert empty.kind == "DATA_DEPENDENT" and empty.loc.line == 6


def test_batched_nms_is_one_nms_whose_count_is_data_dependent(export_source):
    # 1200 boxes: above 4000 coordinates torchvision loops over the classes present; the
    # trace takes its coordinate trick (one nms) instead, and says so.
    pytest.importorskip("torchvision")
    run = export_source("""
        import torch
        import torchvision

        class M(torch.nn.Module):
            def forward(self, boxes, scores, labels):
                keep = torchvision.ops.batched_nms(boxes, scores, labels, 0.5)
                return boxes[keep[:10]]

        g = torch.Generator().manual_seed(0)
        corner = torch.rand(1200, 2, generator=g) * 200
        boxes = torch.cat([corner, corner + 1 + torch.rand(1200, 2, generator=g) * 30], 1)
        model = M()
        example_inputs = (boxes, torch.rand(1200, generator=g),
                          torch.randint(0, 3, (1200,), generator=g))
    """)
    graph = graph_of(run)
    (nms,) = nodes(graph, "torchvision::nms")
    (count, clamp) = graph.dynamic_dims
    assert (count.name, count.min, count.max, count.produced.value) == (
        "u0", 0, 1200, nms.outputs[0])
    assert (clamp.name, clamp.clamp.expr) == ("c0", "min(u0, 10)")
    assert output_sizes(graph) == [["c0", 4]]
    report = run.artifact().message.report
    (steered,) = [e for e in report if e.kind == "EXPORT_PATH"]
    assert "batched_nms traced as one nms" in steered.message and steered.loc.line == 7
    (rows,) = [e for e in report if e.op == "torchvision::nms" and e.kind == "DATA_DEPENDENT"]
    assert "at most 1200 here (the number of boxes)" in rows.message


def test_a_clamp_above_the_example_count_of_a_selection_of_a_selection(export_source):
    # nms of the boxes a score threshold passed: at the example it keeps at most the 6
    # that passed, below keep[:10]; its bound over every run is 40, and the trace there
    # shows the clamp.
    pytest.importorskip("torchvision")
    run = export_source("""
        import torch
        import torchvision

        class M(torch.nn.Module):
            def forward(self, boxes, scores):
                passed = scores > 0.5
                boxes, scores = boxes[passed], scores[passed]
                keep = torchvision.ops.nms(boxes, scores, 0.5)
                return boxes[keep[:10]]

        corner = torch.arange(40.0)[:, None] * 10
        model = M()
        example_inputs = (torch.cat([corner, corner, corner + 5, corner + 5], 1),
                          (torch.arange(40) % 7 == 0).float())
    """)
    graph = graph_of(run)
    (clamp,) = [d for d in graph.dynamic_dims if d.HasField("clamp")]
    assert (clamp.name, clamp.clamp.expr, clamp.max) == ("c0", "min(u1, 10)", 10)
    (kept,) = [d for d in graph.dynamic_dims if d.name == "u1"]
    assert kept.max == 40 and list(kept.traced_sizes) == [6, 7, 2, 3, 40]
    assert output_sizes(graph) == [["c0", 4]]


def test_paste_masks_is_matrix_products_for_any_detection_count(export_source):
    # torchvision loops over the detections in Python, reading each box's corners as
    # ints (a graph per count, and guards); the trace makes it bmm of bilinear weights.
    pytest.importorskip("torchvision")
    run = export_source("""
        import torch
        from torchvision.models.detection import roi_heads

        class M(torch.nn.Module):
            def forward(self, masks, boxes, scores):
                keep = scores > 0.5
                return roi_heads.paste_masks_in_image(masks[keep], boxes[keep], (40, 48))

        corner = torch.rand(8, 2) * 30
        model = M()
        example_inputs = (torch.rand(8, 1, 14, 14), torch.cat([corner, corner + 9], 1),
                          torch.tensor([0.9, 0.1, 0.8, 0.7, 0.2, 0.6, 0.9, 0.3]))
    """)
    graph = graph_of(run)
    assert len(nodes(graph, "aten::bmm")) == 2 and not graph.guards
    assert output_sizes(graph) == [["u0", 1, 40, 48]]
    (steered,) = [e for e in run.artifact().message.report if e.kind == "EXPORT_PATH"]
    assert "paste_masks_in_image traced as matrix products" in steered.message
