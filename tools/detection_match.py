"""Comparing a detector's output with eager's when scores tie: torchvision detectors
return boxes [N, 4], scores [N] and labels [N] ordered by score, and the order of
detections with equal scores is not defined (torch.sort and topk are not stable; pt2c's
sort is). Random-weight detectors score many boxes alike, so an element-wise comparison
fails on a swap of two equally scored rows. Here each output row may match a reference
row of the same label whose score is within the tolerance; every row must match one
(the same set of detections, scores in the same order) and the error is the largest
over matched pairs. Used by tests/e2e/test_torchvision_tasks.py and
tools/sweep_report.py for the detection family."""
import numpy as np


def detection_error(outputs, references, tolerance):
    """max |diff| / max |ref| over the rows of (boxes, scores, labels) matched as above;
    inf where the counts differ or a row matches none."""
    boxes, scores, labels = (np.asarray(a, dtype=np.float64) for a in outputs)
    ref_boxes, ref_scores, ref_labels = (np.asarray(a, dtype=np.float64) for a in references)
    if boxes.shape != ref_boxes.shape or scores.shape != ref_scores.shape or \
            labels.shape != ref_labels.shape:
        return float("inf")
    if len(scores) == 0:
        return 0.0
    box_scale = max(np.abs(ref_boxes).max(), 1e-30)
    score_scale = max(np.abs(ref_scores).max(), 1e-30)
    if np.any(np.diff(scores) > tolerance * score_scale):
        return float("inf")  # not ordered by score
    unmatched = np.ones(len(ref_scores), dtype=bool)
    worst = 0.0
    for i in range(len(scores)):
        candidates = np.flatnonzero(unmatched & (ref_labels == labels[i]) &
                                    (np.abs(ref_scores - scores[i]) <= tolerance * score_scale))
        if len(candidates) == 0:
            return float("inf")
        box_error = np.abs(ref_boxes[candidates] - boxes[i]).max(axis=1) / box_scale
        j = candidates[np.argmin(box_error)]
        unmatched[j] = False
        worst = max(worst, box_error.min(), abs(ref_scores[j] - scores[i]) / score_scale)
    return float(worst)
