// mean(.dim), sum(.dim_IntList), prod(.dim_int), var, amax and amin -> prim.reduce over
// the listed dims (none or [] means all), then a reshape for keepdim; cumsum ->
// prim.reduce_window. Sums of
// half-precision floats accumulate in f32, and sums of integers or bools in the result
// dtype (int64), as ATen's CPU kernels do.
#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// The reduced dims, non-negative and sorted; all dims if `dims` is absent or empty.
SmallVector<int64_t> reducedDims(std::optional<ArrayRef<int64_t>> dims, int64_t rank) {
  if (!dims || dims->empty())
    return llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<int64_t> result;
  for (int64_t d : *dims)
    if (rank > 0)
      result.push_back(d < 0 ? d + rank : d);
  llvm::sort(result);
  return result;
}

/// sum (and mean, with `divide`) of `self` over `reduced` (all dims if absent) in the
/// result dtype.
Value sumOrMean(Value self, std::optional<ArrayRef<int64_t>> reduced, PrimBuilder &b, bool divide) {
  RankedTensorType type = b.resultType();
  if (divide && !isa<FloatType>(type.getElementType()))
    return b.fail("mean of an integer dtype");
  Value x = b.convert(self, accumulationType(type.getElementType()));
  if (b.failed())
    return {};
  RankedTensorType in = tensorType(x);
  SmallVector<int64_t> dims = reducedDims(reduced, in.getRank());
  Value result = b.reduce(prim::ReduceKind::SUM, x, dims);
  if (divide) {
    int64_t count = 1;
    bool dynamic = false;
    for (int64_t d : dims) {
      dynamic |= in.isDynamicDim(d);
      count *= in.isDynamicDim(d) ? 1 : in.getDimSize(d);
    }
    // A dynamic count (a dynamic dimension, a data-dependent row count) is known as a
    // size only: prim has no index -> tensor conversion, so count the ones instead.
    Value divisor = dynamic ? b.reduce(prim::ReduceKind::SUM, b.splat(1.0, in, x), dims)
                            : b.splat((double)count, tensorType(result), result);
    result = b.create<prim::DivOp>(result, divisor);
  }
  return b.reshape(b.convert(result, type.getElementType()), type);
}

Value meanDim(aten::MeanDimOp op, PrimBuilder &b) {
  return sumOrMean(op.getSelf(), op.getDim(), b, true);
}
Value sumDim(aten::SumDimIntListOp op, PrimBuilder &b) {
  return sumOrMean(op.getSelf(), op.getDim(), b, false);
}
Value sum(aten::SumOp op, PrimBuilder &b) {
  return sumOrMean(op.getSelf(), std::nullopt, b, false);
}

Value mean(aten::MeanOp op, PrimBuilder &b) {
  return sumOrMean(op.getSelf(), std::nullopt, b, true);
}

/// prod over `dims` (all if absent) in the result dtype (int64 for integers and bools,
/// f32 accumulation for half floats), then keepdim's reshape.
Value product(Value self, std::optional<ArrayRef<int64_t>> dims, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value x = b.convert(self, accumulationType(type.getElementType()));
  if (b.failed())
    return {};
  Value result = b.reduce(prim::ReduceKind::PROD, x, reducedDims(dims, tensorType(x).getRank()));
  return b.reshape(b.convert(result, type.getElementType()), type);
}

Value prod(aten::ProdOp op, PrimBuilder &b) { return product(op.getSelf(), std::nullopt, b); }

Value prodDim(aten::ProdDimIntOp op, PrimBuilder &b) {
  int64_t dim = op.getDimAttr().getInt();
  return product(op.getSelf(), ArrayRef<int64_t>(dim), b);
}

