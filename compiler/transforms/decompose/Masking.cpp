// Decompositions of comparisons, boolean logic and the ops that choose between values
// by a mask: eq/ne/lt/le/gt/ge become prim.compare in the operands' promoted dtype;
// logical and bitwise ops on bools become compares and selects (prim has no boolean
// arithmetic; xor is a NE compare); where, masked_fill, tril and triu become prim.select;
// isnan is x != x and isinf |x| == inf.
#include <limits>
#include <type_traits>

#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

using Direction = prim::CompareDirection;

/// bool < integer < floating point, ATen's type-promotion categories.
int category(Type t) {
  if (t.isInteger(1))
    return 0;
  return isa<FloatType>(t) ? 2 : 1;
}

/// The dtype two tensors are compared in, by ATen's promotion rules: the higher
/// category wins; within one, a dimensioned tensor beats a 0-d one (a Python number
/// arrives as a 0-d constant), else the wider type.
Type promote(Value a, Value b) {
  RankedTensorType ta = tensorType(a), tb = tensorType(b);
  Type ea = ta.getElementType(), eb = tb.getElementType();
  if (ea == eb)
    return ea;
  if (category(ea) != category(eb))
    return category(ea) > category(eb) ? ea : eb;
  if ((ta.getRank() == 0) != (tb.getRank() == 0))
    return ta.getRank() == 0 ? eb : ea;
  return ea.getIntOrFloatBitWidth() >= eb.getIntOrFloatBitWidth() ? ea : eb;
}

/// The dtype a tensor is compared with a Scalar in: a float Scalar makes an integer or
/// bool comparison a float32 one (the default dtype), an int Scalar makes a bool one
/// int64.
Type promoteWithScalar(Type self, Attribute scalar) {
  if (isa<FloatAttr>(scalar) && category(self) < 2)
    return Float32Type::get(self.getContext());
  if (isa<IntegerAttr>(scalar) && !cast<IntegerAttr>(scalar).getType().isInteger(1) &&
      self.isInteger(1))
    return IntegerType::get(self.getContext(), 64);
  return self;
}

/// `value` as a bool tensor of the result's shape (x != 0 for numbers).
Value asBool(PrimBuilder &b, Value value, RankedTensorType boolType) {
  return b.elementwiseOperand(value, boolType);
}

template <typename OpT, Direction D> Value compareTensor(OpT op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Type compute = promote(op.getSelf(), op.getOther());
  Value lhs = b.elementwiseOperand(op.getSelf(), type.clone(compute));
  Value rhs = b.elementwiseOperand(op.getOther(), type.clone(compute));
  return b.create<prim::CompareOp>(D, lhs, rhs);
}

template <typename OpT, Direction D> Value compareScalar(OpT op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Type compute = promoteWithScalar(tensorType(op.getSelf()).getElementType(), op.getOtherAttr());
  Value lhs = b.elementwiseOperand(op.getSelf(), type.clone(compute));
  Value rhs = b.splat(b.scalarAttr(op.getOtherAttr(), compute), type.clone(compute), lhs);
  return b.create<prim::CompareOp>(D, lhs, rhs);
}

Value logicalNot(aten::LogicalNotOp op, PrimBuilder &b) {
  RankedTensorType boolType = b.resultType().clone(IntegerType::get(op.getContext(), 1));
  Value x = asBool(b, op.getSelf(), boolType);
  Value result = b.create<prim::CompareOp>(Direction::EQ, x, b.splat(0.0, boolType, x));
  return b.convert(result, b.resultElementType());
}

/// ~x: logical not for bools, -x - 1 (two's complement) for integers.
Value bitwiseNot(aten::BitwiseNotOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value x = op.getSelf();
  if (type.getElementType().isInteger(1))
    return b.create<prim::CompareOp>(Direction::EQ, x, b.splat(0.0, type, x));
  if (isa<FloatType>(type.getElementType()))
    return b.fail("bitwise_not of a floating-point tensor");
  Value negated = b.create<prim::NegOp>(x);
  return b.create<prim::SubOp>(negated, b.splat(1.0, type, x));
}

/// a AND b = a ? b : false;  a OR b = a ? true : b, on bools.
template <bool IsAnd> Value andOr(PrimBuilder &b, Value lhs, Value rhs) {
  RankedTensorType type = b.resultType();
  RankedTensorType boolType = type.clone(IntegerType::get(type.getContext(), 1));
  Value x = asBool(b, lhs, boolType);
  Value y = asBool(b, rhs, boolType);
  Value constant = b.splat(IsAnd ? 0.0 : 1.0, boolType, x);
  Value result =
      IsAnd ? b.create<prim::SelectOp>(x, y, constant) : b.create<prim::SelectOp>(x, constant, y);
  return b.convert(result, type.getElementType());
}

template <typename OpT, bool IsAnd> Value logicalAndOr(OpT op, PrimBuilder &b) {
  return andOr<IsAnd>(b, op.getSelf(), op.getOther());
}

