// Transposed convolution (the gradient of a convolution with respect to its input; the
// upsampling layer of decoders, U-Nets and Mask R-CNN's mask head). Each input element
// x[n, c, i] adds x * w[c, o, k] to y[n, o, i * stride - padding + k * dilation].
//  - Windows that tile the output (kernel = stride, no padding, dilation or output
//    padding, one group): every input position writes its own k1 x ... x kd patch, so
//    the layer is one matrix product of the input's channels with the weight [C, O * k]
//    and a reshape of the patches into place; no multiply by an inserted zero.
//  - Otherwise an ordinary convolution of the input with (stride - 1) zeros inserted
//    between its elements, padded by dilation * (k - 1) - padding on each side (plus the
//    output padding after; cropped where that is negative), with the kernel flipped and its in/out
//    channels swapped per group. That reuses the convolution kernels at stride^d times the
//    product's work.
#include "compiler/transforms/decompose/TransposedConvolution.h"

#include "compiler/transforms/decompose/WindowArgs.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

RankedTensorType withShape(ArrayRef<int64_t> shape, Type element) {
  return RankedTensorType::get(shape, element);
}

/// y[n, o, i * k + j] = sum_c x[n, c, i] * w[c, o, j]: the product [N, I..., O * K]
/// reshaped to [N, I1, ..., Id, O, k1, ..., kd] and interleaved into [N, O, I1 * k1, ...].
Value tilingTransposedConvolution(Value x, Value w, RankedTensorType type, PrimBuilder &b) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(w.getType());
  Type element = type.getElementType();
  int64_t spatial = xt.getRank() - 2, c = wt.getDimSize(0), o = wt.getDimSize(1), window = 1;
  for (int64_t i = 0; i < spatial; ++i)
    window *= wt.getDimSize(2 + i);
  Value filters = b.reshape(w, withShape({c, o * window}, element));
  // Contracting x's channel dim leaves [N, I1, ..., Id, O * K].
  Value product = b.dotGeneral(x, filters, {}, {}, {1}, {0});
  SmallVector<int64_t> split = {xt.getDimSize(0)};
  for (int64_t i = 0; i < spatial; ++i)
    split.push_back(xt.getDimSize(2 + i));
  split.push_back(o);
  for (int64_t i = 0; i < spatial; ++i)
    split.push_back(wt.getDimSize(2 + i));
  Value patches = b.reshape(product, withShape(split, element));
  // [N, I1..Id, O, k1..kd] -> [N, O, I1, k1, ..., Id, kd]
  SmallVector<int64_t> perm = {0, spatial + 1};
  for (int64_t i = 0; i < spatial; ++i)
    perm.append({1 + i, spatial + 2 + i});
  Value placed = b.transpose(patches, perm);
  return b.reshape(placed, type);
}

/// x with (stride - 1) zeros after each element along every spatial dim (the zeros
/// after the last element included): each dim gets a unit dim behind it, padded to
/// `stride`, and merged back.
Value interleaveZeros(Value x, ArrayRef<int64_t> stride, PrimBuilder &b) {
  auto xt = cast<RankedTensorType>(x.getType());
  Type element = xt.getElementType();
  int64_t spatial = xt.getRank() - 2;
  SmallVector<int64_t> split = {xt.getDimSize(0), xt.getDimSize(1)}, merged = split;
  SmallVector<int64_t> low(2 + 2 * spatial, 0), high(2 + 2 * spatial, 0);
  for (int64_t i = 0; i < spatial; ++i) {
    split.append({xt.getDimSize(2 + i), 1});
    high[3 + 2 * i] = stride[i] - 1;
    merged.push_back(xt.getDimSize(2 + i) * stride[i]);
  }
  Value spread = b.reshape(x, withShape(split, element));
  Value zero = b.splat(0.0, withShape({}, element));
  spread = b.create<prim::PadOp>(spread, zero, low, high);
  return b.reshape(spread, withShape(merged, element));
}