/// var: the mean of the squared distances from the mean (two passes, as ATen's Welford
/// kernel is exact to rounding), over N - correction: sum((x - mean)^2) / max(N - c, 0).
Value variance(Value self, std::optional<ArrayRef<int64_t>> reduced, double correction,
               PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value x = b.convert(self, accumulationType(type.getElementType()));
  if (b.failed())
    return {};
  RankedTensorType in = tensorType(x);
  SmallVector<int64_t> dims = reducedDims(reduced, in.getRank());
  int64_t count = 1;
  for (int64_t d : dims) {
    if (in.isDynamicDim(d))
      return b.fail("var over a dynamic dim");
    count *= in.getDimSize(d);
  }
  Value sum = b.reduce(prim::ReduceKind::SUM, x, dims);
  Value mean = b.create<prim::DivOp>(sum, b.splat((double)count, tensorType(sum), sum));
  Value centred = b.create<prim::SubOp>(x, b.broadcastReduced(mean, in, dims, x));
  Value squares = b.create<prim::MulOp>(centred, centred);
  Value total = b.reduce(prim::ReduceKind::SUM, squares, dims);
  double divisor = std::max(0.0, (double)count - correction);
  Value result = b.create<prim::DivOp>(total, b.splat(divisor, tensorType(total), total));
  return b.reshape(b.convert(result, type.getElementType()), type);
}

Value varCorrection(aten::VarCorrectionOp op, PrimBuilder &b) {
  return variance(op.getSelf(), op.getDim(), scalarValue(op.getCorrectionAttr(), 1.0), b);
}

Value varDim(aten::VarDimOp op, PrimBuilder &b) {
  bool unbiased = op.getUnbiasedAttr() ? op.getUnbiasedAttr().getValue() : true;
  return variance(op.getSelf(), op.getDim(), unbiased ? 1.0 : 0.0, b);
}

/// amax/amin: NaN-propagating max/min in the input dtype.
template <typename OpT, prim::ReduceKind Kind> Value extreme(OpT op, PrimBuilder &b) {
  Value x = op.getSelf();
  SmallVector<int64_t> dims = reducedDims(op.getDim(), tensorType(x).getRank());
  return b.reshape(b.reduce(Kind, x, dims), b.resultType());
}

/// cumsum along `dim` as a sliding-window sum (prim.reduce_window, pooling's op): output
/// i sums the n-long window ending at input i, the input padded with n - 1 zeros in
/// front. That is O(n^2) adds, fine for the sequence lengths it meets (transformers'
/// packed-sequence check over position ids), and needs a static dim. Half-precision
/// floats accumulate in f32; bools and integers in the result dtype (int64).
Value cumsum(aten::CumsumOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value x = b.convert(op.getSelf(), accumulationType(type.getElementType()));
  if (b.failed())
    return {};
  RankedTensorType in = tensorType(x);
  int64_t rank = in.getRank();
  if (rank == 0)
    return b.convert(x, type.getElementType());
  int64_t dim = normalizeDim(op.getDimAttr().getInt(), rank);
  if (in.isDynamicDim(dim))
    return b.fail("cumsum over a dynamic dim");
  int64_t n = in.getDimSize(dim);
  SmallVector<int64_t> window(rank, 1), unit(rank, 1), low(rank, 0), high(rank, 0);
  window[dim] = std::max<int64_t>(n, 1);
  low[dim] = window[dim] - 1;
  Value zero = b.splat(0.0, RankedTensorType::get({}, in.getElementType()));
  Value sums =
      b.create<prim::ReduceWindowOp>(prim::ReduceKind::SUM, x, zero, window, unit, unit, low, high);
  return b.convert(sums, type.getElementType());
}

} // namespace

void populateReductionDecompositions(DecompositionSet &set) {
  set.add<aten::MeanDimOp>(meanDim)
      .add<aten::SumDimIntListOp>(sumDim)
      .add<aten::SumOp>(sum)
      .add<aten::AmaxOp>(extreme<aten::AmaxOp, prim::ReduceKind::MAX>)
      .add<aten::AminOp>(extreme<aten::AminOp, prim::ReduceKind::MIN>)
      .add<aten::CumsumOp>(cumsum)
      .add<aten::MeanOp>(mean)
      .add<aten::ProdOp>(prod)
      .add<aten::ProdDimIntOp>(prodDim)
      .add<aten::VarCorrectionOp>(varCorrection)
      .add<aten::VarDimOp>(varDim);
}

} // namespace pt2c::decompose
