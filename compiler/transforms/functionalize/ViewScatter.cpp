// Writing a view's new value back into the tensor it views, for each kind of aten view:
// views that cover the whole tensor (reshapes, transposes, aliases) invert exactly;
// views that pick a range along one dim (slice, select, split and unbind pieces)
// become the parent's elements before the range, the new piece and the elements after
// it, concatenated; strided slices and diagonals (a strided slice of the flattened
// matrix) write through decompose/Scatter.h's replaceStrided.
#include "compiler/transforms/functionalize/ViewScatter.h"

#include "compiler/transforms/decompose/Scatter.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace pt2c::functionalize {
namespace {

using decompose::PrimBuilder;
using decompose::tensorType;

int64_t intAttr(Operation *op, StringRef name, int64_t otherwise) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return otherwise;
}

/// Elements [start, limit) of dim `dim` of `value`, the other dims whole.
Value sliceDim(PrimBuilder &b, Value value, int64_t dim, int64_t start, int64_t limit) {
  RankedTensorType type = tensorType(value);
  SmallVector<int64_t> starts(type.getRank(), 0), limits(type.getShape()),
      strides(type.getRank(), 1);
  starts[dim] = start, limits[dim] = limit;
  return b.create<prim::SliceOp>(value, starts, limits, strides);
}

/// replaceRange where dims other than `dim` are dynamic (boxes[:, 0] = x of [n, 4]
/// boxes, n a data-dependent count), which prim.slice cannot cut: the piece spread
/// over the whole dim by a gather of constant positions, then a select of the range.
Value replaceRangeOfDynamic(PrimBuilder &b, Value parent, int64_t dim, int64_t start, int64_t end,
                            Value piece) {
  RankedTensorType type = tensorType(parent);
  int64_t size = type.getDimSize(dim);
  SmallVector<int64_t> from;
  SmallVector<bool> inRange;
  for (int64_t j = 0; j < size; ++j)
    from.push_back(std::clamp<int64_t>(j - start, 0, end - start - 1)),
        inRange.push_back(j >= start && j < end);
  MLIRContext *context = type.getContext();
  auto positions = RankedTensorType::get({size}, IntegerType::get(context, 64));
  Value spread = b.create<prim::GatherOp>(
      piece, b.create<prim::ConstantOp>(DenseElementsAttr::get(positions, ArrayRef(from))), dim, 0);
  auto flags = RankedTensorType::get({size}, IntegerType::get(context, 1));
  Value range = b.create<prim::ConstantOp>(DenseElementsAttr::get(flags, ArrayRef(inRange)));
  Value where = b.broadcastInDim(range, type.clone(flags.getElementType()), {dim}, parent);
  return b.create<prim::SelectOp>(where, spread, parent);
}

/// `parent` with elements [start, start + piece's size) of dim `dim` replaced by `piece`
/// (which has parent's sizes elsewhere).
Value replaceRange(PrimBuilder &b, Value parent, int64_t dim, int64_t start, Value piece) {
  RankedTensorType type = tensorType(parent);
  if (type.isDynamicDim(dim) || tensorType(piece).isDynamicDim(dim))
    return b.fail("writing through a view of a tensor with dynamic sizes");
  int64_t size = type.getDimSize(dim), end = start + tensorType(piece).getDimSize(dim);
  if (start < 0 || end > size)
    return b.fail("the written view lies outside the tensor it views");
  if (!type.hasStaticShape()) {
    if (start == end) // nothing written
      return parent;
    return start == 0 && end == size ? piece
                                     : replaceRangeOfDynamic(b, parent, dim, start, end, piece);
  }
  SmallVector<Value> parts;
  if (start > 0)
    parts.push_back(sliceDim(b, parent, dim, 0, start));
  parts.push_back(piece);
  if (end < size)
    parts.push_back(sliceDim(b, parent, dim, end, size));
  if (parts.size() == 1)
    return piece;
  return b.create<prim::ConcatenateOp>(parts, dim);
}

/// `updated` (the view without dim `dim`) reshaped to have it back, with size 1.
Value withUnitDim(PrimBuilder &b, Value updated, int64_t dim) {
  RankedTensorType type = tensorType(updated);
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + dim, 1);
  return b.reshape(updated, RankedTensorType::get(shape, type.getElementType()));
}

/// The permutation a transposing view applied (result dim i = parent dim perm[i]).
SmallVector<int64_t> permutationOf(Operation *view, int64_t rank) {
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  StringRef name = view->getName().getStringRef();
  if (name == "aten.t" && rank == 2) {
    std::swap(perm[0], perm[1]);
  } else if (name == "aten.transpose.int" && rank > 0) {
    std::swap(perm[decompose::normalizeDim(intAttr(view, "dim0", 0), rank)],
              perm[decompose::normalizeDim(intAttr(view, "dim1", 0), rank)]);
  } else if (name == "aten.permute") {
    auto dims = view->getAttrOfType<DenseI64ArrayAttr>("dims");
    for (auto [i, d] : llvm::enumerate(dims.asArrayRef()))
      perm[i] = decompose::normalizeDim(d, rank);
  }
  return perm;
}

