// mean.dim, sum.dim_IntList, sum, amax and amin -> prim.reduce over the listed dims (none
// or [] means all), then a reshape for keepdim; cumsum -> prim.reduce_window. Sums of
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
    for (int64_t d : dims) {
      if (in.isDynamicDim(d))
        return b.fail("mean over a dynamic dim");
      count *= in.getDimSize(d);
    }
    result = b.create<prim::DivOp>(result, b.splat((double)count, tensorType(result), result));
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
      .add<aten::CumsumOp>(cumsum);
}

} // namespace pt2c::decompose
