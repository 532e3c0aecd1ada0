// Decompositions of the ops that make new tensors from sizes and Scalars (full,
// zeros, ones, empty, their _like and new_ forms, scalar_tensor, arange, linspace). Their
// results depend on no input: splats become prim.constants, arange and linspace iotas.
#include <cmath>
#include <type_traits>

#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// A tensor of the result type with `value` everywhere.
Value filled(PrimBuilder &b, double value) {
  b.sizesFollowResultType("size");
  return b.splat(value, b.resultType());
}

Value filledWith(PrimBuilder &b, Attribute scalar) {
  b.sizesFollowResultType("size");
  return b.splat(b.scalarAttr(scalar, b.resultElementType()), b.resultType());
}

template <typename OpT> Value zeros(OpT, PrimBuilder &b) { return filled(b, 0.0); }

template <typename OpT> Value ones(OpT, PrimBuilder &b) { return filled(b, 1.0); }

/// empty_strided: empty with a layout, which value semantics does not keep.
Value emptyStrided(aten::EmptyStridedOp, PrimBuilder &b) {
  b.sizesFollowResultType("stride");
  return filled(b, 0.0);
}

template <typename OpT> Value full(OpT op, PrimBuilder &b) {
  return filledWith(b, op.getFillValueAttr());
}

Value scalarTensor(aten::ScalarTensorOp op, PrimBuilder &b) { return filledWith(b, op.getSAttr()); }

/// arange: start + i * step for i = 0, 1, ...; floats are computed in f64 and then
/// rounded, as ATen's CPU kernel accumulates in double.
template <typename OpT> Value arange(OpT op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Attribute start, step;
  if constexpr (!std::is_same_v<OpT, aten::ArangeOp>)
    start = op.getStartAttr();
  if constexpr (std::is_same_v<OpT, aten::ArangeStartStepOp>)
    step = op.getStepAttr();
  MLIRContext *context = op.getContext();
  auto computeType =
      type.clone(isa<FloatType>(type.getElementType()) ? (Type)Float64Type::get(context)
                                                       : (Type)IntegerType::get(context, 64));
  // A length that follows a dynamic dimension (arange(seq)) is the result's size.
  b.sizesFollowResultType("end");
  Value result = b.create<prim::IotaOp>(computeType, 0, b.dynamicSizes(computeType));
  if (step && scalarValue(step, 1.0) != 1.0) {
    Value factor = b.splat(b.scalarAttr(step, computeType.getElementType()), computeType);
    result = b.create<prim::MulOp>(result, factor);
  }
  if (start && scalarValue(start, 0.0) != 0.0) {
    Value offset = b.splat(b.scalarAttr(start, computeType.getElementType()), computeType);
    result = b.create<prim::AddOp>(result, offset);
  }
  return b.convert(result, type.getElementType());
}

/// linspace: `steps` values from start to end, as ATen's kernel computes them:
/// start + i * step for the first half, end - (steps - 1 - i) * step for the rest (so
/// both ends are exact), step = (end - start) / (steps - 1); floats in the result
/// type (half floats in f32); integer results from truncated ends, in f64, truncated.
Value linspace(aten::LinspaceOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  if (!type.hasStaticShape() || type.getRank() != 1)
    return b.fail("linspace with a dynamic number of steps");
  int64_t steps = type.getDimSize(0);
  bool isFloat = isa<FloatType>(type.getElementType());
  auto computeType = type.clone(isFloat ? accumulationType(type.getElementType())
                                        : (Type)Float64Type::get(op.getContext()));
  double start = scalarValue(op.getStartAttr(), 0.0), end = scalarValue(op.getEndAttr(), 0.0);
  if (!isFloat) { // ATen converts the ends to the result type first
    start = std::trunc(start);
    end = std::trunc(end);
  }
  if (steps <= 1)
    return b.convert(b.splat(start, computeType), type.getElementType());
  Value index = b.create<prim::IotaOp>(computeType, 0);
  Value step = b.splat((end - start) / (double)(steps - 1), computeType);
  Value fromStart =
      b.create<prim::AddOp>(b.splat(start, computeType), b.create<prim::MulOp>(index, step));
  Value remaining = b.create<prim::SubOp>(b.splat((double)(steps - 1), computeType), index);
  Value fromEnd =
      b.create<prim::SubOp>(b.splat(end, computeType), b.create<prim::MulOp>(remaining, step));
  Value firstHalf = b.create<prim::CompareOp>(prim::CompareDirection::LT, index,
                                              b.splat((double)(steps / 2), computeType));
  return b.convert(b.create<prim::SelectOp>(firstHalf, fromStart, fromEnd), type.getElementType());
}

} // namespace

void populateFactoryDecompositions(DecompositionSet &set) {
  set.add<aten::ZerosOp>(zeros<aten::ZerosOp>)
      .add<aten::NewZerosOp>(zeros<aten::NewZerosOp>)
      .add<aten::ZerosLikeOp>(zeros<aten::ZerosLikeOp>)
      // empty's contents are unspecified; zeros are as good as any and deterministic.
      .add<aten::EmptyMemoryFormatOp>(zeros<aten::EmptyMemoryFormatOp>)
      .add<aten::EmptyLikeOp>(zeros<aten::EmptyLikeOp>)
      .add<aten::EmptyStridedOp>(emptyStrided)
      .add<aten::OnesOp>(ones<aten::OnesOp>)
      .add<aten::NewOnesOp>(ones<aten::NewOnesOp>)
      .add<aten::OnesLikeOp>(ones<aten::OnesLikeOp>)
      .add<aten::FullOp>(full<aten::FullOp>)
      .add<aten::NewFullOp>(full<aten::NewFullOp>)
      .add<aten::FullLikeOp>(full<aten::FullLikeOp>)
      .add<aten::ScalarTensorOp>(scalarTensor)
      .add<aten::ArangeOp>(arange<aten::ArangeOp>)
      .add<aten::ArangeStartOp>(arange<aten::ArangeStartOp>)
      .add<aten::ArangeStartStepOp>(arange<aten::ArangeStartStepOp>)
      .add<aten::LinspaceOp>(linspace);
}

} // namespace pt2c::decompose
