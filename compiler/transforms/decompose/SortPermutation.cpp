// topk and sort as a sorting permutation: prim.argsort orders each row along the last
// dim in O(n log n) (its lowering sorts in loops, lower/Sort.cpp), and gathers take
// the first k positions and their values. TopK.cpp's unrolled selection and rank table
// stay the form for static dims of moderate size, since they are plain prim that fuses
// and runs on every target; this one serves a dim of run-time size (a data-dependent
// selection's count, a dynamic dimension of model.py) and a dim too long for the rank
// table, on the CPU.
#include "compiler/transforms/decompose/SortPermutation.h"

#include "ir/contract/ModelContract.h"
#include "ir/prim/SortOps.h"

using namespace mlir;

namespace pt2c::decompose {

namespace {

/// `value`'s dims with `dim` moved last (the order prim.argsort sorts along), and the
/// permutation that moves it back.
SmallVector<int64_t> dimLast(int64_t rank, int64_t dim) {
  SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  order.erase(order.begin() + dim);
  order.push_back(dim);
  return order;
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> back(permutation.size());
  for (auto [i, p] : llvm::enumerate(permutation))
    back[p] = i;
  return back;
}

/// The first `count` positions of each row of `permutation` (sorted along the last dim).
Value firstOf(PrimBuilder &b, Value permutation, OpFoldResult count) {
  RankedTensorType type = tensorType(permutation);
  int64_t last = type.getRank() - 1;
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < last; ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(b.create<prim::DimSizeOp>(permutation, d));
  if (auto k = dyn_cast<Attribute>(count)) {
    shape[last] = cast<IntegerAttr>(k).getInt();
  } else {
    shape[last] = ShapedType::kDynamic;
    sizes.push_back(cast<Value>(count));
  }
  Value positions = b.create<prim::IotaOp>(type.clone(shape), last, sizes);
  return b.create<prim::GatherOp>(permutation, positions, last, last);
}

} // namespace

SmallVector<Value> sortByPermutation(PrimBuilder &b, Value x, int64_t dim, bool largest,
                                     OpFoldResult count) {
  RankedTensorType type = tensorType(x);
  if (!isa<FloatType>(type.getElementType()) && !type.getElementType().isSignlessInteger())
    return {b.fail("topk/sort along a dynamic or long dim sorts floats, bools and signed "
                   "integers only (not uint8)")};
  int64_t rank = type.getRank(), last = rank - 1;
  SmallVector<int64_t> toLast = dimLast(rank, dim);
  Value rows = dim == last ? x : b.transpose(x, toLast);
  if (b.failed())
    return {Value()};
  auto indexType = tensorType(rows).clone(IntegerType::get(type.getContext(), 64));
  Value order = b.create<prim::ArgsortOp>(indexType, rows, largest);
  // The GPU lowerings have no sorting loop.
  if (order && inFusedOpsModule(order.getDefiningOp()))
    return {b.fail("topk/sort along a dynamic dim, or too long to compare every pair, "
                   "compiles for --target cpu only so far")};
  if (count)
    order = firstOf(b, order, count);
  Value values = b.create<prim::GatherOp>(rows, order, last, last);
  if (dim == last || b.failed())
    return {values, order};
  SmallVector<int64_t> back = inverse(toLast);
  return {b.transpose(values, back), b.transpose(order, back)};
}

} // namespace pt2c::decompose
