"""tools/detection_match.py: detections with equal scores may swap, nothing else may."""
import numpy as np

from detection_match import detection_error

BOXES = np.array([[0, 0, 10, 10], [5, 5, 20, 20], [1, 2, 3, 4], [8, 8, 9, 9]], np.float32)
SCORES = np.array([0.9, 0.5, 0.5, 0.1], np.float32)
LABELS = np.array([1, 2, 2, 3], np.int64)


def test_equally_scored_detections_may_swap():
    order = [0, 2, 1, 3]
    assert detection_error([BOXES[order], SCORES[order], LABELS[order]],
                           [BOXES, SCORES, LABELS], 1e-4) == 0.0


def test_differently_scored_detections_may_not_swap():
    order = [1, 0, 2, 3]  # no longer ordered by score
    assert detection_error([BOXES[order], SCORES[order], LABELS[order]],
                           [BOXES, SCORES, LABELS], 1e-4) == float("inf")


def test_a_moved_box_a_changed_label_or_a_missing_detection_is_caught():
    moved = BOXES.copy()
    moved[3, 0] += 0.2  # 0.2 / max|box| 20 = 1e-2
    assert abs(detection_error([moved, SCORES, LABELS], [BOXES, SCORES, LABELS], 1e-4)
               - 1e-2) < 1e-6
    relabeled = LABELS.copy()
    relabeled[0] = 4
    assert detection_error([BOXES, SCORES, relabeled], [BOXES, SCORES, LABELS],
                           1e-4) == float("inf")
    assert detection_error([BOXES[:3], SCORES[:3], LABELS[:3]], [BOXES, SCORES, LABELS],
                           1e-4) == float("inf")
