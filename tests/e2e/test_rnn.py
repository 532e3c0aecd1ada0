"""Recurrent layers compiled by pt2c against PyTorch eager on fresh random inputs
(max|diff| / max|ref| <= 1e-4): nn.LSTM (two layers, bidirectional, batch_first) and
nn.GRU (two layers, initial state given), sequence length 8.

The exporter steers nn.LSTM off its oneDNN kernel (aten::mkldnn_rnn_layer) onto the
composite path, so both layers arrive as plain ATen ops unrolled over the time steps:
linear, unsafe_split of the gates, in-place sigmoid_/tanh_/add_/mul_, stack and cat."""
import pytest

from harness import check_against_eager, write_model

MODELS = {
    "lstm_bidirectional": """
        import torch

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = torch.nn.LSTM(32, 48, num_layers=2, batch_first=True,
                                          bidirectional=True)

            def forward(self, x):
                out, (h, c) = self.lstm(x)
                return out, h, c

        def model():
            torch.manual_seed(0)
            return M()

        example_inputs = lambda: (torch.randn(2, 8, 32),)
    """,
    "gru_initial_state": """
        import torch

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.gru = torch.nn.GRU(32, 48, num_layers=2)

            def forward(self, x, h0):
                out, h = self.gru(x, h0)
                return out, h

        def model():
            torch.manual_seed(0)
            return M()

        example_inputs = lambda: (torch.randn(8, 2, 32), torch.randn(2, 2, 48))
    """,
}


@pytest.mark.parametrize("name", MODELS)
def test_recurrent_model_matches_eager(name, pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, MODELS[name])
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)
