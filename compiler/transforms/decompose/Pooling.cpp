// Pooling -> prim.reduce_window: max pooling reduces with MAX from -inf (padding never
// wins), average pooling sums from 0 and divides by ATen's divisor, which depends on
// the position (count_include_pad, ceil_mode windows that hang over the edge) and is
// computed here, at compile time, as a constant. Adaptive average pooling is a
// regular pooling when the sizes divide, else a product with two constant averaging
// matrices (one per spatial dim), so any output size works; adaptive max pooling
// reduces one slice per output position, rows then columns. Max pooling's indices,
// when used, follow ATen's loop over the window offsets (maxPoolIndices).
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/WindowArgs.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// A rank-0 tensor holding the lowest (`lowest`) or highest value of `elementType`.
Value extremeScalar(PrimBuilder &b, Type elementType, bool lowest) {
  TypedAttr value;
  if (auto f = dyn_cast<FloatType>(elementType))
    value = FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics(), lowest));
  else
    value = IntegerAttr::get(
        elementType, lowest ? APInt::getSignedMinValue(elementType.getIntOrFloatBitWidth())
                            : APInt::getSignedMaxValue(elementType.getIntOrFloatBitWidth()));
  return b.splat(value, RankedTensorType::get({}, elementType));
}

/// A 2-D window over the last two dims of a rank-3 or rank-4 input, as reduce_window
/// attributes (one entry per dim).
struct Window2d {
  SmallVector<int64_t> window, strides, dilations, low, high;
};

/// The window that turns `input` into `result` (both static in the pooled dims);
/// stride defaults to the kernel. Returns std::nullopt (with `b` failed) on bad
/// arguments.
std::optional<Window2d> window2d(PrimBuilder &b, RankedTensorType input, RankedTensorType result,
                                 ArrayRef<int64_t> kernelSize,
                                 std::optional<ArrayRef<int64_t>> strideArg,
                                 std::optional<ArrayRef<int64_t>> paddingArg,
                                 std::optional<ArrayRef<int64_t>> dilationArg) {
  int64_t rank = input.getRank();
  SmallVector<int64_t> kernel = windowArg(kernelSize, 2, {});
  SmallVector<int64_t> stride = windowArg(strideArg, 2, kernel);
  SmallVector<int64_t> padding = windowArg(paddingArg, 2, {0});
  SmallVector<int64_t> dilation = windowArg(dilationArg, 2, {1});
  if (kernel.empty() || stride.empty() || padding.empty() || dilation.empty()) {
    b.fail("pooling arguments need one or two entries each");
    return std::nullopt;
  }
  Window2d w{SmallVector<int64_t>(rank, 1), SmallVector<int64_t>(rank, 1),
             SmallVector<int64_t>(rank, 1), SmallVector<int64_t>(rank, 0),
             SmallVector<int64_t>(rank, 0)};
  for (int i = 0; i < 2; ++i) {
    int64_t d = rank - 2 + i;
    if (input.isDynamicDim(d) || result.isDynamicDim(d)) {
      b.fail("pooling over a dynamic spatial size");
      return std::nullopt;
    }
    w.window[d] = kernel[i];
    w.strides[d] = stride[i];
    w.dilations[d] = dilation[i];
    w.low[d] = padding[i];
    w.high[d] = highPaddingFor(result.getDimSize(d), input.getDimSize(d), padding[i], kernel[i],
                               stride[i], dilation[i]);
  }
  return w;
}

Value reduceWindow(PrimBuilder &b, prim::ReduceKind kind, Value input, Value init,
                   const Window2d &w) {
  return b.create<prim::ReduceWindowOp>(kind, input, init, w.window, w.strides, w.dilations, w.low,
                                        w.high);
}

/// True if nothing depends on `value`: every user is free of side effects and has
/// only such results (F.max_pool1d squeezes the indices of the 2-d pooling it runs,
/// then drops them).
bool isDead(Value value) {
  return llvm::all_of(value.getUsers(), [](Operation *user) {
    return wouldOpBeTriviallyDead(user) && llvm::all_of(user->getResults(), isDead);
  });
}

