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
import contextlib
import sys

import torch

_MESSAGE = ("torchvision.ops.batched_nms traced as one nms over boxes offset per class (its "
            "coordinate trick) for every box count: the same boxes kept, one graph for none "
            "and for many")


@contextlib.contextmanager
def steered(report, locator):
    boxes_module = sys.modules.get("torchvision.ops.boxes")
    if boxes_module is None or not hasattr(boxes_module, "batched_nms"):
        yield
        return
    ops_module = sys.modules["torchvision.ops"]
    nms = boxes_module.nms

    def batched_nms(boxes, scores, idxs, iou_threshold):
        report.add("EXPORT_PATH", _MESSAGE, locator.current(), "torchvision::nms",
                   "coordinate trick")
        with_zero = torch.cat([boxes.reshape(-1), boxes.new_zeros(1)])
        offsets = idxs.to(boxes) * (with_zero.max() + 1)
        return nms(boxes + offsets[:, None], scores, iou_threshold)

    batched_nms.__doc__ = boxes_module.batched_nms.__doc__
    originals = [(m, m.batched_nms) for m in (boxes_module, ops_module)
                 if getattr(m, "batched_nms", None) is not None]
    for module, _ in originals:
        module.batched_nms = batched_nms
    try:
        yield
    finally:
        for module, original in originals:
            module.batched_nms = original
