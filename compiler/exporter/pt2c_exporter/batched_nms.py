"""torchvision's batched_nms, traced as the one path that holds for every box count.

torchvision.ops.batched_nms (per-class non-maximum suppression, what every detection
model's post-processing calls) takes one of two paths by the box count: above 4000
coordinates on the CPU it loops in Python over torch.unique(idxs), one nms per class
(a graph that depends on which classes the example holds); otherwise it offsets each
class's boxes by class * (largest coordinate + 1), so that boxes of different classes
never overlap, and runs one nms (the "coordinate trick", the path it takes under
torch.jit tracing too). That path returns early when there are no boxes, since the
largest coordinate of no boxes is an error.

Within the block both torchvision.ops.batched_nms and torchvision.ops.boxes.batched_nms
(what torchvision's detection models call) are the coordinate trick for every count,
with the largest coordinate taken over the boxes and 0: the same boxes kept (the
offsets only grow where every coordinate is negative, and classes stay apart), and one
graph for 0 boxes and for many. Each call is an EXPORT_PATH report entry. Code that
imported batched_nms by name before the trace keeps torchvision's own. Nothing changes
where torchvision is not installed.
"""
import sys

import torch

from .library_patch import replaced

_MESSAGE = ("torchvision.ops.batched_nms traced as one nms over boxes offset per class (its "
            "coordinate trick) for every box count: the same boxes kept, one graph for none "
            "and for many")


def steered(report, locator):
    def make(original):
        nms = sys.modules["torchvision.ops.boxes"].nms

        def batched_nms(boxes, scores, idxs, iou_threshold):
            report.add("EXPORT_PATH", _MESSAGE, locator.current(), "torchvision::nms",
                       "coordinate trick")
            with_zero = torch.cat([boxes.reshape(-1), boxes.new_zeros(1)])
            offsets = idxs.to(boxes) * (with_zero.max() + 1)
            return nms(boxes + offsets[:, None], scores, iou_threshold)
        return batched_nms

    return replaced("batched_nms", make, ["torchvision.ops.boxes", "torchvision.ops"])
