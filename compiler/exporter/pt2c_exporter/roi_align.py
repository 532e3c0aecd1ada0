"""torchvision::roi_align, recorded as the ATen ops it means (two matrix products).

Faster R-CNN's MultiScaleRoIAlign calls torchvision's custom op, which the compiler
does not know: it only knows ATen. Recorded here as plain ATen ops instead, so the
graph has no custom op in it.

Each output bin averages s*s bilinear samples (s = sampling_ratio per axis). A sample's
weights and its validity (outside [-1, size] it contributes 0) factor into a y part and
an x part, so the whole op is two contractions with per-roi weight matrices:

    Wy [K, ph, H]   (1/s) sum over the s samples of valid_y * (hy onehot(y_low) + ly onehot(y_high))
    Wx [K, pw, W]   the same along x
    out[k, c, p, q] = sum_h sum_w Wy[k, p, h] * F[b_k, c, h, w] * Wx[k, q, w]

The roi's batch index is folded into the h contraction (Wy'[k, p, b*H + h] = Wy[k, p, h]
when b == b_k, else 0), so the first contraction is one mm over the whole input,
[K*ph, B*H] x [B*H, C*W], with no [K, C, H, W] gather; the second is a bmm with Wx.
Both are dense kernels; what they hold per roi is ph*B*H weights and a ph*C*W product,
never a C*H*W copy of its image.

Nothing branches on K or on the rois' values: a retrace with another row count (a
data-dependent K, data_dependent.py) records the same ops, K = 0 included. An adaptive
sampling_ratio (<= 0: the sample count depends on each roi's size) is a per-roi loop
over a value-dependent count and is left as it is, as are calls eager would reject
and inputs off the CPU (the index tensors are made on the CPU: dispatch passes no
device).
"""
import torch

from .schema import op_schema

_aten = torch.ops.aten
# The dtypes torchvision's CPU kernel takes (bfloat16 is eager's error).
_FLOATS = (torch.float16, torch.float32, torch.float64)


def rewrite(func, args, kwargs, dispatch):
    """The call's result, computed by recording what it means through
    dispatch(op, *args) (the recording mode); None where the call stays as it is."""
    if op_schema(func).qualified_name != "torchvision::roi_align.default" or kwargs \
            or len(args) != 7:
        return None
    features, rois, scale, pooled_h, pooled_w, samples, aligned = args
    if not _supported(features, rois, scale, pooled_h, pooled_w, samples, aligned):
        return None
    sampling = _Sampling(float(scale), samples, bool(aligned), dispatch)
    batch, _, height, width = features.shape
    wy = sampling.axis_weights(rois, 2, 4, pooled_h, height)  # [K, ph, H]
    wx = sampling.axis_weights(rois, 1, 3, pooled_w, width)  # [K, pw, W]
    folded = _fold_batch(rois, wy, batch, dispatch)
    return _contract(features, folded, wx, (rois.shape[0], pooled_h, pooled_w), dispatch)


def _supported(features, rois, scale, pooled_h, pooled_w, samples, aligned):
    tensors = isinstance(features, torch.Tensor) and isinstance(rois, torch.Tensor)
    return (tensors and features.dim() == 4 and rois.dim() == 2 and rois.shape[1] == 5
            and features.dtype in _FLOATS and rois.dtype == features.dtype
            and features.device.type == "cpu" and rois.device.type == "cpu"
            and isinstance(scale, (int, float)) and isinstance(aligned, bool)
            and all(isinstance(n, int) and not isinstance(n, bool)
                    for n in (pooled_h, pooled_w, samples))
            and pooled_h > 0 and pooled_w > 0 and samples > 0)


