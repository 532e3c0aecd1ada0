"""torchvision's paste_masks_in_image, traced as matrix products for every detection
count.

Mask R-CNN's post-processing pastes each detection's M x M mask probability into the
image: resized (bilinear, align_corners=False) to the detection's box, rounded to
integers, and written into a zero image inside the box. torchvision loops over the
detections in Python with the box corners read as Python ints: a graph with one
iteration per detection of the example, and guards on every corner.

Within the block it is one computation for any count: for each detection and each image
row, the weights of the mask rows that the bilinear resize mixes there (0 outside the
box), the same for columns, and pasted[i] = rows[i] @ mask[i] @ columns[i]^T (two bmm).
The weights follow ATen's upsample_bilinear2d: scale = M / box size, source = scale *
(destination + 0.5) - 0.5 clamped at 0, the lower neighbour and the fraction past it.
Each call is an EXPORT_PATH report entry.
"""
import torch

from .library_patch import replaced

_MESSAGE = ("torchvision's paste_masks_in_image traced as matrix products (bilinear weights "
            "per box row and column) instead of a Python loop over the detections: one graph "
            "for every detection count, no guard on the boxes")
_MODULES = ["torchvision.models.detection.roi_heads", "torchvision.models.detection.transform"]


def steered(report, locator):
    def make(original):
        roi_heads = __import__(_MODULES[0], fromlist=["expand_masks"])

        def paste_masks_in_image(masks, boxes, img_shape, padding=1):
            report.add("EXPORT_PATH", _MESSAGE, locator.current(), "aten::bmm", "matrix products")
            masks, scale = roi_heads.expand_masks(masks, padding=padding)
            boxes = roi_heads.expand_boxes(boxes, scale).to(dtype=torch.int64)
            im_h, im_w = img_shape
            size = masks.shape[-1]
            rows = _axis_weights(boxes[:, 1], boxes[:, 3], size, im_h, masks.dtype)
            columns = _axis_weights(boxes[:, 0], boxes[:, 2], size, im_w, masks.dtype)
            pasted = torch.bmm(torch.bmm(rows, masks[:, 0]), columns.transpose(1, 2))
            return pasted[:, None]
        return paste_masks_in_image

    return replaced("paste_masks_in_image", make, _MODULES)


def _axis_weights(first, last, size, length, dtype):
    """[n, length, size]: for image position p (rows or columns) of box i, the weight of
    each of the mask's `size` positions; nonzero where first[i] <= p <= last[i] only.
    first, last: the box's int64 corners on this axis."""
    position = torch.arange(length, device=first.device)
    extent = (last - first + 1).clamp(min=1)  # the resized mask's size, at least 1
    local = position[None, :] - first[:, None]  # [n, length], its index in the resized mask
    inside = (position[None, :] >= first[:, None]) & (position[None, :] <= last[:, None])
    scale = size / extent.to(dtype)
    source = (scale[:, None] * (local.to(dtype) + 0.5) - 0.5).clamp(min=0)
    lower = source.floor().to(torch.int64).clamp(max=size - 1)
    fraction = (source - lower.to(dtype)).clamp(0, 1)
    upper = lower + (lower < size - 1).to(torch.int64)
    index = torch.arange(size, device=first.device)
    weights = ((lower[..., None] == index).to(dtype) * (1 - fraction)[..., None]
               + (upper[..., None] == index).to(dtype) * fraction[..., None])
    return weights * inside[..., None].to(dtype)
