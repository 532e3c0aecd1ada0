// Pooling (2-d and 3-d) -> prim.reduce_window: max pooling reduces with MAX from -inf (padding
// never wins), average pooling sums from 0 and divides by ATen's divisor, which depends on the
// position (count_include_pad, ceil_mode windows that hang over the edge) and is computed here, at
// compile time, as a constant. Adaptive average pooling is a regular pooling when the sizes divide,
// else a product with two constant averaging matrices (one per spatial dim), so any output size
// works; adaptive max pooling reduces one slice per output position, rows then columns. Max
// pooling's indices, when used, follow ATen's loop over the window offsets (maxPoolIndices).
#include <algorithm>

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

/// A window over the last `spatial` dims (2 or 3) of the input, as reduce_window
/// attributes (one entry per dim).
struct Window {
  SmallVector<int64_t> window, strides, dilations, low, high;

  /// No window yet: 1s and 0s over every dim of a rank-`rank` input.
  explicit Window(int64_t rank)
      : window(rank, 1), strides(rank, 1), dilations(rank, 1), low(rank, 0), high(rank, 0) {}
};

/// The window that turns `input` into `result` (both static in the pooled dims);
/// stride defaults to the kernel. Returns std::nullopt (with `b` failed) on bad
/// arguments.
std::optional<Window> poolWindow(PrimBuilder &b, int spatial, RankedTensorType input,
                                 RankedTensorType result, ArrayRef<int64_t> kernelSize,
                                 std::optional<ArrayRef<int64_t>> strideArg,
                                 std::optional<ArrayRef<int64_t>> paddingArg,
                                 std::optional<ArrayRef<int64_t>> dilationArg) {
  int64_t rank = input.getRank();
  SmallVector<int64_t> kernel = windowArg(kernelSize, spatial, {});
  SmallVector<int64_t> stride = windowArg(strideArg, spatial, kernel);
  SmallVector<int64_t> padding = windowArg(paddingArg, spatial, {0});
  SmallVector<int64_t> dilation = windowArg(dilationArg, spatial, {1});
  if (kernel.empty() || stride.empty() || padding.empty() || dilation.empty() || rank < spatial) {
    b.fail("pooling arguments need one entry or one per pooled dim each");
    return std::nullopt;
  }
  Window w(rank);
  for (int i = 0; i < spatial; ++i) {
    int64_t d = rank - spatial + i;
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
                   const Window &w) {
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
Value maxPoolIndices(PrimBuilder &b, Value input, RankedTensorType indicesType, const Window &w) {
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

/// max_pool{2,3}d_with_indices: the pooled values, and the indices (each maximum's flat
/// position in its input plane, for max_unpool or a gather) when something uses them
/// (2-d pooling only).
template <typename OpT, int Spatial> SmallVector<Value> maxPoolWithIndices(OpT op, PrimBuilder &b) {
  RankedTensorType type = b.resultType(0);
  Value input = op.getSelf();
  std::optional<Window> w = poolWindow(b, Spatial, tensorType(input), type, op.getKernelSize(),
                                       op.getStride(), op.getPadding(), op.getDilation());
  if (!w)
    return {Value()};
  Value init = extremeScalar(b, type.getElementType(), /*lowest=*/true);
  Value values = reduceWindow(b, prim::ReduceKind::MAX, input, init, *w);
  // Unused indices (the usual case) are zeros that canonicalization removes.
  if (isDead(op->getResult(1)))
    return {values, b.splat(0.0, b.resultType(1))};
  if (Spatial != 2)
    return {b.fail("the indices of 3-d max pooling are used; pt2c computes them for 2-d "
                   "pooling only")};
  return {values, maxPoolIndices(b, input, b.resultType(1), *w)};
}

/// ATen's avg_pool2d/3d divisor for output position `o` along one dim: the window
/// clipped to the padded input (count_include_pad) or to the input itself.
int64_t divisorAlong(int64_t o, int64_t size, int64_t kernel, int64_t stride, int64_t padding,
                     bool countPad) {
  int64_t start = o * stride - padding;
  int64_t end = std::min(start + kernel, size + padding);
  if (countPad)
    return end - start;
  return std::min(end, size) - std::max<int64_t>(start, 0);
}

/// avg_pool2d/3d: the window sums over ATen's divisors, one per output position of the
/// pooled dims (a constant of those dims' sizes, or one splat when all are equal).
template <typename OpT, int Spatial> Value avgPool(OpT op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Type et = type.getElementType();
  if (!isa<FloatType>(et))
    return b.fail("average pooling of integers is not supported");
  Value input = b.convert(op.getSelf(), et);
  if (b.failed())
    return {};
  std::optional<Window> w = poolWindow(b, Spatial, tensorType(input), type, op.getKernelSize(),
                                       op.getStride(), op.getPadding(), std::nullopt);
  if (!w)
    return {};
  Value zero = b.splat(0.0, RankedTensorType::get({}, et));
  Value sum = reduceWindow(b, prim::ReduceKind::SUM, input, zero, *w);

  if (auto divisor = op.getDivisorOverrideAttr())
    return b.create<prim::DivOp>(sum, b.splat((double)divisor.getInt(), type, sum));
  bool countPad = op.getCountIncludePad().value_or(true);
  int64_t rank = type.getRank(), first = rank - Spatial;
  SmallVector<int64_t> pooledDims = llvm::to_vector(llvm::seq<int64_t>(first, rank));
  ArrayRef<int64_t> outSizes = type.getShape().take_back(Spatial);
  SmallVector<APFloat> divisors;
  auto semantics = &cast<FloatType>(et).getFloatSemantics();
  // Row-major over the pooled output positions: `at` counts like an odometer.
  SmallVector<int64_t> at(Spatial, 0);
  for (int64_t flat = 0, total = ShapedType::getNumElements(outSizes); flat < total; ++flat) {
    int64_t n = 1;
    for (int i = 0; i < Spatial; ++i) {
      int64_t d = first + i;
      n *= divisorAlong(at[i], tensorType(input).getDimSize(d), w->window[d], w->strides[d],
                        w->low[d], countPad);
    }
    APFloat value((double)n);
    bool lossy;
    value.convert(*semantics, APFloat::rmNearestTiesToEven, &lossy);
    divisors.push_back(value);
    for (int i = Spatial - 1; i >= 0 && ++at[i] == outSizes[i]; --i)
      at[i] = 0;
  }
  // Usually every window has the same size: one splat.
  if (llvm::all_of(divisors, [&](const APFloat &d) { return d == divisors.front(); }))
    return b.create<prim::DivOp>(sum, b.splat(FloatAttr::get(et, divisors.front()), type, sum));
  auto planeType = RankedTensorType::get(outSizes, et);
  Value plane = b.create<prim::ConstantOp>(DenseElementsAttr::get(planeType, divisors));
  return b.create<prim::DivOp>(sum, b.broadcastInDim(plane, type, pooledDims, sum));
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

/// _adaptive_avg_pool2d/3d over the last `Spatial` dims.
template <typename OpT, int Spatial> Value adaptiveAvgPool(OpT op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  auto et = dyn_cast<FloatType>(type.getElementType());
  if (!et)
    return b.fail("average pooling of integers is not supported");
  Value input = b.convert(op.getSelf(), et);
  if (b.failed())
    return {};
  RankedTensorType inType = tensorType(input);
  int64_t rank = type.getRank();
  if (rank < Spatial)
    return b.fail("adaptive pooling of a tensor with fewer dims than it pools");
  bool same = true, divides = true;
  for (int64_t d = rank - Spatial; d < rank; ++d) {
    if (inType.isDynamicDim(d) || type.isDynamicDim(d) || !type.getDimSize(d))
      return b.fail("adaptive pooling over a dynamic or empty spatial size");
    same &= inType.getDimSize(d) == type.getDimSize(d);
    divides &= inType.getDimSize(d) % type.getDimSize(d) == 0;
  }
  if (same)
    return input;
  if (divides) {
    // Equal windows: kernel = stride = in / out.
    Window w(rank);
    double count = 1;
    for (int64_t d = rank - Spatial; d < rank; ++d) {
      w.window[d] = w.strides[d] = inType.getDimSize(d) / type.getDimSize(d);
      count *= (double)w.window[d];
    }
    Value zero = b.splat(0.0, RankedTensorType::get({}, et));
    Value sum = reduceWindow(b, prim::ReduceKind::SUM, input, zero, w);
    return b.create<prim::DivOp>(sum, b.splat(count, type, sum));
  }
  // Averaging is separable: from the last pooled dim to the first, a product with that
  // dim's averaging matrix, whose output dim comes last ([..., H, W] x [OW, W] ->
  // [..., H, OW]; x [OH, H] -> [..., OW, OH]); then the pooled dims' order reversed.
  Value result = input;
  for (int64_t k = 0; k < Spatial; ++k) {
    int64_t d = rank - 1 - k;
    Value matrix = averagingMatrix(b, inType.getDimSize(d), type.getDimSize(d), et);
    result = b.dotGeneral(result, matrix, {}, {}, {d}, {1});
  }
  SmallVector<int64_t> reverseLast = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::reverse(reverseLast.end() - Spatial, reverseLast.end());
  return b.transpose(result, reverseLast);
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
  set.add<aten::MaxPool2dWithIndicesOp>(maxPoolWithIndices<aten::MaxPool2dWithIndicesOp, 2>)
      .add<aten::MaxPool3dWithIndicesOp>(maxPoolWithIndices<aten::MaxPool3dWithIndicesOp, 3>)
      .add<aten::AvgPool2dOp>(avgPool<aten::AvgPool2dOp, 2>)
      .add<aten::AvgPool3dOp>(avgPool<aten::AvgPool3dOp, 3>)
      .add<aten::InternalAdaptiveAvgPool2dOp>(adaptiveAvgPool<aten::InternalAdaptiveAvgPool2dOp, 2>)
      .add<aten::InternalAdaptiveAvgPool3dOp>(adaptiveAvgPool<aten::InternalAdaptiveAvgPool3dOp, 3>)
      .add<aten::AdaptiveMaxPool2dOp>(adaptiveMaxPool2d);
}

} // namespace pt2c::decompose