/// The indices result of max_pool2d_with_indices, as ATen's CPU loop finds them: each
/// window starts at its first position inside the input and moves to a later one whose
/// value is larger or NaN (so ties keep the first, NaNs the last). The k*k window
/// offsets are unrolled: offset (ky, kx) is one strided slice of the input padded with
/// -inf (which never moves the choice), and its flat position in H * W per output
/// element is a compile-time constant.
Value maxPoolIndices(PrimBuilder &b, Value input, RankedTensorType indicesType, const Window2d &w) {
  RankedTensorType inputType = tensorType(input);
  int64_t rank = inputType.getRank(), hDim = rank - 2, wDim = rank - 1;
  if (!inputType.hasStaticShape())
    return b.fail("the indices of max pooling over dynamic sizes");
  Type et = inputType.getElementType();
  Value padded = b.create<prim::PadOp>(input, extremeScalar(b, et, /*lowest=*/true), w.low, w.high);
  int64_t height = inputType.getDimSize(hDim), width = inputType.getDimSize(wDim);
  int64_t oh = indicesType.getDimSize(hDim), ow = indicesType.getDimSize(wDim);
  auto i64 = IntegerType::get(inputType.getContext(), 64);
  auto planeType = RankedTensorType::get({oh, ow}, i64);
  auto flatAt = [&](int64_t y, int64_t x) -> std::optional<int64_t> {
    if (y < 0 || y >= height || x < 0 || x >= width)
      return std::nullopt;
    return y * width + x;
  };
  // The flat input position of offset (ky, kx) of each window (-1: padding).
  auto positionsOf = [&](int64_t ky, int64_t kx) {
    SmallVector<int64_t> at;
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        at.push_back(flatAt(y * w.strides[hDim] + ky * w.dilations[hDim] - w.low[hDim],
                            x * w.strides[wDim] + kx * w.dilations[wDim] - w.low[wDim])
                         .value_or(-1));
    return at;
  };
  auto constantPlane = [&](ArrayRef<int64_t> at) {
    Value plane = b.create<prim::ConstantOp>(DenseElementsAttr::get(planeType, at));
    return b.broadcastInDim(plane, indicesType.clone(i64), {hDim, wDim});
  };
  // The first in-bounds position of each window, where ATen's loop starts.
  SmallVector<int64_t> start(oh * ow, -1);
  for (int64_t ky = 0; ky < w.window[hDim]; ++ky)
    for (int64_t kx = 0; kx < w.window[wDim]; ++kx)
      for (auto [i, p] : llvm::enumerate(positionsOf(ky, kx)))
        if (start[i] < 0)
          start[i] = p;
  Value best, bestAt = constantPlane(start);
  RankedTensorType paddedType = tensorType(padded);
  for (int64_t ky = 0; ky < w.window[hDim] && !b.failed(); ++ky) {
    for (int64_t kx = 0; kx < w.window[wDim] && !b.failed(); ++kx) {
      SmallVector<int64_t> starts(rank, 0), limits(paddedType.getShape()), strides(rank, 1);
      starts[hDim] = ky * w.dilations[hDim], starts[wDim] = kx * w.dilations[wDim];
      limits[hDim] = starts[hDim] + (oh - 1) * w.strides[hDim] + 1;
      limits[wDim] = starts[wDim] + (ow - 1) * w.strides[wDim] + 1;
      strides[hDim] = w.strides[hDim], strides[wDim] = w.strides[wDim];
      Value candidate = b.create<prim::SliceOp>(padded, starts, limits, strides);
      if (!best) {
        best = candidate;
        continue; // the -inf of padding or the start position: bestAt holds it
      }
      Value moves = b.create<prim::CompareOp>(prim::CompareDirection::GT, candidate, best);
      if (isa<FloatType>(et)) { // moves || candidate is NaN
        Value nan = b.create<prim::CompareOp>(prim::CompareDirection::NE, candidate, candidate);
        moves = b.create<prim::SelectOp>(nan, nan, moves);
      }
      best = b.create<prim::SelectOp>(moves, candidate, best);
      bestAt = b.create<prim::SelectOp>(moves, constantPlane(positionsOf(ky, kx)), bestAt);
    }
  }
  return b.convert(bestAt, indicesType.getElementType());
}

/// max_pool2d_with_indices: the pooled values, and the indices (each maximum's flat
/// position in its input plane, for max_unpool or a gather) when something uses them.
SmallVector<Value> maxPool2dWithIndices(aten::MaxPool2dWithIndicesOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType(0);
  Value input = op.getSelf();
  std::optional<Window2d> w = window2d(b, tensorType(input), type, op.getKernelSize(),
                                       op.getStride(), op.getPadding(), op.getDilation());
  if (!w)
    return {Value()};
  Value init = extremeScalar(b, type.getElementType(), /*lowest=*/true);
  Value values = reduceWindow(b, prim::ReduceKind::MAX, input, init, *w);
  // Unused indices (the usual case) are zeros that canonicalization removes.
  Value indices = isDead(op->getResult(1)) ? b.splat(0.0, b.resultType(1))
                                           : maxPoolIndices(b, input, b.resultType(1), *w);
  return {values, indices};
}

