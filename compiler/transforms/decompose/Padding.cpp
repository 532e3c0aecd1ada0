// constant_pad_nd -> prim.pad. `pad` lists (before, after) pairs starting from the
// last dim; negative entries (cropping) are not supported yet.
#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

Value constantPadNd(aten::ConstantPadNdOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  int64_t rank = type.getRank();
  ArrayRef<int64_t> pad = op.getPad();
  if (pad.size() % 2 != 0 || (int64_t)pad.size() / 2 > rank)
    return b.fail("pad needs (before, after) pairs for at most every dim");
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    if (pad[2 * i] < 0 || pad[2 * i + 1] < 0)
      return b.fail("negative padding (cropping) is not supported yet");
    low[rank - 1 - i] = pad[2 * i];
    high[rank - 1 - i] = pad[2 * i + 1];
  }
  Value x = b.convert(op.getSelf(), type.getElementType());
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  TypedAttr fill = op.getValueAttr() ? b.scalarAttr(op.getValueAttr(), type.getElementType())
                                     : b.scalarAttr(0.0, type.getElementType());
  Value value = b.splat(fill, scalarType);
  return b.create<prim::PadOp>(x, value, low, high);
}

} // namespace

void populatePaddingDecompositions(DecompositionSet &set) {
  set.add<aten::ConstantPadNdOp>(constantPadNd);
}

} // namespace pt2c::decompose