/// `parent` with the diagonal that diagonal(parent, offset, dim1, dim2) shows replaced
/// by `updated`: the inverse of the strided slice of the flattened matrix that
/// decompose/ScatterWrites.cpp reads it as.
Value scatterIntoDiagonal(PrimBuilder &b, Operation *view, Value parent, Value updated) {
  RankedTensorType parentType = tensorType(parent);
  if (!parentType.hasStaticShape())
    return b.fail("writing through a diagonal of a tensor with dynamic sizes");
  std::optional<decompose::DiagonalLayout> layout =
      decompose::diagonalLayout(b, parentType, intAttr(view, "offset", 0), intAttr(view, "dim1", 0),
                                intAttr(view, "dim2", 1));
  if (!layout)
    return {};
  Value flat = decompose::diagonalFlattened(b, parent, *layout);
  if (b.failed())
    return {};
  int64_t last = tensorType(flat).getRank() - 1;
  Value written = layout->length == 0 ? flat
                                      : decompose::replaceStrided(b, flat, last, layout->start,
                                                                  layout->step, updated);
  SmallVector<int64_t> movedShape;
  for (int64_t d : layout->permutation)
    movedShape.push_back(parentType.getDimSize(d));
  Value moved = b.reshape(written, parentType.clone(movedShape));
  SmallVector<int64_t> back(parentType.getRank());
  for (auto [i, d] : llvm::enumerate(layout->permutation))
    back[d] = i;
  return b.transpose(moved, back);
}

} // namespace

bool isViewOp(Operation *op) {
  static const llvm::StringSet<> views = {
#include "compiler/transforms/functionalize/AtenViewOps.inc"
  };
  StringRef name = op->getName().getStringRef();
  return name != "aten.lift_fresh" && views.contains(name);
}

Value scatterIntoParent(PrimBuilder &b, Operation *view, unsigned result, Value parent,
                        Value updated) {
  static const llvm::StringSet<> sameElements = {"aten.alias", "aten.detach", "aten.contiguous"};
  static const llvm::StringSet<> reshapes = {
      "aten.view",          "aten.reshape",     "aten._unsafe_view", "aten.unsqueeze",
      "aten.squeeze",       "aten.squeeze.dim", "aten.squeeze.dims", "aten.flatten.using_ints",
      "aten.unflatten.int", "aten.view_as"};
  static const llvm::StringSet<> transposes = {"aten.t", "aten.transpose.int", "aten.permute"};
  StringRef name = view->getName().getStringRef();
  RankedTensorType parentType = tensorType(parent);
  int64_t rank = parentType.getRank();

  if (sameElements.contains(name) || (name == "aten.expand" && tensorType(updated) == parentType))
    return updated;
  // An expand that only adds dims of size 1 shows each element once: a reshape.
  // (Eager refuses in-place writes into any other expand, so traces never hold them.)
  if (name == "aten.expand" && parentType.hasStaticShape() &&
      tensorType(updated).hasStaticShape() &&
      parentType.getNumElements() == tensorType(updated).getNumElements())
    return b.reshape(updated, parentType);
  if (name == "aten.diagonal")
    return scatterIntoDiagonal(b, view, parent, updated);
  if (reshapes.contains(name))
    return b.reshape(updated, parentType);
  if (transposes.contains(name)) {
    SmallVector<int64_t> perm = permutationOf(view, rank), inverse(rank);
    for (int64_t i = 0; i < rank; ++i)
      inverse[perm[i]] = i;
    return b.transpose(updated, inverse);
  }
  int64_t dim = decompose::normalizeDim(intAttr(view, "dim", 0), rank);
  if (rank == 0 || dim >= rank)
    return b.fail("a view along a dim the tensor does not have");
  int64_t size = parentType.getDimSize(dim);
  // slice_scatter and select_scatter (decompose/ScatterWrites.cpp) are these writes as
  // ops, with the view's arguments.
  if (name == "aten.slice.Tensor" || name == "aten.slice_scatter") {
    int64_t start = intAttr(view, "start", 0);
    if (start < 0)
      start += size;
    start = std::min(std::max<int64_t>(start, 0), size);
    int64_t step = intAttr(view, "step", 1);
    if (step != 1 && tensorType(updated).getDimSize(dim) != 1)
      return decompose::replaceStrided(b, parent, dim, start, step, updated);
    return replaceRange(b, parent, dim, start, updated);
  }
  if (name == "aten.select.int" || name == "aten.select_scatter") {
    int64_t index = intAttr(view, "index", 0);
    return replaceRange(b, parent, dim, index < 0 ? index + size : index,
                        withUnitDim(b, updated, dim));
  }
  if (name == "aten.split.Tensor" || name == "aten.split_with_sizes") {
    int64_t start = 0;
    for (unsigned i = 0; i < result; ++i)
      start += tensorType(view->getResult(i)).getDimSize(dim);
    return replaceRange(b, parent, dim, start, updated);
  }
  if (name == "aten.unbind.int")
    return replaceRange(b, parent, dim, result, withUnitDim(b, updated, dim));
  return b.fail("writing through " + name + " (a view) is not supported");
}

} // namespace pt2c::functionalize
