// Decompositions of view, layout and copy ops. Under value semantics a view is just
// its value: views and copies become reshapes, transposes and broadcasts, and ops that
// only concern memory (contiguous, clone, alias, detach) disappear; flip gathers each
// flipped dim backwards.
#include <algorithm>

#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// Ops whose value is their operand's.
template <typename OpT> Value identity(OpT op, PrimBuilder &) { return op.getSelf(); }

/// Ops whose result is the operand's elements in row-major order, reshaped.
template <typename OpT> Value reshapeToResult(OpT op, PrimBuilder &b) {
  b.sizesFollowResultType("size");
  b.sizesFollowResultType("shape");
  // _reshape_alias (torch 1.13's view-compatible reshape): its strides are the view's
  // layout, which value semantics does not need.
  b.sizesFollowResultType("stride");
  return b.reshape(op.getSelf(), b.resultType());
}

int64_t normalizeDim(IntegerAttr dim, int64_t rank) {
  return dim.getInt() < 0 ? dim.getInt() + rank : dim.getInt();
}

/// flip: each listed dim gathered at n - 1, ..., 0.
Value flip(aten::FlipOp op, PrimBuilder &b) {
  Value x = op.getSelf();
  RankedTensorType type = tensorType(x);
  SmallVector<int64_t> dims;
  for (int64_t d : op.getDims())
    dims.push_back(decompose::normalizeDim(d, type.getRank()));
  llvm::sort(dims);
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  for (int64_t d : dims) {
    if (type.getRank() == 0)
      break;
    if (type.isDynamicDim(d))
      return b.fail("flip of a dynamic dim");
    SmallVector<int64_t> reversed;
    for (int64_t i = type.getDimSize(d) - 1; i >= 0; --i)
      reversed.push_back(i);
    x = b.gatherAt(x, d, reversed);
  }
  return x;
}

/// copy(self, src): src's values in self's dtype and shape (the functional form of
/// copy_, as pt2c-functionalize rewrites copy_).
Value copy(aten::CopyOp op, PrimBuilder &b) {
  return b.elementwiseOperand(op.getSrc(), b.resultType());
}

Value t(aten::TOp op, PrimBuilder &b) {
  if (tensorType(op.getSelf()).getRank() < 2)
    return op.getSelf();
  return b.transpose(op.getSelf(), {1, 0});
}

Value transposeInt(aten::TransposeIntOp op, PrimBuilder &b) {
  int64_t rank = tensorType(op.getSelf()).getRank();
  SmallVector<int64_t> permutation = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (rank > 0)
    std::swap(permutation[normalizeDim(op.getDim0Attr(), rank)],
              permutation[normalizeDim(op.getDim1Attr(), rank)]);
  return b.transpose(op.getSelf(), permutation);
}

Value permute(aten::PermuteOp op, PrimBuilder &b) {
  int64_t rank = tensorType(op.getSelf()).getRank();
  SmallVector<int64_t> permutation;
  for (int64_t d : op.getDims())
    permutation.push_back(d < 0 ? d + rank : d);
  return b.transpose(op.getSelf(), permutation);
}

Value expand(aten::ExpandOp op, PrimBuilder &b) {
  b.sizesFollowResultType("size");
  return b.broadcastTo(op.getSelf(), b.resultType());
}

Value toCopy(aten::InternalToCopyOp op, PrimBuilder &b) {
  return b.convert(op.getSelf(), b.resultElementType());
}

/// Tensor.repeat: the operand (padded with leading 1-dims to the repeats' length)
/// broadcast to [r0, s0, r1, s1, ...], then each (r_i, s_i) pair merged into one dim:
/// copy i along a dim comes before copy i + 1, as ATen tiles.
Value repeat(aten::RepeatOp op, PrimBuilder &b) {
  RankedTensorType in = tensorType(op.getSelf());
  ArrayRef<int64_t> repeats = op.getRepeats();
  int64_t lead = (int64_t)repeats.size() - in.getRank();
  if (lead < 0)
    return b.fail("repeat has fewer repeats than the tensor has dims");
  SmallVector<int64_t> tiled, dims;
  SmallVector<Value> sizes; // the operand's dynamic sizes, which the tiles keep
  for (int64_t i = 0; i < (int64_t)repeats.size(); ++i) {
    tiled.push_back(repeats[i]);
    tiled.push_back(i < lead ? 1 : in.getDimSize(i - lead));
    if (i >= lead)
      dims.push_back(2 * i + 1);
    if (i >= lead && in.isDynamicDim(i - lead))
      sizes.push_back(b.create<prim::DimSizeOp>(op.getSelf(), i - lead));
  }
  auto tiledType = RankedTensorType::get(tiled, in.getElementType());
  Value broadcast = b.create<prim::BroadcastInDimOp>(tiledType, op.getSelf(), dims, sizes);
  return b.reshape(broadcast, b.resultType());
}

} // namespace

void populateShapeDecompositions(DecompositionSet &set) {
  set.add<aten::TOp>(t)
      .add<aten::TransposeIntOp>(transposeInt)
      .add<aten::PermuteOp>(permute)
      .add<aten::ExpandOp>(expand)
      .add<aten::InternalToCopyOp>(toCopy)
      .add<aten::RepeatOp>(repeat)
      .add<aten::FlipOp>(flip)
      .add<aten::CopyOp>(copy);
  set.add<aten::ViewOp>(reshapeToResult<aten::ViewOp>)
      .add<aten::ReshapeOp>(reshapeToResult<aten::ReshapeOp>)
      .add<aten::InternalUnsafeViewOp>(reshapeToResult<aten::InternalUnsafeViewOp>)
      .add<aten::InternalReshapeAliasOp>(reshapeToResult<aten::InternalReshapeAliasOp>)
      .add<aten::UnsqueezeOp>(reshapeToResult<aten::UnsqueezeOp>)
      .add<aten::SqueezeDimOp>(reshapeToResult<aten::SqueezeDimOp>);
  set.add<aten::CloneOp>(identity<aten::CloneOp>)
      .add<aten::ContiguousOp>(identity<aten::ContiguousOp>)
      .add<aten::DetachOp>(identity<aten::DetachOp>)
      .add<aten::AliasOp>(identity<aten::AliasOp>);
}

} // namespace pt2c::decompose