/// ATen's avg_pool2d divisor for output position `o` along one dim: the window
/// clipped to the padded input (count_include_pad) or to the input itself.
int64_t divisorAlong(int64_t o, int64_t size, int64_t kernel, int64_t stride, int64_t padding,
                     bool countPad) {
  int64_t start = o * stride - padding;
  int64_t end = std::min(start + kernel, size + padding);
  if (countPad)
    return end - start;
  return std::min(end, size) - std::max<int64_t>(start, 0);
}

Value avgPool2d(aten::AvgPool2dOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Type et = type.getElementType();
  if (!isa<FloatType>(et))
    return b.fail("average pooling of integers is not supported");
  Value input = b.convert(op.getSelf(), et);
  if (b.failed())
    return {};
  std::optional<Window2d> w = window2d(b, tensorType(input), type, op.getKernelSize(),
                                       op.getStride(), op.getPadding(), std::nullopt);
  if (!w)
    return {};
  Value zero = b.splat(0.0, RankedTensorType::get({}, et));
  Value sum = reduceWindow(b, prim::ReduceKind::SUM, input, zero, *w);

  int64_t rank = type.getRank(), rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  if (auto divisor = op.getDivisorOverrideAttr())
    return b.create<prim::DivOp>(sum, b.splat((double)divisor.getInt(), type, sum));
  bool countPad = op.getCountIncludePad().value_or(true);
  SmallVector<APFloat> divisors;
  auto semantics = &cast<FloatType>(et).getFloatSemantics();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t n = divisorAlong(r, tensorType(input).getDimSize(rank - 2), w->window[rank - 2],
                               w->strides[rank - 2], w->low[rank - 2], countPad) *
                  divisorAlong(c, tensorType(input).getDimSize(rank - 1), w->window[rank - 1],
                               w->strides[rank - 1], w->low[rank - 1], countPad);
      APFloat value((double)n);
      bool lossy;
      value.convert(*semantics, APFloat::rmNearestTiesToEven, &lossy);
      divisors.push_back(value);
    }
  // Usually every window has the same size: one splat.
  if (llvm::all_of(divisors, [&](const APFloat &d) { return d == divisors.front(); }))
    return b.create<prim::DivOp>(sum, b.splat(FloatAttr::get(et, divisors.front()), type, sum));
  auto planeType = RankedTensorType::get({rows, cols}, et);
  Value plane = b.create<prim::ConstantOp>(DenseElementsAttr::get(planeType, divisors));
  return b.create<prim::DivOp>(sum, b.broadcastInDim(plane, type, {rank - 2, rank - 1}, sum));
}

/// The [out, in] matrix that averages ATen's adaptive windows along one dim: row i
/// holds 1/len over [floor(i * in / out), ceil((i + 1) * in / out)).
Value averagingMatrix(PrimBuilder &b, int64_t in, int64_t out, FloatType et) {
  SmallVector<APFloat> entries;
  for (int64_t i = 0; i < out; ++i) {
    int64_t start = i * in / out, end = ((i + 1) * in + out - 1) / out;
    for (int64_t j = 0; j < in; ++j) {
      APFloat value(j >= start && j < end ? 1.0 / (double)(end - start) : 0.0);
      bool lossy;
      value.convert(et.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lossy);
      entries.push_back(value);
    }
  }
  auto type = RankedTensorType::get({out, in}, et);
  return b.create<prim::ConstantOp>(DenseElementsAttr::get(type, entries));
}

