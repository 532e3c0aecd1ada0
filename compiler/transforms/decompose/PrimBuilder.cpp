#include "compiler/transforms/decompose/PrimBuilder.h"

#include "ir/contract/ModelContract.h"
#include "ir/symbolic/SymbolicIR.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace pt2c::decompose {

RankedTensorType PrimBuilder::resultType(unsigned i) const {
  return cast<RankedTensorType>(atenOp->getResult(i).getType());
}

std::optional<sym::Expr> PrimBuilder::symbolicIntExpr(StringRef arg, int position) {
  handledArgs.insert(arg);
  return sym::symbolicArgument(atenOp, arg, position);
}

Value PrimBuilder::symbolicInt(StringRef arg, int position) {
  std::optional<sym::Expr> e = symbolicIntExpr(arg, position);
  if (failed() || !e)
    return {};
  return sym::materialize(rewriter, loc(), *e, sym::symbolNames(atenOp));
}

Value PrimBuilder::tracedResultSize(unsigned i, int64_t d) {
  if (failed())
    return {};
  std::optional<std::vector<sym::Expr>> dims = sym::resultDims(atenOp, i);
  if (!dims || d >= (int64_t)dims->size())
    return fail("the trace recorded no size for result " + Twine(i));
  return sym::materialize(rewriter, loc(), (*dims)[d], sym::symbolNames(atenOp));
}

std::string PrimBuilder::unhandledSymbolicArgument() const {
  for (NamedAttribute a : atenOp->getAttrs()) {
    StringRef name = a.getName().strref();
    if (name.consume_front(kSymArgPrefix) && !handledArgs.contains(name))
      return name.str();
  }
  return "";
}

Value PrimBuilder::fail(const Twine &why) {
  if (!failed())
    failure = why.str();
  return {};
}

double scalarValue(Attribute scalar, double otherwise) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(scalar))
    return i.getType().isInteger(1) ? (double)i.getValue().getBoolValue() : (double)i.getInt();
  if (auto f = dyn_cast_or_null<FloatAttr>(scalar))
    return f.getValueAsDouble();
  if (auto b = dyn_cast_or_null<BoolAttr>(scalar))
    return b.getValue();
  return otherwise;
}

TypedAttr PrimBuilder::scalarAttr(Attribute scalar, Type elementType) {
  // Integers keep their exact value (a double loses precision above 2^53); a bool
  // (i1) is 0 or 1, not sign-extended to -1.
  if (auto i = dyn_cast<IntegerAttr>(scalar); i && isa<IntegerType>(elementType)) {
    unsigned width = elementType.getIntOrFloatBitWidth();
    return IntegerAttr::get(elementType, i.getType().isInteger(1)
                                             ? i.getValue().zextOrTrunc(width)
                                             : i.getValue().sextOrTrunc(width));
  }
  return scalarAttr(scalarValue(scalar, 0.0), elementType);
}

TypedAttr PrimBuilder::scalarAttr(double value, Type elementType) {
  if (auto f = dyn_cast<FloatType>(elementType))
    return FloatAttr::get(f, value);
  if (elementType.isInteger(1))
    return IntegerAttr::get(elementType, value != 0.0);
  return IntegerAttr::get(elementType, (int64_t)value);
}

Value PrimBuilder::splat(TypedAttr value, RankedTensorType type, ValueRange like) {
  if (failed())
    return {};
  if (type.hasStaticShape())
    return create<prim::ConstantOp>(DenseElementsAttr::get(type, value));
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  Value scalar = create<prim::ConstantOp>(DenseElementsAttr::get(scalarType, value));
  return broadcastInDim(scalar, type, {}, like);
}

Value PrimBuilder::splat(double value, RankedTensorType type, ValueRange like) {
  return splat(scalarAttr(value, type.getElementType()), type, like);
}

Value PrimBuilder::convert(Value value, Type elementType) {
  if (failed())
    return {};
  RankedTensorType type = tensorType(value);
  if (type.getElementType() == elementType)
    return value;
  return create<prim::ConvertOp>(type.clone(elementType), value);
}

/// The sizes of the aten op's result that has `type`'s shape, as the trace recorded
/// them (the importer's pt2c.result_dims): exact where operand dims are not.
static std::optional<std::vector<sym::Expr>> tracedSizes(Operation *atenOp, RankedTensorType type) {
  for (auto [i, result] : llvm::enumerate(atenOp->getResults())) {
    auto t = dyn_cast<RankedTensorType>(result.getType());
    if (t && t.getShape() == type.getShape())
      return sym::resultDims(atenOp, i);
  }
  return std::nullopt;
}

SmallVector<Value> PrimBuilder::dynamicSizes(RankedTensorType type, ValueRange like) {
  SmallVector<Value> sizes;
  std::optional<std::vector<sym::Expr>> traced = tracedSizes(atenOp, type);
  for (int64_t d = 0; d < type.getRank() && !failed(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    Value source;
    int64_t sourceDim = 0;
    for (Value v : like)
      if (tensorType(v).getRank() == type.getRank() && tensorType(v).isDynamicDim(d)) {
        source = v, sourceDim = d;
        break;
      }
    if (!source && traced && d < (int64_t)traced->size()) {
      sizes.push_back(sym::materialize(rewriter, loc(), (*traced)[d], sym::symbolNames(atenOp)));
      continue;
    }
    for (Value v : atenOp->getOperands()) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      int64_t aligned = t ? d - (type.getRank() - t.getRank()) : -1;
      if (source || !t || aligned < 0 || !t.isDynamicDim(aligned))
        continue;
      source = v, sourceDim = aligned;
    }
    if (!source) {
      fail("no operand gives the dynamic size of result dim " + Twine(d));
      break;
    }
    sizes.push_back(create<prim::DimSizeOp>(source, sourceDim));
  }
  return sizes;
}

