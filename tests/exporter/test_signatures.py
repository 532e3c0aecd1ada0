"""model.py `signatures`: one graph per signature, weights stored once, the dispatch
table, report entries that name their graph, and the errors (each: a clear message,
exit 1, no output file). Runs under both interpreters like the other exporter tests.
"""
from exporter_harness import run_exporter  # first: puts pt2c_pb2 on sys.path
import pt2c_pb2 as pb
from test_export import assert_failed

MASKED = """
    import torch

    class Masked(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 4)
            self.head = self.fc  # tied: the same parameters under two names
            self.register_buffer("calls", torch.zeros(1))

        def forward(self, x, mask=None):
            self.calls.add_(1)
            y = self.fc(x)
            if mask is not None:
                y = y.masked_fill(mask, 0.0)
            return y

        def encode(self, x):
            if x.sum() > 0:
                x = x * 2
            return self.head(x)

    model = Masked()
    signatures = {
        "encode": {"method": "encode", "inputs": (torch.ones(3, 8),)},
        "with_mask": (torch.randn(2, 8), torch.rand(2, 4) > 0.5),
        "no_mask": (torch.randn(2, 8), None),
    }
"""


def test_one_graph_per_signature_forward_first(export_source):
    run = export_source(MASKED)
    assert run.returncode == 0, run.stderr
    assert "3 graphs" in run.stderr
    artifact = run.artifact().message
    assert [g.name for g in artifact.graphs] == ["with_mask", "no_mask", "encode"]
    table = [(d.graph, d.method, [(s.name, s.present) for s in d.slots]) for d in artifact.dispatch]
    assert table == [("with_mask", "forward", [("x", True), ("mask", True)]),
                     ("no_mask", "forward", [("x", True), ("mask", False)]),
                     ("encode", "encode", [("x", True)])]
    mask_slot = artifact.dispatch[0].slots[1]
    assert mask_slot.meta.dtype == pb.BOOL and [s.value for s in mask_slot.meta.sizes] == [2, 4]
    users = [i.name for i in artifact.graphs[1].inputs if i.kind == pb.InputSpec.USER_INPUT]
    assert users == ["x"]  # None is no graph input


def test_weights_are_stored_once_for_all_graphs(export_source):
    run = export_source(MASKED)
    artifact = run.artifact()
    names = [w.name for w in artifact.message.weights]
    assert len(names) == len(set(names))
    offsets = {w.name: w.offset for w in artifact.message.weights}
    # fc and its tied alias head share the blob bytes; so do all three graphs.
    assert offsets["fc.weight"] == offsets.get("head.weight", offsets["fc.weight"])
    assert len(artifact.blob) < 2 * (4 * 8 * 4 + 4 * 4) + 3 * 64
    # The buffer the forward graphs write starts from its value before any trace.
    assert artifact.weight_bytes("calls") == b"\0" * 4


def test_report_entries_name_their_graph(export_source):
    run = export_source(MASKED, "--print-report")
    assert run.returncode == 0, run.stderr
    report = run.artifact().message.report
    assert {(e.kind, e.graph) for e in report} >= {("BUFFER_MUTATION", "with_mask"),
                                                 ("BUFFER_MUTATION", "no_mask"),
                                                 ("DATA_DEPENDENT", "encode")}
    assert "graph: encode" in run.stderr


def test_example_inputs_with_none(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def forward(self, x, bias=None):
                return x * 2 if bias is None else x + bias
        model = M()
        example_inputs = (torch.ones(2), None)
    """)
    assert run.returncode == 0, run.stderr
    artifact = run.artifact().message
    assert len(artifact.graphs) == 1
    assert [(s.name, s.present) for s in artifact.dispatch[0].slots] == [("x", True),
                                                                        ("bias", False)]
    assert not any(e.graph for e in artifact.report)  # single graph: no graph names


def test_error_signature_arity_names_forward_parameters(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def forward(self, x, mask=None):
                return x
        model = M()
        signatures = {"three": (torch.ones(2), None, torch.ones(2))}
    """)
    assert_failed(run, "signature 'three' gives 3 inputs, which M.forward(x, mask=None) does "
                  "not accept")


