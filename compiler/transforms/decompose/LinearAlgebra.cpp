// Decompositions of matrix products into prim.dot_general (plus broadcasts for
// batched torch.matmul and for the bias terms of addmm/linear).
#include <numeric>

#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// lhs[.., K] x rhs contracted over lhs's last dim and rhs dim `rhsDim`, in the
/// result dtype.
Value contractLast(PrimBuilder &b, Value lhs, Value rhs, int64_t rhsDim) {
  Type et = b.resultElementType();
  lhs = b.convert(lhs, et);
  rhs = b.convert(rhs, et);
  if (b.failed())
    return {};
  return b.dotGeneral(lhs, rhs, {}, {}, {tensorType(lhs).getRank() - 1}, {rhsDim});
}

Value mm(aten::MmOp op, PrimBuilder &b) { return contractLast(b, op.getSelf(), op.getMat2(), 0); }

Value bmm(aten::BmmOp op, PrimBuilder &b) {
  // One statement per created op: argument evaluation order is unspecified in C++,
  // and the output must be deterministic.
  Value lhs = b.convert(op.getSelf(), b.resultElementType());
  Value rhs = b.convert(op.getMat2(), b.resultElementType());
  return b.dotGeneral(lhs, rhs, {0}, {0}, {2}, {1});
}

/// beta * self + alpha * (mat1 @ mat2); with beta == 0 self is ignored, NaNs
/// included, as torch documents.
Value addmm(aten::AddmmOp op, PrimBuilder &b) {
  Value product = b.scaleBy(contractLast(b, op.getMat1(), op.getMat2(), 0), op.getAlphaAttr());
  if (scalarValue(op.getBetaAttr(), 1.0) == 0.0)
    return product;
  Value self = b.elementwiseOperand(op.getSelf(), b.resultType(), product);
  return b.create<prim::AddOp>(b.scaleBy(self, op.getBetaAttr()), product);
}

/// input[.., K] x weight[N, K] (or [K]) + bias: weight is contracted on its own K
/// dim, so no transpose is needed.
Value linear(aten::LinearOp op, PrimBuilder &b) {
  Value weight = op.getWeight();
  Value product = contractLast(b, op.getInput(), weight, tensorType(weight).getRank() == 2 ? 1 : 0);
  if (!op.getBias())
    return product;
  Value bias = b.elementwiseOperand(op.getBias(), b.resultType(), product);
  return b.create<prim::AddOp>(product, bias);
}

/// torch.matmul: vector and matrix cases map directly onto dot_general; batched
/// operands are first broadcast to the result's batch dims.
Value matmul(aten::MatmulOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value lhs = b.convert(op.getSelf(), type.getElementType());
  Value rhs = b.convert(op.getOther(), type.getElementType());
  if (b.failed())
    return {};
  int64_t lhsRank = tensorType(lhs).getRank(), rhsRank = tensorType(rhs).getRank();
  if (rhsRank <= 2) // [.., (M,) K] x [K (, N)]
    return contractLast(b, lhs, rhs, 0);
  if (lhsRank == 1) // [K] x [.., K, N] -> [.., N]
    return b.dotGeneral(lhs, rhs, {}, {}, {0}, {rhsRank - 2});
  // [.., M, K] x [.., K, N]: broadcast both to the result's batch dims.
  int64_t batchRank = type.getRank() - 2;
  auto withBatch = [&](Value v) {
    SmallVector<int64_t> shape(type.getShape().take_front(batchRank));
    llvm::append_range(shape, tensorType(v).getShape().take_back(2));
    return b.broadcastTo(v, RankedTensorType::get(shape, type.getElementType()));
  };
  SmallVector<int64_t> batch(batchRank);
  std::iota(batch.begin(), batch.end(), 0);
  lhs = withBatch(lhs);
  rhs = withBatch(rhs);
  return b.dotGeneral(lhs, rhs, batch, batch, {batchRank + 1}, {batchRank});
}

} // namespace

void populateLinearAlgebraDecompositions(DecompositionSet &set) {
  set.add<aten::MmOp>(mm)
      .add<aten::BmmOp>(bmm)
      .add<aten::AddmmOp>(addmm)
      .add<aten::LinearOp>(linear)
      .add<aten::MatmulOp>(matmul);
}

} // namespace pt2c::decompose
