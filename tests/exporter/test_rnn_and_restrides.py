"""nn.LSTM steered off its oneDNN kernel (fast_path.py) and in-place restrides that
change nothing left out of the graph (restrides.py).

Run with either interpreter (torch 1.13 from Debian, torch 2.x from the venv)."""
import textwrap

import torch

from exporter_harness import REPO  # noqa: F401  (first: puts pt2c_pb2 on sys.path)
from pt2c_exporter import fast_path
from pt2c_exporter.report import Report
from pt2c_exporter.source_location import SourceLocator

RNN_MODEL = """
import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(4, 6, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = torch.nn.GRU(4, 6)

    def forward(self, x):
        a, (h, c) = self.lstm(x)  # LSTM
        b, g = self.gru(x)  # GRU
        return a, h, c, b, g

model = M()
example_inputs = (torch.randn(2, 3, 4),)
"""


def line_of(source, mark):
    lines = textwrap.dedent(source).splitlines()
    [line] = [i + 1 for i, text in enumerate(lines) if text.endswith("# " + mark)]
    return line


def test_lstm_traces_its_composite_path_and_says_so(export_source):
    run = export_source(RNN_MODEL)
    assert run.returncode == 0, run.stderr
    artifact = run.artifact().message
    fast = [e for e in artifact.report if e.kind == "FAST_PATH"]
    if torch.backends.mkldnn.is_available() and fast_path._LSTM_HAS_ONEDNN_KERNEL:
        [entry] = fast  # one per LSTM call, none for the GRU (it has no oneDNN kernel)
        assert (entry.op, entry.loc.line) == ("aten::mkldnn_rnn_layer",
                                              line_of(RNN_MODEL, "LSTM"))
        assert entry.assumed.startswith("steered off")
    targets = {n.target for n in artifact.graphs[0].nodes}
    assert "aten::mkldnn_rnn_layer" not in targets
    assert "aten::sigmoid_" in targets or "aten::sigmoid" in targets


def test_lstm_steering_keeps_eager_values_and_restores_onednn():
    namespace = {}
    exec(compile(textwrap.dedent(RNN_MODEL), "model.py", "exec"), namespace)
    model = namespace["model"].eval()
    (x,) = namespace["example_inputs"]
    enabled = torch.backends.mkldnn.enabled
    with torch.no_grad():
        eager = model(x)
        with fast_path.steered_off(Report(), SourceLocator(".")):
            steered = model(x)
            assert torch.backends.mkldnn.enabled == enabled  # only inside LSTM.forward
    assert torch.backends.mkldnn.enabled == enabled
    for e, s in zip(eager, steered):
        assert torch.allclose(e, s, atol=1e-5)


def test_identity_restride_is_not_recorded_and_others_are(export_source):
    source = """
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                y = x * 2  # only the stride of the size-1 dim changes:
                y.as_strided_((2, 1, 3), (3, 5, 1))  # SAME
                z = x + 1  # a transpose of the storage:
                z.as_strided_((3, 2), (1, 3))  # OTHER
                return y, z
        model = M()
        example_inputs = (torch.randn(2, 1, 3),)
    """
    run = export_source(source)
    assert run.returncode == 0, run.stderr
    artifact = run.artifact().message
    restrides = [n.loc.line for n in artifact.graphs[0].nodes
                 if n.target == "aten::as_strided_"]
    assert restrides == [line_of(source, "OTHER")]