template <typename OpT, bool IsAnd> Value bitwiseAndOr(OpT op, PrimBuilder &b) {
  if (!b.resultElementType().isInteger(1))
    return b.fail("bitwise and/or of integers (prim has boolean selects only)");
  return andOr<IsAnd>(b, op.getSelf(), op.getOther());
}

/// a XOR b = (a != 0) != (b != 0), for logical_xor (any dtypes) and bitwise_xor of
/// bools.
Value exclusiveOr(PrimBuilder &b, Value lhs, Value rhs) {
  RankedTensorType type = b.resultType();
  RankedTensorType boolType = type.clone(IntegerType::get(type.getContext(), 1));
  Value x = asBool(b, lhs, boolType);
  Value y = asBool(b, rhs, boolType);
  return b.convert(b.create<prim::CompareOp>(Direction::NE, x, y), type.getElementType());
}

Value logicalXor(aten::LogicalXorOp op, PrimBuilder &b) {
  return exclusiveOr(b, op.getSelf(), op.getOther());
}

Value bitwiseXorTensor(aten::BitwiseXorTensorOp op, PrimBuilder &b) {
  if (!b.resultElementType().isInteger(1))
    return b.fail("bitwise xor of integers (prim has boolean selects only)");
  return exclusiveOr(b, op.getSelf(), op.getOther());
}

/// bitwise_and/or/xor with a bool Scalar, on bools.
template <typename OpT> Value bitwiseScalar(OpT op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  if (!type.getElementType().isInteger(1))
    return b.fail("bitwise ops on integers (prim has boolean selects only)");
  Value other = b.splat(b.scalarAttr(op.getOtherAttr(), type.getElementType()), type, op.getSelf());
  if constexpr (std::is_same_v<OpT, aten::BitwiseXorScalarOp>)
    return exclusiveOr(b, op.getSelf(), other);
  else
    return andOr<std::is_same_v<OpT, aten::BitwiseAndScalarOp>>(b, op.getSelf(), other);
}

/// isnan: x != x (only NaN differs from itself); isinf: |x| == inf. Integers are
/// neither.
template <typename OpT, bool IsNan> Value floatClass(OpT op, PrimBuilder &b) {
  Value x = op.getSelf();
  RankedTensorType type = tensorType(x);
  if (!isa<FloatType>(type.getElementType()))
    return b.splat(0.0, b.resultType(), x);
  if (IsNan)
    return b.create<prim::CompareOp>(Direction::NE, x, x);
  Value magnitude = b.create<prim::AbsOp>(x);
  Value inf = b.splat(std::numeric_limits<double>::infinity(), type, x);
  return b.create<prim::CompareOp>(Direction::EQ, magnitude, inf);
}

/// any.dim / any.dims: OR over the listed dims (none: all) read as bools, then
/// keepdim's reshape.
Value anyOver(PrimBuilder &b, Value self, SmallVector<int64_t> dims) {
  int64_t rank = tensorType(self).getRank();
  if (dims.empty())
    dims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  for (int64_t &d : dims)
    d = normalizeDim(d, rank);
  if (rank == 0)
    dims.clear();
  llvm::sort(dims);
  Value x = b.convert(self, IntegerType::get(self.getContext(), 1));
  Value reduced = b.reduce(prim::ReduceKind::OR, x, dims);
  return b.reshape(b.convert(reduced, b.resultElementType()), b.resultType());
}

Value anyDim(aten::AnyDimOp op, PrimBuilder &b) {
  return anyOver(b, op.getSelf(), {(int64_t)op.getDimAttr().getInt()});
}

Value anyDims(aten::AnyDimsOp op, PrimBuilder &b) {
  SmallVector<int64_t> dims;
  if (std::optional<ArrayRef<int64_t>> listed = op.getDim())
    dims.assign(listed->begin(), listed->end());
  return anyOver(b, op.getSelf(), dims);
}

