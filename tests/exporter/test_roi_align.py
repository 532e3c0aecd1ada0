"""torchvision::roi_align recorded as ATen ops (pt2c_exporter/roi_align.py), checked
in-process against torchvision's own kernel.

Run with either interpreter (torch 1.13 from Debian, torch 2.x from the venv):
    python -m pytest tests/exporter/test_roi_align.py
"""
import pytest
import torch

import exporter_harness  # noqa: F401  (puts the exporter and pt2c_pb2 on sys.path)
from pt2c_exporter import roi_align

pytest.importorskip("torchvision")  # registers torch.ops.torchvision

B, C, H, W = 2, 3, 9, 11
# (batch index, x1, y1, x2, y2) in feature-map pixels (divided by spatial_scale below).
ROIS = [
    [0, 1.0, 1.0, 5.0, 6.0],        # inside
    [1, -3.0, -2.0, 4.0, 20.0],     # partly outside, past the bottom
    [0, 6.5, 4.2, 14.0, 8.7],       # partly outside, past the right
    [1, -20.0, -20.0, -15.0, -15.0],  # fully outside (all samples invalid)
    [0, 20.0, 3.0, 30.0, 5.0],      # fully outside on the right
    [1, 2.3, 3.1, 2.4, 3.2],        # tiny
    [0, 6.0, 5.0, 2.0, 1.0],        # degenerate: x2 < x1, y2 < y1
    [1, 0.0, 0.0, 11.0, 9.0],       # the whole map
    [1, 10.2, 8.3, 10.9, 8.9],      # in the last row and column
    # Samples exactly at y = -1 and y = H, x = -1 and x = W (the validity bounds),
    # and at y = H - 1 (the clamp): aligned=False, sampling_ratio=1, pooled 2 hits them.
    [0, -1.5, -1.5, 0.5, 0.5],
    [1, 10.5, 8.5, 12.5, 10.5],
    [0, 0.0, 7.5, 2.0, 9.5],
]


def real(*args):
    return torch.ops.torchvision.roi_align.default(*args)


def rewritten(*args, dispatch=lambda op, *a: op(*a)):
    return roi_align.rewrite(torch.ops.torchvision.roi_align.default, args, {}, dispatch)


def features(dtype=torch.float32):
    return torch.randn(B, C, H, W, generator=torch.Generator().manual_seed(0)).to(dtype)


def rois(scale, rows=ROIS, dtype=torch.float32):
    boxes = torch.tensor(rows, dtype=torch.float64).reshape(-1, 5)
    boxes[:, 1:] /= scale  # image coordinates: the op multiplies by spatial_scale
    return boxes.to(dtype)


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("sampling_ratio", [1, 2, 3])
@pytest.mark.parametrize("pooled", [(7, 7), (2, 3), (2, 2)])
@pytest.mark.parametrize("scale", [1.0, 0.25])
def test_matches_torchvision(aligned, sampling_ratio, pooled, scale):
    args = (features(), rois(scale), scale, pooled[0], pooled[1], sampling_ratio, aligned)
    expected = real(*args)
    got = rewritten(*args)
    assert got.dtype == expected.dtype and got.is_contiguous()
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)


def test_double_stays_double():
    args = (features(torch.float64), rois(0.5, dtype=torch.float64), 0.5, 7, 7, 2, True)
    got = rewritten(*args)
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, real(*args), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("aligned", [False, True])
def test_no_rois(aligned):
    args = (features(), rois(1.0, rows=[]), 1.0, 7, 7, 2, aligned)
    got = rewritten(*args)
    assert got.shape == (0, C, 7, 7) and got.shape == real(*args).shape


def test_adaptive_sampling_and_other_calls_stay():
    args = (features(), rois(1.0), 1.0, 7, 7, -1, False)
    assert rewritten(*args) is None  # the sample count depends on each roi's size
    assert roi_align.rewrite(torch.ops.aten.add.Tensor, (args[0], args[0]), {},
                             lambda op, *a: op(*a)) is None
    assert roi_align.rewrite(torch.ops.torchvision.roi_align.default, args[:6],
                             {"aligned": False}, lambda op, *a: op(*a)) is None


def ops_recorded(row_count):
    names = []

    def dispatch(op, *args):
        names.append(str(op))
        return op(*args)
    rows = (ROIS * 2)[:row_count]
    rewritten(features(), rois(0.25, rows=rows), 0.25, 7, 7, 2, False, dispatch=dispatch)
    return names


def test_same_ops_for_every_row_count():
    # A retrace with another (data-dependent) row count must record the same ops.
    ops = ops_recorded(5)
    assert ops_recorded(0) == ops and ops_recorded(1) == ops


def test_recorded_ops_are_ones_the_compiler_knows():
    path = exporter_harness.REPO + "/ir/aten/aten_ops.txt"
    with open(path) as f:
        known = {line.split("(")[0] for line in f if line.startswith("aten::")}
    for name in set(ops_recorded(3)):
        name = name.replace("aten.", "aten::").replace(".default", "")
        assert name in known, name
