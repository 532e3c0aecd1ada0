// Vector norms: torch.linalg.vector_norm (x.norm(), F.normalize; ConvNeXt-V2's global
// response norm, XCiT's and Swin-V2's cosine attention) and the weight norm of
// nn.utils.weight_norm (wav2vec2's positional convolution), whose
// _weight_norm_interface returns w = v * (g / ||v||) and the norms ||v||, taken over
// every dim but `dim`. Half floats are accumulated in f32, as ATen's CPU kernels do.
#include <cmath>

#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/PNorm.h"

using namespace mlir;

namespace pt2c::decompose {

Value pNorm(PrimBuilder &b, Value magnitudes, double p, ArrayRef<int64_t> dims) {
  RankedTensorType type = tensorType(magnitudes);
  if (std::isinf(p))
    return b.reduce(p > 0 ? prim::ReduceKind::MAX : prim::ReduceKind::MIN, magnitudes, dims);
  if (p == 0) {
    Value zero = b.splat(0.0, type, magnitudes);
    Value nonZero = b.create<prim::CompareOp>(prim::CompareDirection::NE, magnitudes, zero);
    Value counted = b.convert(nonZero, type.getElementType());
    return b.reduce(prim::ReduceKind::SUM, counted, dims);
  }
  if (p == 1)
    return b.reduce(prim::ReduceKind::SUM, magnitudes, dims);
  if (p == 2) {
    Value squares = b.create<prim::MulOp>(magnitudes, magnitudes);
    Value sum = b.reduce(prim::ReduceKind::SUM, squares, dims);
    return b.create<prim::SqrtOp>(sum);
  }
  Value exponent = b.splat(p, type, magnitudes);
  Value powered = b.create<prim::PowOp>(magnitudes, exponent);
  Value sum = b.reduce(prim::ReduceKind::SUM, powered, dims);
  Value root = b.splat(1.0 / p, tensorType(sum), sum);
  return b.create<prim::PowOp>(sum, root);
}

namespace {

/// linalg_vector_norm(self, ord, dim, keepdim, dtype): the ord-norm over `dim` (None or
/// [] means every dim) of self converted to `dtype` (the result's dtype).
Value vectorNorm(aten::LinalgVectorNormOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  if (!isa<FloatType>(type.getElementType()))
    return b.fail("vector norm of a non-float dtype");
  double ord = scalarValue(op.getOrdAttr(), 2.0);
  if (std::isnan(ord))
    return b.fail("vector norm of order NaN");
  Value x = b.convert(op.getSelf(), accumulationType(type.getElementType()));
  if (b.failed())
    return {};
  int64_t rank = tensorType(x).getRank();
  SmallVector<int64_t> dims;
  std::optional<ArrayRef<int64_t>> listed = op.getDim();
  if (listed && !listed->empty() && rank > 0) {
    for (int64_t d : *listed)
      dims.push_back(normalizeDim(d, rank));
    llvm::sort(dims);
  } else {
    dims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  Value magnitudes = b.create<prim::AbsOp>(x);
  Value norm = pNorm(b, magnitudes, ord, dims);
  Value rounded = b.convert(norm, type.getElementType());
  return b.reshape(rounded, type);
}

/// _weight_norm_interface(v, g, dim) -> (v * (g / norms), norms), norms the 2-norms of
/// v over every dim but `dim`, in g's shape (size 1 elsewhere). The product is taken
/// in ATen's order: the factor g / norm first, then v times it.
SmallVector<Value> weightNorm(aten::InternalWeightNormInterfaceOp op, PrimBuilder &b) {
  RankedTensorType vType = tensorType(op.getV()), normType = b.resultType(1);
  int64_t rank = vType.getRank();
  int64_t dim = op.getDimAttr() ? op.getDimAttr().getInt() : 0;
  if (dim < 0 || dim >= rank || !vType.hasStaticShape())
    return {b.fail("weight norm needs a statically sized v and 0 <= dim < rank")};
  Type acc = accumulationType(vType.getElementType());
  Value v = b.convert(op.getV(), acc);
  if (b.failed())
    return {Value()};
  SmallVector<int64_t> others;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      others.push_back(d);
  Value magnitudes = b.create<prim::AbsOp>(v);
  Value norms = pNorm(b, magnitudes, 2.0, others); // [v.size(dim)]
  Value g = b.convert(op.getG(), acc);
  RankedTensorType gAcc = tensorType(g);
  if (gAcc.getNumElements() != vType.getDimSize(dim))
    return {b.fail("weight norm's g has not one element per slice of v")};
  Value normsLikeG = b.reshape(norms, gAcc);
  Value factor = b.create<prim::DivOp>(g, normsLikeG);
  Value perSlice = b.reshape(factor, RankedTensorType::get({vType.getDimSize(dim)}, acc));
  Value factorOverV = b.broadcastInDim(perSlice, vType.clone(acc), {dim});
  Value w = b.create<prim::MulOp>(v, factorOverV);
  Value wOut = b.convert(w, vType.getElementType());
  Value normsShaped = b.reshape(norms, normType.clone(acc));
  Value normsOut = b.convert(normsShaped, normType.getElementType());
  return {wOut, normsOut};
}

} // namespace

void populateNormDecompositions(DecompositionSet &set) {
  set.add<aten::LinalgVectorNormOp>(vectorNorm)
      .add<aten::InternalWeightNormInterfaceOp>(weightNorm);
}

} // namespace pt2c::decompose