Value PrimBuilder::broadcastInDim(Value value, RankedTensorType type, ArrayRef<int64_t> dims,
                                  ValueRange like) {
  if (failed())
    return {};
  SmallVector<Value> sizes = dynamicSizes(type, like);
  return create<prim::BroadcastInDimOp>(type, value, dims, sizes);
}

Value PrimBuilder::broadcastTo(Value value, RankedTensorType type, ValueRange like) {
  if (failed())
    return {};
  RankedTensorType from = tensorType(value);
  auto target = type.clone(from.getElementType());
  if (from == target)
    return value;
  int64_t lead = target.getRank() - from.getRank();
  if (lead < 0)
    return fail("cannot broadcast rank " + Twine(from.getRank()) + " to rank " +
                Twine(target.getRank()));
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < from.getRank(); ++d)
    dims.push_back(lead + d);
  return broadcastInDim(value, target, dims, like);
}

Value PrimBuilder::elementwiseOperand(Value value, RankedTensorType type, ValueRange like) {
  return broadcastTo(convert(value, type.getElementType()), type, like);
}

Value PrimBuilder::scaleBy(Value value, Attribute factor) {
  if (failed() || !factor || scalarValue(factor, 1.0) == 1.0)
    return value;
  RankedTensorType type = tensorType(value);
  Value splatFactor = splat(scalarAttr(factor, type.getElementType()), type, value);
  return create<prim::MulOp>(value, splatFactor);
}

Value PrimBuilder::transpose(Value value, ArrayRef<int64_t> permutation) {
  if (failed())
    return {};
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size())))
    return value;
  return create<prim::TransposeOp>(value, permutation);
}

Value PrimBuilder::gatherAt(Value value, int64_t dim, ArrayRef<int64_t> indices) {
  if (failed())
    return {};
  auto indexType =
      RankedTensorType::get({(int64_t)indices.size()}, IntegerType::get(value.getContext(), 64));
  Value positions = create<prim::ConstantOp>(DenseElementsAttr::get(indexType, indices));
  return create<prim::GatherOp>(value, positions, dim, 0);
}

Value PrimBuilder::reshape(Value value, RankedTensorType type) {
  if (failed())
    return {};
  RankedTensorType from = tensorType(value);
  if (from == type)
    return value;
  // Sizes the trace recorded for this shape are exact (view [batch*seq, 16]).
  if (!type.hasStaticShape() && tracedSizes(atenOp, type))
    return create<prim::ReshapeOp>(type, value, dynamicSizes(type));
  // Otherwise the k-th dynamic result dim takes the k-th dynamic input dim.
  SmallVector<int64_t> fromDynamic;
  int64_t fromStatic = 1, toStatic = 1;
  for (int64_t d = 0; d < from.getRank(); ++d)
    from.isDynamicDim(d) ? fromDynamic.push_back(d) : void(fromStatic *= from.getDimSize(d));
  for (int64_t s : type.getShape())
    toStatic *= ShapedType::isDynamic(s) ? 1 : s;
  if (type.getNumDynamicDims() != (int64_t)fromDynamic.size() ||
      (!fromDynamic.empty() && fromStatic != toStatic))
    return fail("reshape would need to compute a dynamic size");
  SmallVector<Value> sizes;
  for (int64_t d : fromDynamic)
    sizes.push_back(create<prim::DimSizeOp>(value, d));
  return create<prim::ReshapeOp>(type, value, sizes);
}

TypedAttr reductionIdentity(prim::ReduceKind kind, Type elementType) {
  using K = prim::ReduceKind;
  if (auto f = dyn_cast<FloatType>(elementType)) {
    if (kind == K::MAX || kind == K::MIN)
      return FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics(), kind == K::MAX));
    return FloatAttr::get(f, kind == K::PROD ? 1.0 : 0.0);
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  APInt value = kind == K::MAX                      ? APInt::getSignedMinValue(width)
                : kind == K::MIN                    ? APInt::getSignedMaxValue(width)
                : kind == K::AND || kind == K::PROD ? APInt(width, 1)
                                                    : APInt(width, 0);
  return IntegerAttr::get(elementType, value);
}

Value PrimBuilder::reduce(prim::ReduceKind kind, Value value, ArrayRef<int64_t> dims) {
  if (failed())
    return {};
  Type elementType = tensorType(value).getElementType();
  auto scalarType = RankedTensorType::get({}, elementType);
  Value init = splat(reductionIdentity(kind, elementType), scalarType);
  return create<prim::ReduceOp>(kind, value, init, dims);
}

Value PrimBuilder::broadcastReduced(Value reduced, RankedTensorType type,
                                    ArrayRef<int64_t> reducedDims, ValueRange like) {
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!llvm::is_contained(reducedDims, d))
      kept.push_back(d);
  if (failed())
    return {};
  return broadcastInDim(reduced, type.clone(tensorType(reduced).getElementType()), kept, like);
}

Value PrimBuilder::dotGeneral(Value lhs, Value rhs, ArrayRef<int64_t> lhsBatch,
                              ArrayRef<int64_t> rhsBatch, ArrayRef<int64_t> lhsContract,
                              ArrayRef<int64_t> rhsContract) {
  return create<prim::DotGeneralOp>(lhs, rhs, lhsBatch, rhsBatch, lhsContract, rhsContract);
}

} // namespace pt2c::decompose
