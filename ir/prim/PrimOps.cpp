// Type inference, verifiers and folders of prim ops. Dynamic sizes (ShapedType::kDynamic)
// are compatible with any size: what can only be known at run time is checked there.
#include "ir/prim/PrimDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace pt2c::prim;

namespace {

bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Checks that `dims` are distinct dims of a rank-`rank` tensor, marking them in `used`.
LogicalResult checkDims(std::optional<Location> loc, StringRef what, ArrayRef<int64_t> dims,
                        int64_t rank, llvm::SmallBitVector &used) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return emitOptionalError(loc, what, " dimension ", d, " out of range for rank ", rank);
    if (used.test(d))
      return emitOptionalError(loc, what, " dimension ", d, " used twice");
    used.set(d);
  }
  return success();
}

unsigned countDynamic(Type type) { return cast<RankedTensorType>(type).getNumDynamicDims(); }

} // namespace

//===----------------------------------------------------------------------===//
// Constants and shapes

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                           Adaptor adaptor, SmallVectorImpl<Type> &types) {
  types.push_back(adaptor.getValue().getType());
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

LogicalResult DimSizeOp::verify() {
  int64_t rank = getOperand().getType().getRank();
  int64_t dim = getDimensionAttr().getInt(); // the I64Attr getter is unsigned
  if (dim < 0 || dim >= rank)
    return emitOpError("dimension ") << dim << " out of range for rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                                          Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto type = cast<RankedTensorType>(adaptor.getLhs().getType());
  types.push_back(type.clone(IntegerType::get(context, 1)));
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement and contraction

/// Element types of ops whose index operands rule out SameOperandsAndResultElementType.
static LogicalResult verifySameElementType(Operation *op, RankedTensorType in,
                                           RankedTensorType out) {
  if (in.getElementType() != out.getElementType())
    return op->emitOpError("changes the element type from ")
           << in.getElementType() << " to " << out.getElementType();
  return success();
}

LogicalResult BroadcastInDimOp::verify() {
  auto in = getOperand().getType();
  auto out = getType();
  if (failed(verifySameElementType(*this, in, out)))
    return failure();
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  if ((int64_t)dims.size() != in.getRank())
    return emitOpError("expects one broadcast dimension per operand dimension, got ")
           << dims.size() << " for rank " << in.getRank();
  llvm::SmallBitVector used(out.getRank());
  if (failed(checkDims(getLoc(), "broadcast", dims, out.getRank(), used)))
    return failure();
  for (auto [i, d] : llvm::enumerate(dims)) {
    int64_t from = in.getDimSize(i), to = out.getDimSize(d);
    if (from != 1 && !compatible(from, to))
      return emitOpError("operand dimension ")
             << i << " of size " << from << " cannot broadcast to size " << to;
  }
  if (getDynamicSizes().size() != countDynamic(out))
    return emitOpError("expects ")
           << countDynamic(out) << " dynamic sizes, one per dynamic result dimension";
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = getOperand().getType();
  auto out = getType();
  if (failed(verifySameElementType(*this, in, out)))
    return failure();
  if (in.hasStaticShape() && out.hasStaticShape() && in.getNumElements() != out.getNumElements())
    return emitOpError("cannot reshape ")
           << in.getNumElements() << " elements into " << out.getNumElements();
  if (getDynamicSizes().size() != countDynamic(out))
    return emitOpError("expects ")
           << countDynamic(out) << " dynamic sizes, one per dynamic result dimension";
  return success();
}

int64_t AttentionOp::partOf(unsigned which) {
  std::optional<ArrayRef<int64_t>> parts = getParts();
  return which < 3 && parts && parts->size() == 3 ? (*parts)[which] : -1;
}

SmallVector<int64_t, 4> AttentionOp::logicalShape(unsigned which) {
  Value tensors[4] = {getQuery(), getKey(), getValue(), getResult()};
  SmallVector<int64_t, 4> shape(cast<RankedTensorType>(tensors[which].getType()).getShape());
  if (partOf(which) >= 0 && shape.size() == 5) // [B, len, P, H, dim]
    return {shape[0], shape[3], shape[1], shape[4]};
  if (shape.size() == 4 && getHeadsInner()[which])
    std::swap(shape[1], shape[2]);
  return shape;
}

LogicalResult AttentionOp::verify() {
  if (getHeadsInner().size() != 4)
    return emitOpError("heads_inner needs 4 entries: query, key, value, result");
  if (getParts() && getParts()->size() != 3)
    return emitOpError("parts needs 3 entries: query, key, value");
  Value tensors[4] = {getQuery(), getKey(), getValue(), getResult()};
  Type t = getQuery().getType().getElementType();
  for (auto [which, v] : llvm::enumerate(tensors)) {
    auto type = cast<RankedTensorType>(v.getType());
    if (int64_t part = partOf(which); part >= 0) {
      if (!type.hasStaticShape() || type.getRank() != 5 || !getHeadsInner()[which] ||
          part >= type.getDimSize(2))
        return emitOpError("a packed operand is a static [B, len, P, H, dim] tensor, heads "
                           "inner, of which it reads a part p < P");
    } else if (!type.hasStaticShape() || type.getRank() != 4) {
      return emitOpError("needs query, key, value and result of static rank-4 shapes");
    }
    if (type.getElementType() != t)
      return emitOpError("needs query, key, value and result of one element type");
  }
  auto q = logicalShape(0), k = logicalShape(1), v = logicalShape(2), out = logicalShape(3);
  if (k[0] != q[0] || v[0] != q[0] || out[0] != q[0] || out[1] != q[1])
    return emitOpError("batch dims of query, key, value and result or heads of query and "
                       "result differ");
  if (k[1] != v[1] || q[1] % k[1] != 0)
    return emitOpError("key and value need one head count that divides the query's");
  if (k[3] != q[3])
    return emitOpError("query and key head sizes differ");
  if (v[2] != k[2])
    return emitOpError("key and value lengths differ");
  if (out[2] != q[2] || out[3] != v[3])
    return emitOpError("result must be [B, H, query length, value head size]");
  if (Value bias = getBias()) {
    auto b = cast<RankedTensorType>(bias.getType());
    int64_t scores[4] = {q[0], q[1], q[2], k[2]};
    if ((!b.getElementType().isF32() && b.getElementType() != t) || b.getRank() != 4 ||
        !b.hasStaticShape())
      return emitOpError("bias must be a static rank-4 tensor of f32 or the query's type");
    for (int64_t d = 0; d < 4; ++d)
      if (b.getDimSize(d) != 1 && b.getDimSize(d) != scores[d])
        return emitOpError("bias dim ")
               << d << " is " << b.getDimSize(d) << ", neither 1 nor the scores' " << scores[d];
  }
  return success();
}

LogicalResult LayerNormOp::verify() {
  auto in = getInput().getType(), out = getType();
  if (!in.hasStaticShape() || in.getRank() < 1 || in.getShape() != out.getShape())
    return emitOpError("needs a static input of rank >= 1 and a result of its shape");
  if (getResidual() && getResidual().getType() != in)
    return emitOpError("residual must have the input's type");
  int64_t n = in.getShape().back();
  for (Value v : {getWeight(), getBias()})
    if (v && cast<RankedTensorType>(v.getType()).getShape() != ArrayRef<int64_t>{n})
      return emitOpError("weight and bias must be [") << n << "], one per element of the last dim";
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getOperand().getType());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if ((int64_t)perm.size() != in.getRank())
    return emitOptionalError(loc, "permutation has ", perm.size(), " entries for rank ",
                             in.getRank());
  llvm::SmallBitVector used(in.getRank());
  if (failed(checkDims(loc, "permutation", perm, in.getRank(), used)))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(in.getDimSize(d));
  types.push_back(in.clone(shape));
  return success();
}

LogicalResult DotGeneralOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getRhs().getType());
  ArrayRef<int64_t> lb = adaptor.getLhsBatchingDimensions(),
                    rb = adaptor.getRhsBatchingDimensions(),
                    lc = adaptor.getLhsContractingDimensions(),
                    rc = adaptor.getRhsContractingDimensions();
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "lhs and rhs element types differ");
  if (lb.size() != rb.size() || lc.size() != rc.size())
    return emitOptionalError(loc, "lhs and rhs have different numbers of batching or "
                                  "contracting dimensions");
  llvm::SmallBitVector lhsUsed(lhs.getRank()), rhsUsed(rhs.getRank());
  if (failed(checkDims(loc, "lhs batching/contracting", lb, lhs.getRank(), lhsUsed)) ||
      failed(checkDims(loc, "lhs batching/contracting", lc, lhs.getRank(), lhsUsed)) ||
      failed(checkDims(loc, "rhs batching/contracting", rb, rhs.getRank(), rhsUsed)) ||
      failed(checkDims(loc, "rhs batching/contracting", rc, rhs.getRank(), rhsUsed)))
    return failure();
  auto checkPairs = [&](ArrayRef<int64_t> ls, ArrayRef<int64_t> rs) -> LogicalResult {
    for (auto [l, r] : llvm::zip_equal(ls, rs))
      if (!compatible(lhs.getDimSize(l), rhs.getDimSize(r)))
        return emitOptionalError(loc, "size mismatch between lhs dimension ", l,
                                 " and rhs dimension ", r);
    return success();
  };
  if (failed(checkPairs(lb, rb)) || failed(checkPairs(lc, rc)))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [l, r] : llvm::zip_equal(lb, rb)) // a dynamic lhs size may be static in rhs
    shape.push_back(ShapedType::isDynamic(lhs.getDimSize(l)) ? rhs.getDimSize(r)
                                                             : lhs.getDimSize(l));
  for (int64_t d = 0; d < lhs.getRank(); ++d)
    if (!lhsUsed.test(d))
      shape.push_back(lhs.getDimSize(d));
  for (int64_t d = 0; d < rhs.getRank(); ++d)
    if (!rhsUsed.test(d))
      shape.push_back(rhs.getDimSize(d));
  types.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

bool DotGeneralOp::isSmallRowProduct() {
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType();
  if (!lhs.hasStaticShape() || !rhs.hasStaticShape() || !getLhsBatchingDimensions().empty() ||
      getLhsContractingDimensions().size() != 1)
    return false;
  return lhs.getNumElements() == lhs.getDimSize(getLhsContractingDimensions()[0]) &&
         rhs.getNumElements() <= kMaxSmallRowProduct;
}