def test_error_example_inputs_arity(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def forward(self, x, y):
                return x + y
        model = M()
        example_inputs = (torch.ones(2),)
    """)
    assert_failed(run, "`example_inputs` gives 1 input, which M.forward(x, y) does not accept")


def test_error_method_returns_no_tensor(export_source):
    run = export_source("""
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                return x
            def size_of(self, x):
                return x.shape[0]
        model = M()
        signatures = {"main": (torch.ones(2),),
                      "size": {"method": "size_of", "inputs": (torch.ones(2),)}}
    """)
    assert_failed(run, "signature 'size': output contains no tensor (size_of() returned int 2)")


def test_error_signature_problems(export_source):
    cases = [
        ('{"a": (x,), "b": (x.clone(),)}', "signatures 'a' and 'b' have the same inputs"),
        ('{"a b": (x,)}', "signature name 'a b' is not an identifier"),
        ('{"a": {"method": "decode", "inputs": (x,)}}', "names method 'decode'"),
        ('{"a": (x, 3)}', "signature 'a': input 1 is a int"),
        ('{"a": x}', "signature 'a' is a Tensor; expected a tuple of tensors: write (x,)"),
        ('{}', "`signatures` is empty"),
        ('[(x,)]', "`signatures` is a list"),
    ]
    for table, message in cases:
        run = export_source("""
            import torch
            class M(torch.nn.Module):
                def forward(self, x, y=None):
                    return x
            model = M()
            x = torch.ones(2)
            signatures = %s
        """ % table)
        assert_failed(run, message)


def test_error_both_example_inputs_and_signatures(export_source):
    run = export_source("""
        import torch
        model = torch.nn.ReLU()
        example_inputs = (torch.ones(2),)
        signatures = {"a": (torch.ones(2),)}
    """)
    assert_failed(run, "defines both `example_inputs` and `signatures`")


# A prefill for 2..16 tokens and a one-token decode step: a signature may declare its own
# dynamic dims, keyed by its method's parameter names.
PREFILL_DECODE = """
    import torch

    class Step(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)

        def forward(self, x, pos):
            return self.fc(x) + pos.float().unsqueeze(-1)

    model = Step()
    signatures = {
        "prefill": {"inputs": (torch.randn(4, 8), torch.arange(4)),
                    "dynamic_shapes": %s},
        "decode": (torch.randn(1, 8), torch.arange(1)),
    }
"""


def test_a_signature_declares_its_own_dynamic_dims(export_source):
    run = export_source(PREFILL_DECODE % '{"x": {0: ("n", 2, 16)}, "pos": {0: "n"}}')
    assert run.returncode == 0, run.stderr
    prefill, decode = run.artifact().message.graphs
    assert [(d.name, d.min, d.max) for d in prefill.dynamic_dims] == [("n", 2, 16)]
    assert list(decode.dynamic_dims) == []


def test_error_a_signature_that_could_never_be_selected(export_source):
    # prefill's range takes one token too: decode, after it, would never run.
    run = export_source(PREFILL_DECODE % '{"x": {0: ("n", 1, 16)}, "pos": {0: "n"}}')
    assert_failed(run, "signature 'decode' can never be selected: 'prefill' comes first and "
                       "takes the same inputs at every size 'decode' does")


def test_error_signature_dynamic_shapes_problems(export_source):
    run = export_source(PREFILL_DECODE % '{"y": {0: ("n", 2, 16)}}')
    assert_failed(run, "signature 'prefill': dynamic_shapes names input 'y', but forward() "
                       "takes x, pos")
    run = export_source((PREFILL_DECODE % 'None') + '\n    dynamic_shapes = {"x": {0: ("n", 1, 4)}}')
    assert_failed(run, "with `signatures`, give each signature its own")
    run = export_source(PREFILL_DECODE.replace('"dynamic_shapes": %s', '"shapes": 1'))
    assert_failed(run, "signature 'prefill' is a dict with keys ['inputs', 'shapes']")