/// all/any: AND/OR over every element of the tensor read as bools (x != 0).
template <typename OpT, prim::ReduceKind Kind> Value allAny(OpT op, PrimBuilder &b) {
  RankedTensorType type = tensorType(op.getSelf());
  Value x = b.convert(op.getSelf(), IntegerType::get(op.getContext(), 1));
  Value reduced = b.reduce(Kind, x, llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
  return b.convert(reduced, b.resultElementType());
}

Value whereSelf(aten::WhereSelfOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value condition = asBool(b, op.getCondition(), type.clone(IntegerType::get(op.getContext(), 1)));
  Value self = b.elementwiseOperand(op.getSelf(), type);
  Value other = b.elementwiseOperand(op.getOther(), type);
  return b.create<prim::SelectOp>(condition, self, other);
}

/// masked_fill: value where mask is true, self elsewhere; mask broadcasts to self.
Value maskedFill(PrimBuilder &b, Value self, Value mask, Value value) {
  RankedTensorType type = b.resultType();
  Value fill = b.elementwiseOperand(value, type, self);
  Value where = asBool(b, mask, type.clone(IntegerType::get(type.getContext(), 1)));
  return b.create<prim::SelectOp>(where, fill, b.convert(self, type.getElementType()));
}

Value maskedFillScalar(aten::MaskedFillScalarOp op, PrimBuilder &b) {
  Value value =
      b.splat(b.scalarAttr(op.getValueAttr(), b.resultElementType()), b.resultType(), op.getSelf());
  return maskedFill(b, op.getSelf(), op.getMask(), value);
}

Value maskedFillTensor(aten::MaskedFillTensorOp op, PrimBuilder &b) {
  if (tensorType(op.getValue()).getRank() != 0)
    return b.fail("masked_fill with a value tensor of rank > 0");
  return maskedFill(b, op.getSelf(), op.getMask(), op.getValue());
}

/// tril/triu over the last two dims: keep element (i, j) where j - i <= diagonal
/// (tril) or j - i >= diagonal (triu), zero elsewhere.
template <typename OpT, Direction D> Value triangle(OpT op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  if (type.getRank() < 2)
    return b.fail("tril/triu need a tensor of rank >= 2");
  auto indexType =
      RankedTensorType::get(type.getShape().take_back(2), IntegerType::get(op.getContext(), 64));
  if (!indexType.hasStaticShape())
    return b.fail("tril/triu of dynamic matrix sizes");
  Value row = b.create<prim::IotaOp>(indexType, 0);
  Value col = b.create<prim::IotaOp>(indexType, 1);
  Value offset = b.create<prim::SubOp>(col, row);
  int64_t diagonal = op.getDiagonalAttr() ? op.getDiagonalAttr().getInt() : 0;
  Value keep = b.create<prim::CompareOp>(D, offset, b.splat((double)diagonal, indexType));
  keep = b.broadcastTo(keep, type.clone(IntegerType::get(op.getContext(), 1)), op.getSelf());
  Value self = op.getSelf();
  return b.create<prim::SelectOp>(keep, self, b.splat(0.0, type, self));
}

} // namespace

void populateMaskingDecompositions(DecompositionSet &set) {
  set.add<aten::EqTensorOp>(compareTensor<aten::EqTensorOp, Direction::EQ>)
      .add<aten::NeTensorOp>(compareTensor<aten::NeTensorOp, Direction::NE>)
      .add<aten::LtTensorOp>(compareTensor<aten::LtTensorOp, Direction::LT>)
      .add<aten::LeTensorOp>(compareTensor<aten::LeTensorOp, Direction::LE>)
      .add<aten::GtTensorOp>(compareTensor<aten::GtTensorOp, Direction::GT>)
      .add<aten::GeTensorOp>(compareTensor<aten::GeTensorOp, Direction::GE>);
  set.add<aten::EqScalarOp>(compareScalar<aten::EqScalarOp, Direction::EQ>)
      .add<aten::NeScalarOp>(compareScalar<aten::NeScalarOp, Direction::NE>)
      .add<aten::LtScalarOp>(compareScalar<aten::LtScalarOp, Direction::LT>)
      .add<aten::LeScalarOp>(compareScalar<aten::LeScalarOp, Direction::LE>)
      .add<aten::GtScalarOp>(compareScalar<aten::GtScalarOp, Direction::GT>)
      .add<aten::GeScalarOp>(compareScalar<aten::GeScalarOp, Direction::GE>);
  set.add<aten::LogicalNotOp>(logicalNot)
      .add<aten::BitwiseNotOp>(bitwiseNot)
      .add<aten::LogicalAndOp>(logicalAndOr<aten::LogicalAndOp, true>)
      .add<aten::LogicalOrOp>(logicalAndOr<aten::LogicalOrOp, false>)
      .add<aten::BitwiseAndTensorOp>(bitwiseAndOr<aten::BitwiseAndTensorOp, true>)
      .add<aten::BitwiseOrTensorOp>(bitwiseAndOr<aten::BitwiseOrTensorOp, false>);
  set.add<aten::AllOp>(allAny<aten::AllOp, prim::ReduceKind::AND>)
      .add<aten::AnyOp>(allAny<aten::AnyOp, prim::ReduceKind::OR>)
      .add<aten::AnyDimOp>(anyDim)
      .add<aten::AnyDimsOp>(anyDims);
  set.add<aten::LogicalXorOp>(logicalXor)
      .add<aten::BitwiseXorTensorOp>(bitwiseXorTensor)
      .add<aten::BitwiseAndScalarOp>(bitwiseScalar<aten::BitwiseAndScalarOp>)
      .add<aten::BitwiseOrScalarOp>(bitwiseScalar<aten::BitwiseOrScalarOp>)
      .add<aten::BitwiseXorScalarOp>(bitwiseScalar<aten::BitwiseXorScalarOp>)
      .add<aten::IsnanOp>(floatClass<aten::IsnanOp, true>)
      .add<aten::IsinfOp>(floatClass<aten::IsinfOp, false>);
  set.add<aten::WhereSelfOp>(whereSelf)
      .add<aten::MaskedFillScalarOp>(maskedFillScalar)
      .add<aten::MaskedFillTensorOp>(maskedFillTensor)
      .add<aten::TrilOp>(triangle<aten::TrilOp, Direction::LE>)
      .add<aten::TriuOp>(triangle<aten::TriuOp, Direction::GE>);
}

} // namespace pt2c::decompose
