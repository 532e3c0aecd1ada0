// torch.cdist and F.pdist (_cdist_forward, _pdist_forward): p-norms of row differences.
// cdist broadcasts x1's rows [..., P, 1, M] against x2's [..., 1, R, M]; pdist gathers
// the pairs (i, j), i < j, of its rows in ATen's order ((0, 1), (0, 2), ..., (1, 2), ...)
// at compile-time positions. Both reduce |a - b| over the last dim: p = 0 counts the
// non-zero differences, p = 1 sums them, p = 2 is the square root of the sum of
// squares, p = inf the largest, any other p (sum |d|^p)^(1/p). Each difference is
// computed directly, as ATen's CPU kernels do (cdist's mm-based shortcut for
// p = 2 and more than 25 rows, whose cancellation gives slightly different values, is
// not reproduced).
#include <cmath>

#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/PNorm.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// The p-norm of `a - b` (same type) over their last dim, which the result drops.
Value normOfDifference(PrimBuilder &b, Value a, Value other, double p) {
  int64_t last = tensorType(a).getRank() - 1;
  Value difference = b.create<prim::SubOp>(a, other);
  Value magnitudes = b.create<prim::AbsOp>(difference);
  return pNorm(b, magnitudes, p, {last});
}

bool validP(double p) { return p >= 0 && !std::isnan(p); }

/// _cdist_forward(x1 [..., P, M], x2 [..., R, M], p) -> [..., P, R].
Value cdist(aten::InternalCdistForwardOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  double p = op.getP().convertToDouble();
  if (!validP(p))
    return b.fail("cdist needs p >= 0");
  if (!isa<FloatType>(type.getElementType()) || !type.hasStaticShape())
    return b.fail("cdist of non-float or dynamically sized tensors");
  int64_t rank = type.getRank();
  int64_t m = tensorType(op.getX1()).getShape().back();
  // [..., P, R, M]: x1's row i and x2's row j meet at (i, j).
  SmallVector<int64_t> pairShape(type.getShape());
  pairShape.push_back(m);
  auto pairType = RankedTensorType::get(pairShape, type.getElementType());
  SmallVector<int64_t> x1Dims = llvm::to_vector(llvm::seq<int64_t>(0, rank - 1)),
                       x2Dims = llvm::to_vector(llvm::seq<int64_t>(0, rank - 2));
  x1Dims.push_back(rank);
  x2Dims.append({rank - 1, rank});
  RankedTensorType x1Type = tensorType(op.getX1()), x2Type = tensorType(op.getX2());
  if (x1Type.getShape().drop_back(2) != type.getShape().drop_back(2) ||
      x2Type.getShape().drop_back(2) != type.getShape().drop_back(2))
    return b.fail("cdist with batch dims that broadcast");
  Value a = b.broadcastInDim(op.getX1(), pairType, x1Dims);
  Value other = b.broadcastInDim(op.getX2(), pairType, x2Dims);
  return normOfDifference(b, a, other, p);
}

/// _pdist_forward(x [N, M], p) -> [N (N - 1) / 2].
Value pdist(aten::InternalPdistForwardOp op, PrimBuilder &b) {
  Value x = op.getSelf();
  RankedTensorType in = tensorType(x);
  double p = op.getPAttr() ? op.getPAttr().getValueAsDouble() : 2.0;
  if (!validP(p))
    return b.fail("pdist needs p >= 0");
  if (in.getRank() != 2 || !in.hasStaticShape() || !isa<FloatType>(in.getElementType()))
    return b.fail("pdist of a non-float or dynamically sized matrix");
  int64_t n = in.getDimSize(0);
  if (n < 2)
    return b.splat(0.0, b.resultType());
  SmallVector<int64_t> first, second;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      first.push_back(i), second.push_back(j);
  Value a = b.gatherAt(x, 0, first);
  Value other = b.gatherAt(x, 0, second);
  return normOfDifference(b, a, other, p);
}

} // namespace

void populateDistanceDecompositions(DecompositionSet &set) {
  set.add<aten::InternalCdistForwardOp>(cdist).add<aten::InternalPdistForwardOp>(pdist);
}

} // namespace pt2c::decompose
