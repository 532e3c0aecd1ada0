"""Tensor values read into Python become guards in the artifact, not graph nodes."""


def test_branch_on_tensor_data_becomes_a_guard(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x * 2
                return x - 1

        model = M()
        example_inputs = (torch.ones(3),)
    """)
    assert run.returncode == 0, run.stderr
    graph = run.artifact().message.graphs[0]
    targets = [n.target for n in graph.nodes]
    assert "aten::_local_scalar_dense" not in targets and "aten::is_nonzero" not in targets
    assert len(graph.guards) == 1
    guard = graph.guards[0]
    assert guard.expected == 1.0  # the branch taken: True
    assert guard.loc.file == "model.py" and guard.loc.line == 6
    assert "x.sum() > 0" in guard.loc.code
    # The guarded value is the comparison the graph still computes.
    producers = {out: n.target for n in graph.nodes for out in n.outputs}
    assert producers[guard.value] == "aten::gt"


def test_item_value_is_guarded_with_its_number(export_source):
    run = export_source("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                scale = x.max().item()
                return x / scale

        model = M()
        example_inputs = (torch.arange(4.0) + 1,)
    """)
    assert run.returncode == 0, run.stderr
    (guard,) = run.artifact().message.graphs[0].guards
    assert guard.expected == 4.0
