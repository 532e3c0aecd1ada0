// constant_pad_nd -> prim.pad. `pad` lists (before, after) pairs starting from the
// last dim; negative entries (cropping) are not supported yet.
// reflection_pad{1,2,3}d and replication_pad{2,3}d (same pairs, in `padding`) -> one
// prim.gather per padded dim at constant source positions: output o reads input
// o - before, mirrored at the edges without repeating the edge (reflection: -1 -> 1,
// n -> n - 2) or clamped to them (replication).
#include <algorithm>

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

/// The source position of output `o` of a dim of size n padded with `before` in front.
int64_t reflected(int64_t o, int64_t before, int64_t n) {
  int64_t i = o - before;
  if (i < 0)
    i = -i;
  if (i >= n)
    i = 2 * (n - 1) - i;
  return i;
}
int64_t replicated(int64_t o, int64_t before, int64_t n) {
  return std::clamp<int64_t>(o - before, 0, n - 1);
}

template <typename OpT, bool Reflect> Value gatherPad(OpT op, PrimBuilder &b) {
  Value x = op.getSelf();
  RankedTensorType in = tensorType(x);
  ArrayRef<int64_t> padding = op.getPadding();
  int64_t rank = in.getRank();
  if ((int64_t)padding.size() / 2 > rank)
    return b.fail("more padded dims than the tensor has");
  for (size_t i = 0; i < padding.size() / 2; ++i) {
    int64_t dim = rank - 1 - i, before = padding[2 * i], after = padding[2 * i + 1];
    if (before == 0 && after == 0)
      continue;
    int64_t n = in.getDimSize(dim);
    if (in.isDynamicDim(dim))
      return b.fail("reflection/replication padding of a dynamic dim");
    if (before < 0 || after < 0)
      return b.fail("negative padding (cropping) is not supported yet");
    if (Reflect && (before >= n || after >= n))
      return b.fail("reflection padding must be smaller than the dim");
    SmallVector<int64_t> sources;
    for (int64_t o = 0; o < n + before + after; ++o)
      sources.push_back(Reflect ? reflected(o, before, n) : replicated(o, before, n));
    x = b.gatherAt(x, dim, sources);
  }
  return x;
}

} // namespace

void populatePaddingDecompositions(DecompositionSet &set) {
  set.add<aten::ConstantPadNdOp>(constantPadNd)
      .add<aten::ReflectionPad1dOp>(gatherPad<aten::ReflectionPad1dOp, true>)
      .add<aten::ReflectionPad2dOp>(gatherPad<aten::ReflectionPad2dOp, true>)
      .add<aten::ReflectionPad3dOp>(gatherPad<aten::ReflectionPad3dOp, true>)
      .add<aten::ReplicationPad2dOp>(gatherPad<aten::ReplicationPad2dOp, false>)
      .add<aten::ReplicationPad3dOp>(gatherPad<aten::ReplicationPad3dOp, false>);
}

} // namespace pt2c::decompose
