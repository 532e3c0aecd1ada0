// masked_scatter(self, mask, source): the elements of self where the mask (broadcast to
// self) holds take source's elements in order, the i-th true position (row-major) the
// i-th element of the flattened source; the rest keep self. (transformers' multimodal
// models put image features into the token embeddings this way.) Where each true
// position reads from is the inclusive prefix count of the flattened mask minus one,
// a scan in log2(n) shifted adds, then one gather and a select.
#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// The inclusive prefix sum of the 1-D static `x`: Hillis and Steele's scan, each step
/// adding x shifted by 1, 2, 4, ... (zeros shifted in).
Value prefixSum(PrimBuilder &b, Value x) {
  auto type = tensorType(x);
  int64_t n = type.getDimSize(0);
  Value zero = b.splat(0.0, RankedTensorType::get({}, type.getElementType()));
  for (int64_t shift = 1; shift < n; shift *= 2) {
    Value padded = b.create<prim::PadOp>(x, zero, ArrayRef<int64_t>{shift}, ArrayRef<int64_t>{0});
    Value shifted = b.create<prim::SliceOp>(padded, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{n},
                                            ArrayRef<int64_t>{1});
    x = b.create<prim::AddOp>(x, shifted);
  }
  return x;
}

Value maskedScatter(aten::MaskedScatterOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  RankedTensorType sourceType = tensorType(op.getSource());
  if (!type.hasStaticShape() || !sourceType.hasStaticShape() ||
      !tensorType(op.getMask()).hasStaticShape())
    return b.fail("masked_scatter of dynamic sizes is not supported yet");
  int64_t n = type.getNumElements(), available = sourceType.getNumElements();
  auto i1 = IntegerType::get(type.getContext(), 1), i64 = IntegerType::get(type.getContext(), 64);
  Value mask = b.broadcastTo(b.convert(op.getMask(), i1), type.clone(i1));
  if (n == 0 || available == 0)
    return b.convert(op.getSelf(), type.getElementType());
  Value flatMask = b.reshape(mask, RankedTensorType::get({n}, i1));
  Value counts = prefixSum(b, b.convert(flatMask, i64));
  // Position p reads source element counts[p] - 1 (clamped into range by the gather
  // where the mask is false, or where the model gave fewer elements than it selects,
  // which eager rejects).
  Value from = b.create<prim::SubOp>(counts, b.splat(1.0, tensorType(counts)));
  Value source = b.reshape(b.convert(op.getSource(), type.getElementType()),
                           RankedTensorType::get({available}, type.getElementType()));
  Value taken = b.create<prim::GatherOp>(source, from, 0, 0);
  Value placed = b.reshape(taken, type);
  return b.create<prim::SelectOp>(mask, placed, b.convert(op.getSelf(), type.getElementType()));
}

} // namespace

void populateMaskedScatterDecompositions(DecompositionSet &set) {
  set.add<aten::MaskedScatterOp>(maskedScatter);
}

} // namespace pt2c::decompose