Value adaptiveAvgPool2d(aten::InternalAdaptiveAvgPool2dOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  auto et = dyn_cast<FloatType>(type.getElementType());
  if (!et)
    return b.fail("average pooling of integers is not supported");
  Value input = b.convert(op.getSelf(), et);
  if (b.failed())
    return {};
  RankedTensorType inType = tensorType(input);
  int64_t rank = type.getRank();
  int64_t inRows = inType.getDimSize(rank - 2), inCols = inType.getDimSize(rank - 1),
          rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  if (ShapedType::isDynamic(inRows) || ShapedType::isDynamic(inCols) ||
      ShapedType::isDynamic(rows) || ShapedType::isDynamic(cols))
    return b.fail("adaptive pooling over a dynamic spatial size");
  if (rows == inRows && cols == inCols)
    return input;
  if (inRows % rows == 0 && inCols % cols == 0) {
    // Equal windows: kernel = stride = in / out.
    Window2d w{SmallVector<int64_t>(rank, 1), SmallVector<int64_t>(rank, 1),
               SmallVector<int64_t>(rank, 1), SmallVector<int64_t>(rank, 0),
               SmallVector<int64_t>(rank, 0)};
    w.window[rank - 2] = w.strides[rank - 2] = inRows / rows;
    w.window[rank - 1] = w.strides[rank - 1] = inCols / cols;
    Value zero = b.splat(0.0, RankedTensorType::get({}, et));
    Value sum = reduceWindow(b, prim::ReduceKind::SUM, input, zero, w);
    double count = (double)(inRows / rows * (inCols / cols));
    return b.create<prim::DivOp>(sum, b.splat(count, type, sum));
  }
  // [..., H, W] x [OW, W] -> [..., H, OW]; x [OH, H] -> [..., OW, OH]; transpose.
  Value colMatrix = averagingMatrix(b, inCols, cols, et);
  Value byCols = b.dotGeneral(input, colMatrix, {}, {}, {rank - 1}, {1});
  Value rowMatrix = averagingMatrix(b, inRows, rows, et);
  Value both = b.dotGeneral(byCols, rowMatrix, {}, {}, {rank - 2}, {1});
  SmallVector<int64_t> swapLast = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(swapLast[rank - 2], swapLast[rank - 1]);
  return b.transpose(both, swapLast);
}

/// The max over ATen's adaptive windows along `dim`: output i takes the max of
/// [floor(i * in / out), ceil((i + 1) * in / out)), one slice and reduction each.
Value adaptiveMaxAlong(PrimBuilder &b, Value input, int64_t dim, int64_t out) {
  RankedTensorType type = tensorType(input);
  int64_t rank = type.getRank(), in = type.getDimSize(dim);
  if (in == out)
    return input;
  SmallVector<int64_t> keptShape(type.getShape());
  keptShape[dim] = 1;
  auto keptType = type.clone(keptShape);
  SmallVector<Value> pieces;
  for (int64_t i = 0; i < out && !b.failed(); ++i) {
    SmallVector<int64_t> start(rank, 0), limit(type.getShape()), unit(rank, 1);
    start[dim] = i * in / out;
    limit[dim] = ((i + 1) * in + out - 1) / out;
    Value window = b.create<prim::SliceOp>(input, start, limit, unit);
    pieces.push_back(b.reshape(b.reduce(prim::ReduceKind::MAX, window, {dim}), keptType));
  }
  if (b.failed())
    return {};
  return pieces.size() == 1 ? pieces[0] : b.create<prim::ConcatenateOp>(pieces, dim);
}

/// adaptive_max_pool2d (nn.AdaptiveMaxPool1d/2d): max is separable, so the rows'
/// windows, then the columns'. As for max_pool2d_with_indices, the indices must be
/// dead.
SmallVector<Value> adaptiveMaxPool2d(aten::AdaptiveMaxPool2dOp op, PrimBuilder &b) {
  if (!isDead(op->getResult(1)))
    return {b.fail("the indices of adaptive_max_pool2d are used; pt2c computes only "
                   "the pooled values (return_indices=True is not supported)")};
  Value input = op.getSelf();
  RankedTensorType inType = tensorType(input), type = b.resultType(0);
  int64_t rank = type.getRank();
  for (int64_t d : {rank - 2, rank - 1})
    if (inType.isDynamicDim(d) || type.isDynamicDim(d) || !inType.getDimSize(d))
      return {b.fail("adaptive pooling over a dynamic or empty spatial size")};
  Value byCols = adaptiveMaxAlong(b, input, rank - 1, type.getDimSize(rank - 1));
  Value values = adaptiveMaxAlong(b, byCols, rank - 2, type.getDimSize(rank - 2));
  Value indices = b.splat(0.0, b.resultType(1));
  return {values, indices};
}

} // namespace

void populatePoolingDecompositions(DecompositionSet &set) {
  set.add<aten::MaxPool2dWithIndicesOp>(maxPool2dWithIndices)
      .add<aten::AvgPool2dOp>(avgPool2d)
      .add<aten::InternalAdaptiveAvgPool2dOp>(adaptiveAvgPool2d)
      .add<aten::AdaptiveMaxPool2dOp>(adaptiveMaxPool2d);
}

} // namespace pt2c::decompose
