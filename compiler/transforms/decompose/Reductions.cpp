// mean.dim, sum.dim_IntList, amax and amin -> prim.reduce over the listed dims (none
// or [] means all), then a reshape for keepdim. Sums of half-precision floats
// accumulate in f32, and sums of integers or bools in the result dtype (int64), as
// ATen's CPU kernels do.
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

/// sum (and mean, with `divide`) of `self` over `dims` in the result dtype.
template <typename OpT>
Value sumOrMean(OpT op, PrimBuilder &b, bool divide) {
  RankedTensorType type = b.resultType();
  if (divide && !isa<FloatType>(type.getElementType()))
    return b.fail("mean of an integer dtype");
  Value x = b.convert(op.getSelf(), accumulationType(type.getElementType()));
  if (b.failed())
    return {};
  RankedTensorType in = tensorType(x);
  SmallVector<int64_t> dims = reducedDims(op.getDim(), in.getRank());
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

Value meanDim(aten::MeanDimOp op, PrimBuilder &b) { return sumOrMean(op, b, true); }
Value sumDim(aten::SumDimIntListOp op, PrimBuilder &b) { return sumOrMean(op, b, false); }

/// amax/amin: NaN-propagating max/min in the input dtype.
template <typename OpT, prim::ReduceKind Kind>
Value extreme(OpT op, PrimBuilder &b) {
  Value x = op.getSelf();
  SmallVector<int64_t> dims = reducedDims(op.getDim(), tensorType(x).getRank());
  return b.reshape(b.reduce(Kind, x, dims), b.resultType());
}

} // namespace

void populateReductionDecompositions(DecompositionSet &set) {
  set.add<aten::MeanDimOp>(meanDim)
      .add<aten::SumDimIntListOp>(sumDim)
      .add<aten::AmaxOp>(extreme<aten::AmaxOp, prim::ReduceKind::MAX>)
      .add<aten::AminOp>(extreme<aten::AminOp, prim::ReduceKind::MIN>);
}

} // namespace pt2c::decompose