class _Sampling:
    """The per-axis half of roi_align: where the samples fall and what they weigh."""

    def __init__(self, scale, samples, aligned, dispatch):
        self.scale = scale
        self.samples = samples
        self.aligned = aligned
        self.dispatch = dispatch

    def axis_weights(self, rois, start_col, end_col, pooled, size):
        """[K, pooled, size]: the weight of each feature row (column) in each bin."""
        d = self.dispatch
        positions = self._positions(rois, start_col, end_col, pooled)  # [K, pooled, s]
        # Samples beyond one pixel outside the map contribute nothing.
        valid = d(_aten.logical_and.default, d(_aten.ge.Scalar, positions, -1.0),
                  d(_aten.le.Scalar, positions, float(size)))
        # Clamped into [0, size - 1]: at or past the last row both neighbours are it.
        positions = d(_aten.clamp_max.default,
                      d(_aten.clamp_min.default, positions, 0.0), float(size - 1))
        low = d(_aten.floor.default, positions)
        high = d(_aten.clamp_max.default, d(_aten.add.Scalar, low, 1.0), float(size - 1))
        frac_high = d(_aten.sub.Tensor, positions, low)  # ly
        frac_low = d(_aten.rsub.Scalar, frac_high, 1.0)  # hy = 1 - ly
        # A bool factor keeps the weight where the sample is valid, zeroes it elsewhere.
        frac_high = d(_aten.mul.Tensor, frac_high, valid)
        frac_low = d(_aten.mul.Tensor, frac_low, valid)
        rows = _view(d, d(_aten.arange.default, size), [1, 1, 1, size])
        weights = d(_aten.add.Tensor,
                    self._at_rows(rows, low, frac_low), self._at_rows(rows, high, frac_high))
        # Mean over the s samples of this axis; the other axis's 1/s makes it 1/(s*s).
        return d(_aten.div.Scalar, d(_aten.sum.dim_IntList, weights, [2]), self.samples)

    def _positions(self, rois, start_col, end_col, pooled):
        """[K, pooled, s]: start + bin_index * bin + (i + 0.5) * bin / s, in the
        rois' dtype, as torchvision computes them (the same roundings)."""
        d = self.dispatch
        offset = 0.5 if self.aligned else 0.0
        start = self._scaled(rois, start_col, offset)
        length = d(_aten.sub.Tensor, self._scaled(rois, end_col, offset), start)
        if not self.aligned:  # the legacy op makes every roi at least one pixel
            length = d(_aten.clamp_min.default, length, 1.0)
        bin_size = _view(d, d(_aten.div.Scalar, length, pooled), [-1, 1, 1])
        # An int64 index times a float tensor is exact and keeps the float dtype.
        bins = _view(d, d(_aten.arange.default, pooled), [1, pooled, 1])
        # (2i + 1) * bin / (2s) rounds exactly as (i + 0.5) * bin / s: scaling by 2 is exact.
        odd = _view(d, d(_aten.arange.start_step, 1, 2 * self.samples, 2),
                    [1, 1, self.samples])
        within = d(_aten.div.Scalar, d(_aten.mul.Tensor, odd, bin_size), 2 * self.samples)
        start = _view(d, start, [-1, 1, 1])
        return d(_aten.add.Tensor,
                 d(_aten.add.Tensor, start, d(_aten.mul.Tensor, bins, bin_size)), within)

    def _scaled(self, rois, col, offset):
        d = self.dispatch
        coordinate = d(_aten.mul.Scalar, d(_aten.select.int, rois, 1, col), self.scale)
        return d(_aten.sub.Scalar, coordinate, offset)

    def _at_rows(self, rows, index, weight):
        """[K, pooled, s, size]: weight where the row is index, else 0."""
        d = self.dispatch
        hit = d(_aten.eq.Tensor, d(_aten.unsqueeze.default, index, 3), rows)
        return d(_aten.mul.Tensor, hit, d(_aten.unsqueeze.default, weight, 3))


def _fold_batch(rois, wy, batch, dispatch):
    """[K*ph, B*H]: Wy placed in the block of the roi's batch element, zero elsewhere."""
    d = dispatch
    rois_count, pooled, height = wy.shape
    images = _view(d, d(_aten.arange.default, batch), [1, 1, batch, 1])
    image_of_roi = _view(d, d(_aten.select.int, rois, 1, 0), [-1, 1, 1, 1])
    mine = d(_aten.eq.Tensor, image_of_roi, images)  # [K, 1, B, 1]
    folded = d(_aten.mul.Tensor, _view(d, wy, [rois_count, pooled, 1, height]), mine)
    return _view(d, folded, [rois_count * pooled, batch * height])


def _contract(features, wy_folded, wx, out_shape, dispatch):
    """[K, C, ph, pw] from the folded Wy [K*ph, B*H] and Wx [K, pw, W]."""
    d = dispatch
    batch, channels, height, width = features.shape
    rois_count, pooled_h, pooled_w = out_shape
    rows = d(_aten.reshape.default, d(_aten.permute.default, features, [0, 2, 1, 3]),
             [batch * height, channels * width])  # [B*H, C*W]
    by_rows = d(_aten.mm.default, wy_folded, rows)  # [K*ph, C*W]
    by_rows = _view(d, by_rows, [rois_count, pooled_h * channels, width])
    out = d(_aten.bmm.default, by_rows, d(_aten.permute.default, wx, [0, 2, 1]))
    out = _view(d, out, [rois_count, pooled_h, channels, pooled_w])
    # Only the output is permuted (and copied): the [K, ph, C, W] product never is.
    return d(_aten.contiguous.default, d(_aten.permute.default, out, [0, 2, 1, 3]))


def _view(dispatch, tensor, shape):
    return dispatch(_aten.view.default, tensor, shape)