/// The transposed convolution's weight [C, O / G, k...] as an ordinary convolution's
/// [O, C / G, k...]: channels swapped within each group, every spatial dim reversed.
Value forwardFilters(Value w, int64_t groups, PrimBuilder &b) {
  auto wt = cast<RankedTensorType>(w.getType());
  Type element = wt.getElementType();
  int64_t spatial = wt.getRank() - 2, c = wt.getDimSize(0), og = wt.getDimSize(1);
  SmallVector<int64_t> grouped = {groups, c / groups, og}, perm = {0, 2, 1},
                       forward = {groups * og, c / groups};
  for (int64_t i = 0; i < spatial; ++i) {
    grouped.push_back(wt.getDimSize(2 + i));
    perm.push_back(3 + i);
    forward.push_back(wt.getDimSize(2 + i));
  }
  Value f = b.transpose(b.reshape(w, withShape(grouped, element)), perm);
  f = b.reshape(f, withShape(forward, element));
  for (int64_t i = 0; i < spatial; ++i) {
    SmallVector<int64_t> reversed;
    for (int64_t k = wt.getDimSize(2 + i) - 1; k >= 0; --k)
      reversed.push_back(k);
    f = b.gatherAt(f, 2 + i, reversed);
  }
  return f;
}

} // namespace

Value transposedConvolution(aten::ConvolutionOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  size_t spatial = type.getRank() - 2;
  SmallVector<int64_t> stride = windowArg(op.getStride(), spatial, {1});
  SmallVector<int64_t> padding = windowArg(op.getPadding(), spatial, {0});
  SmallVector<int64_t> dilation = windowArg(op.getDilation(), spatial, {1});
  SmallVector<int64_t> outputPadding = windowArg(op.getOutputPadding(), spatial, {0});
  if (stride.empty() || padding.empty() || dilation.empty() || outputPadding.empty())
    return b.fail("stride, padding, dilation and output_padding need one entry per spatial dim");
  Type element = type.getElementType();
  Value x = b.convert(op.getInput(), element);
  Value w = b.convert(op.getWeight(), element);
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(w.getType());
  int64_t groups = op.getGroupsAttr().getInt();
  if (!wt.hasStaticShape() || groups < 1 || wt.getDimSize(0) % groups != 0)
    return b.fail(
        "a transposed convolution needs a static weight whose channels the groups divide");
  for (size_t i = 0; i < spatial; ++i)
    if (xt.isDynamicDim(2 + i) || type.isDynamicDim(2 + i))
      return b.fail("a transposed convolution of a dynamic spatial size is not supported yet");

  bool tiles = groups == 1;
  for (size_t i = 0; i < spatial; ++i)
    tiles = tiles && stride[i] == wt.getDimSize(2 + i) && padding[i] == 0 && dilation[i] == 1 &&
            outputPadding[i] == 0;
  Value result;
  if (tiles) {
    result = tilingTransposedConvolution(x, w, type, b);
  } else {
    // The interleaved input, padded by dilation * (k - 1) - padding before it and to the
    // output's size after it (it already ends in stride - 1 zeros). A negative padding
    // (padding beyond the kernel's reach, a stride beyond the kernel) crops instead.
    Value input = interleaveZeros(x, stride, b);
    auto it = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> low(spatial), high(spatial), unit(spatial, 1);
    SmallVector<int64_t> start(it.getRank(), 0), limit(it.getShape()), steps(it.getRank(), 1);
    bool crops = false;
    for (size_t i = 0; i < spatial; ++i) {
      int64_t reach = dilation[i] * (wt.getDimSize(2 + i) - 1);
      int64_t length = it.getDimSize(2 + i);
      low[i] = reach - padding[i];
      high[i] = type.getDimSize(2 + i) + reach - length - low[i];
      if (low[i] < 0) {
        start[2 + i] = -low[i];
        low[i] = 0;
        crops = true;
      }
      if (high[i] < 0) {
        limit[2 + i] = length + high[i];
        high[i] = 0;
        crops = true;
      }
    }
    if (crops) {
      if (!it.hasStaticShape())
        return b.fail("a transposed convolution that crops (padding beyond dilation * "
                      "(kernel - 1), or a stride beyond the kernel) of a dynamic batch is not "
                      "supported yet");
      input = b.create<prim::SliceOp>(input, start, limit, steps);
    }
    result = b.create<prim::ConvolutionOp>(input, forwardFilters(w, groups, b), unit, low, high,
                                           dilation, groups);
  }
  if (b.failed() || !op.getBias())
    return result;
  Value bias = b.convert(op.getBias(), element);
  return b.create<prim::AddOp>(result, b.broadcastInDim(bias, type, {1}, result));
}

} // namespace pt2c::decompose
