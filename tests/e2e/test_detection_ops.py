"""torchvision's detection building blocks compiled for the CPU, against eager:
MultiScaleRoIAlign over a data-dependent selection of boxes (roi_align recorded as
matrix products, each level's boxes picked by nonzero and written back by index_put),
nms and batched_nms (the kept count a data-dependent size), and keep[:k] of it (a clamp
symbol). Boxes are made valid inside forward() from the random inputs eager_reference
draws, so each seed selects and keeps other counts.

    python -m pytest tests/e2e/test_detection_ops.py
"""
import textwrap

import pytest

from harness import check_at_seeds, write_model

pytest.importorskip("torchvision")

# Valid boxes (x1 < x2, y1 < y2) inside a 128x128 image from any [n, 4] tensor.
BOXES = """import torch
import torchvision


def boxes_from(raw):
    corner = raw[:, :2].abs() * 40
    return torch.cat([corner, corner + raw[:, 2:].abs() * 30 + 1], 1)
"""


def detection_model(tmp_path, source):
    """model.py: boxes_from() and the imports, then `source`."""
    return write_model(tmp_path, BOXES + textwrap.dedent(source))


def test_multi_scale_roi_align_over_selected_boxes(pt2c, cpp_host, python, tmp_path):
    model = detection_model(tmp_path, """
        from collections import OrderedDict

        class Pool(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.pool = torchvision.ops.MultiScaleRoIAlign(["0", "1"], 7, 2)

            def forward(self, f0, f1, raw, scores):
                boxes = boxes_from(raw)[scores > 0.3]
                feats = OrderedDict([("0", f0), ("1", f1)])
                return self.pool(feats, [boxes], [(128, 128)])

        model = Pool()
        example_inputs = (torch.randn(1, 8, 32, 32), torch.randn(1, 8, 16, 16),
                          torch.randn(20, 4), torch.rand(20))
    """)
    refs = check_at_seeds(pt2c, cpp_host, python, model, tmp_path, seeds=(7, 8, 9))
    assert len({r[0].shape[0] for r in refs}) > 1  # the seeds selected other counts


def test_paste_masks_of_selected_detections(pt2c, cpp_host, python, tmp_path):
    # Mask R-CNN's last step: each detection's mask resized into its box of the image
    # (torchvision loops over detections; the trace makes it two bmm per batch).
    model = detection_model(tmp_path, """
        from torchvision.models.detection import roi_heads

        class Paste(torch.nn.Module):
            def forward(self, masks, raw, scores):
                keep = scores > 0.4
                return roi_heads.paste_masks_in_image(masks[keep].sigmoid(),
                                                      boxes_from(raw)[keep], (96, 112))

        model = Paste()
        example_inputs = (torch.randn(12, 1, 28, 28), torch.randn(12, 4), torch.rand(12))
    """)
    refs = check_at_seeds(pt2c, cpp_host, python, model, tmp_path, seeds=(7, 8, 9))
    assert len({r[0].shape[0] for r in refs}) > 1


def test_batched_nms_and_the_top_detections(pt2c, cpp_host, python, tmp_path):
    # Per-class nms of boxes that passed a score threshold, then keep[:8]: two
    # data-dependent counts and a clamp of the second (min(u1, 8)).
    model = detection_model(tmp_path, """
        class Suppress(torch.nn.Module):
            def forward(self, raw, scores, classes):
                passed = scores > 0.2
                boxes, scores = boxes_from(raw)[passed], scores[passed]
                labels = (classes[passed].abs() * 3).long() % 3
                keep = torchvision.ops.batched_nms(boxes, scores, labels, 0.3)[:8]
                return boxes[keep], scores[keep], labels[keep]

        model = Suppress()
        example_inputs = (torch.randn(40, 4), torch.rand(40), torch.randn(40))
    """)
    refs = check_at_seeds(pt2c, cpp_host, python, model, tmp_path, seeds=(7, 8, 9))
    assert {r[1].shape[0] for r in refs} == {8}  # more than 8 kept: the clamp holds


def test_top_scores_of_a_selection(pt2c, cpp_host, python, tmp_path):
    # RetinaNet's per-level step: scores above a threshold, then topk(min(k, count)).
    model = detection_model(tmp_path, """
        class Top(torch.nn.Module):
            def forward(self, scores):
                picked = scores[scores > 0.7]
                values, where = picked.topk(min(6, picked.shape[0]))
                return values, where

        model = Top()
        example_inputs = (torch.rand(30),)
    """)
    check_at_seeds(pt2c, cpp_host, python, model, tmp_path, seeds=(7, 8, 9))
