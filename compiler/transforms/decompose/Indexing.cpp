// Decompositions of indexing and of the views that pick parts of a tensor: embedding,
// index_select and gather become prim.gather; slice, select, split and unbind become
// prim.slice (under value semantics a view is just the values it shows); cat, stack
// and roll become prim.concatenate (roll: of two slices).
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/Scatter.h"
#include "ir/contract/ModelContract.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// Elements [start, limit) of dim `dim` of `value`, every `stride`-th; the other dims
/// whole.
Value sliceDim(PrimBuilder &b, Value value, int64_t dim, int64_t start, int64_t limit,
               int64_t stride = 1) {
  if (b.failed())
    return {};
  RankedTensorType type = tensorType(value);
  if (!type.hasStaticShape()) {
    // prim.slice has static bounds: with other dims dynamic, gather the static
    // positions along `dim` instead (split along features of a [batch, seq, C] tensor).
    if (type.isDynamicDim(dim))
      return b.fail("slicing a dynamic dim at fixed bounds");
    SmallVector<int64_t> positions;
    for (int64_t i = start; i < limit; i += stride)
      positions.push_back(i);
    auto positionsType = RankedTensorType::get({(int64_t)positions.size()},
                                               IntegerType::get(value.getContext(), 64));
    Value constant = b.create<prim::ConstantOp>(
        DenseElementsAttr::get(positionsType, ArrayRef<int64_t>(positions)));
    return b.create<prim::GatherOp>(value, constant, dim, 0);
  }
  SmallVector<int64_t> starts(type.getRank(), 0), limits(type.getShape()),
      strides(type.getRank(), 1);
  starts[dim] = start, limits[dim] = limit, strides[dim] = stride;
  return b.create<prim::SliceOp>(value, starts, limits, strides);
}

/// embedding(weight[V, D], indices) = weight rows at indices: indices.shape ++ [D].
Value embedding(aten::EmbeddingOp op, PrimBuilder &b) {
  return b.create<prim::GatherOp>(op.getWeight(), op.getIndices(), 0, 0);
}

/// index_select(self, dim, index[N]): a 0-D index still keeps the dim (size 1).
Value indexSelect(aten::IndexSelectOp op, PrimBuilder &b) {
  int64_t dim = normalizeDim(op.getDimAttr().getInt(), tensorType(op.getSelf()).getRank());
  Value gathered = b.create<prim::GatherOp>(op.getSelf(), op.getIndex(), dim, 0);
  return b.reshape(gathered, b.resultType());
}

} // namespace

Value flatIndexPosition(PrimBuilder &b, Value self, ValueRange indices,
                        ArrayRef<int64_t> indexShape, ValueRange indexSizes) {
  RankedTensorType selfType = tensorType(self);
  int64_t k = indices.size();
  ArrayRef<int64_t> indexed = selfType.getShape().take_front(k);
  Type i64 = IntegerType::get(b.loc().getContext(), 64);
  auto positionType = RankedTensorType::get(indexShape, i64);
  // A tensor of positionType's shape: broadcast with the index shape's dynamic sizes.
  auto spread = [&](Value v) -> Value {
    RankedTensorType t = tensorType(v);
    if (b.failed() || t.getShape() == positionType.getShape())
      return v;
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < t.getRank(); ++d)
      dims.push_back(positionType.getRank() - t.getRank() + d);
    return b.create<prim::BroadcastInDimOp>(positionType, v, dims, indexSizes);
  };
  // The size of dim j as an i64 tensor: a constant, or (dynamic) the sum of that many
  // ones, since prim has no index -> tensor conversion.
  auto sizeOf = [&](int64_t j) -> Value {
    if (!ShapedType::isDynamic(indexed[j]))
      return spread(b.splat((double)indexed[j], RankedTensorType::get({}, i64)));
    Value n = b.create<prim::DimSizeOp>(self, j);
    Value one = b.splat(1.0, RankedTensorType::get({}, i64));
    Value ones =
        b.create<prim::BroadcastInDimOp>(RankedTensorType::get({ShapedType::kDynamic}, i64), one,
                                         ArrayRef<int64_t>{}, ValueRange{n});
    return spread(b.reduce(prim::ReduceKind::SUM, ones, {0}));
  };
  Value position, stride; // stride: an i64 tensor of positionType (null: 1)
  for (int64_t j = k - 1; j >= 0; --j) {
    Value index = indices[j];
    if (tensorType(index).getElementType().isInteger(1))
      return b.fail("indexing with a bool mask (its result size depends on the data)");
    index = spread(b.convert(index, i64));
    Value size = sizeOf(j);
    Value zero = b.splat(0.0, positionType, index);
    Value negative = b.create<prim::CompareOp>(prim::CompareDirection::LT, index, zero);
    Value wrapped = b.create<prim::AddOp>(index, size);
    index = b.create<prim::SelectOp>(negative, wrapped, index);
    if (stride)
      index = b.create<prim::MulOp>(index, stride);
    position = position ? b.create<prim::AddOp>(position, index) : index;
    stride = stride ? b.create<prim::MulOp>(stride, size) : size;
  }
  return position;
}

namespace {

/// self[i_0, ..., i_{k-1}] with k integer index tensors on self's first k dims: their
/// flat position (flatIndexPosition) gathers from self reshaped to
/// [size_0 * ... * size_{k-1}, rest...]. The result is indexShape ++ rest.
Value gatherAtIndices(PrimBuilder &b, Value self, ValueRange indices, ArrayRef<int64_t> indexShape,
                      ValueRange indexSizes) {
  RankedTensorType selfType = tensorType(self);
  int64_t k = indices.size();
  ArrayRef<int64_t> indexed = selfType.getShape().take_front(k);
  Value position = flatIndexPosition(b, self, indices, indexShape, indexSizes);
  bool dynamicFlat = false;
  int64_t staticStride = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    dynamicFlat |= ShapedType::isDynamic(indexed[j]);
    if (!dynamicFlat)
      staticStride *= indexed[j];
  }
  // self as [size_0 * ... * size_{k-1}, rest...]
  SmallVector<int64_t> flatShape = {dynamicFlat ? ShapedType::kDynamic : staticStride};
  llvm::append_range(flatShape, selfType.getShape().drop_front(k));
  SmallVector<Value> flatSizes;
  if (dynamicFlat) {
    Value count = b.create<prim::DimSizeOp>(self, 0);
    for (int64_t j = 1; j < k && !b.failed(); ++j) {
      Value next = b.create<prim::DimSizeOp>(self, j);
      count = b.failed() ? Value() : b.create<arith::MulIOp>(count, next);
    }
    flatSizes.push_back(count);
  }
  for (int64_t d = k; d < selfType.getRank(); ++d)
    if (selfType.isDynamicDim(d))
      flatSizes.push_back(b.create<prim::DimSizeOp>(self, d));
  Value flat =
      b.failed() ? Value() : b.create<prim::ReshapeOp>(selfType.clone(flatShape), self, flatSizes);
  return b.create<prim::GatherOp>(flat, position, 0, 0);
}

/// self[indices] (advanced indexing). Index tensors on dims other than the first k
/// (x[:, idx]: the importer leaves the Nones out and lists the indexed dims in
/// pt2c.present_indices) are moved first by a transpose. As in NumPy, the broadcast
/// index dims then replace the indexed dims where those are adjacent, and lead the
/// result where a slice separates them.
Value indexTensor(aten::IndexTensorOp op, PrimBuilder &b) {
  Value self = op.getSelf();
  RankedTensorType selfType = tensorType(self), type = b.resultType();
  int64_t k = op.getIndices().size(), rank = selfType.getRank();
  if (k == 0)
    return b.fail("index.Tensor without index tensors");
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, k));
  if (auto present = op->getAttrOfType<DenseI64ArrayAttr>(kPresentIndicesAttr))
    dims.assign(present.asArrayRef().begin(), present.asArrayRef().end());
  if ((int64_t)dims.size() != k || dims.back() >= rank)
    return b.fail(Twine(kPresentIndicesAttr) + " does not match the index tensors");
  bool adjacent = dims.back() - dims.front() == k - 1;
  int64_t first = adjacent ? dims.front() : 0; // where the index dims are in the result
  int64_t indexRank = type.getRank() - (rank - k);
  ArrayRef<int64_t> indexShape = type.getShape().slice(first, indexRank);
  // The broadcast index shape's dynamic sizes, as the trace recorded the result's.
  SmallVector<Value> indexSizes;
  for (int64_t d = 0; d < indexRank; ++d)
    if (ShapedType::isDynamic(indexShape[d]))
      indexSizes.push_back(b.tracedResultSize(0, first + d));

  SmallVector<int64_t> toFront(dims);
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      toFront.push_back(d);
  Value gathered =
      gatherAtIndices(b, b.transpose(self, toFront), op.getIndices(), indexShape, indexSizes);
  // [index dims, rest...] -> [rest[:first], index dims, rest[first:]]
  SmallVector<int64_t> back;
  for (int64_t d = 0; d < first; ++d)
    back.push_back(indexRank + d);
  for (int64_t d = 0; d < indexRank; ++d)
    back.push_back(d);
  for (int64_t d = indexRank + first; d < type.getRank(); ++d)
    back.push_back(d);
  return b.transpose(gathered, back);
}

/// torch.gather: out[p] = self[p with p[dim] replaced by index[p]]. The other dims of
/// index may be shorter than self's, so self is sliced to them; dim is moved last,
/// where it is TensorFlow's gather with every other dim a batch dim.
Value gatherAlongDim(aten::GatherOp op, PrimBuilder &b) {
  Value self = op.getSelf(), index = op.getIndex();
  RankedTensorType selfType = tensorType(self), indexType = tensorType(index);
  int64_t rank = selfType.getRank();
  if (rank == 0) { // one element: gather from it as a vector
    Value vector = b.reshape(self, selfType.clone({1}));
    return b.create<prim::GatherOp>(vector, index, 0, 0);
  }
  int64_t dim = normalizeDim(op.getDimAttr().getInt(), rank);
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && indexType.getDimSize(d) != selfType.getDimSize(d))
      self = sliceDim(b, self, d, 0, indexType.getDimSize(d));
  SmallVector<int64_t> toLast = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  toLast.erase(toLast.begin() + dim);
  toLast.push_back(dim);
  // One statement per created op: C++ leaves argument evaluation order unspecified.
  Value source = b.transpose(self, toLast);
  Value positions = b.transpose(index, toLast);
  Value gathered = b.create<prim::GatherOp>(source, positions, rank - 1, rank - 1);
  SmallVector<int64_t> back(rank);
  for (int64_t d = 0; d < rank; ++d)
    back[toLast[d]] = d;
  return b.transpose(gathered, back);
}

/// A slice whose bounds or dim follow dynamic dimensions (x[:, :seq], mask[:T, :T]):
/// a gather at start, start + step, ... with as many positions as the trace's result
/// has (its size expression), from a static non-negative start.
Value sliceByGather(aten::SliceTensorOp op, PrimBuilder &b, int64_t dim, bool symbolicStart) {
  int64_t start = op.getStartAttr() ? op.getStartAttr().getInt() : 0;
  int64_t step = op.getStepAttr() ? op.getStepAttr().getInt() : 1;
  if (symbolicStart || start < 0)
    return b.fail("a slice of a dynamic size must start at a fixed non-negative index");
  int64_t length = b.resultType().getDimSize(dim);
  auto i64 = IntegerType::get(op.getContext(), 64);
  auto positionsType = RankedTensorType::get({length}, i64);
  SmallVector<Value> sizes;
  if (ShapedType::isDynamic(length))
    sizes.push_back(b.tracedResultSize(0, dim));
  Value positions = b.create<prim::IotaOp>(positionsType, 0, sizes);
  if (step != 1)
    positions = b.create<prim::MulOp>(positions, b.splat((double)step, positionsType, positions));
  if (start != 0)
    positions = b.create<prim::AddOp>(positions, b.splat((double)start, positionsType, positions));
  return b.create<prim::GatherOp>(op.getSelf(), positions, dim, 0);
}

/// slice.Tensor: Python slicing self[start:end:step] along dim, with negative and
/// out-of-range bounds clamped as Python does.
Value sliceTensor(aten::SliceTensorOp op, PrimBuilder &b) {
  Value self = op.getSelf();
  int64_t rank = tensorType(self).getRank();
  int64_t dim = normalizeDim(op.getDimAttr() ? op.getDimAttr().getInt() : 0, rank);
  int64_t size = tensorType(self).getDimSize(dim);
  bool symbolicStart = b.symbolicIntExpr("start").has_value();
  bool symbolicEnd = b.symbolicIntExpr("end").has_value();
  if (ShapedType::isDynamic(size) || symbolicStart || symbolicEnd)
    return sliceByGather(op, b, dim, symbolicStart);
  auto clamp = [&](int64_t i) {
    if (i < 0)
      i += size;
    return std::min(std::max<int64_t>(i, 0), size);
  };
  int64_t start = clamp(op.getStartAttr() ? op.getStartAttr().getInt() : 0);
  int64_t end = clamp(op.getEndAttr() ? op.getEndAttr().getInt() : size);
  int64_t step = op.getStepAttr() ? op.getStepAttr().getInt() : 1;
  return sliceDim(b, self, dim, start, std::max(start, end), step);
}

/// select.int: the slice [index, index + 1) of dim, without that dim.
Value selectInt(aten::SelectIntOp op, PrimBuilder &b) {
  Value self = op.getSelf();
  int64_t dim = normalizeDim(op.getDimAttr().getInt(), tensorType(self).getRank());
  int64_t size = tensorType(self).getDimSize(dim);
  int64_t index = op.getIndexAttr().getInt();
  if (b.symbolicIntExpr("index"))
    return b.fail("select at an index that follows a dynamic dimension");
  if (ShapedType::isDynamic(size)) {
    // x[:, 0] of a dynamic dim: the first element exists at every size; another index
    // might not at the smaller sizes of the range, and gathering would clamp it.
    if (index != 0)
      return b.fail("select of a dynamic dim at an index other than 0");
    auto positionType = RankedTensorType::get({1}, IntegerType::get(op.getContext(), 64));
    Value position =
        b.create<prim::ConstantOp>(DenseElementsAttr::get(positionType, ArrayRef<int64_t>{0}));
    return b.reshape(b.create<prim::GatherOp>(self, position, dim, 0), b.resultType());
  }
  if (index < 0)
    index += size;
  if (index < 0 || index >= size)
    return b.fail("select index out of range");
  return b.reshape(sliceDim(b, self, dim, index, index + 1), b.resultType());
}

template <typename OpT> Value reshapeToResult(OpT op, PrimBuilder &b) {
  return b.reshape(op.getSelf(), b.resultType());
}

/// The consecutive pieces of `self` along `dim` with the given sizes (split,
/// split_with_sizes, unbind), each reshaped to the op's result type.
SmallVector<Value> pieces(PrimBuilder &b, Value self, int64_t dim, ArrayRef<int64_t> sizes) {
  SmallVector<Value> results;
  int64_t offset = 0;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    results.push_back(b.reshape(sliceDim(b, self, dim, offset, offset + size), b.resultType(i)));
    offset += size;
  }
  return results;
}

/// The split sizes are the results' sizes along dim (the trace fixed them).
template <typename OpT> SmallVector<Value> split(OpT op, PrimBuilder &b) {
  Value self = op.getSelf();
  int64_t dim =
      normalizeDim(op.getDimAttr() ? op.getDimAttr().getInt() : 0, tensorType(self).getRank());
  if (op->getNumResults() == 1 && tensorType(op->getResult(0)) == tensorType(self)) {
    // One piece is the whole tensor, whatever its size (a batch of one image's boxes
    // split per image: a data-dependent count).
    b.sizesFollowResultType("split_size");
    b.sizesFollowResultType("split_sizes");
    return {self};
  }
  SmallVector<int64_t> sizes;
  for (Value result : op->getResults())
    sizes.push_back(tensorType(result).getDimSize(dim));
  return pieces(b, self, dim, sizes);
}

SmallVector<Value> unbind(aten::UnbindIntOp op, PrimBuilder &b) {
  Value self = op.getSelf();
  int64_t dim =
      normalizeDim(op.getDimAttr() ? op.getDimAttr().getInt() : 0, tensorType(self).getRank());
  SmallVector<int64_t> ones(op->getNumResults(), 1);
  return pieces(b, self, dim, ones);
}

/// cat: operands in the result dtype (cat promotes), joined along dim. Legacy empty
/// 1-D operands (shape [0]) are skipped, as ATen skips them, and so are operands of
/// static size 0 along dim (Phi-3's pass-through part of a fully rotary head): they add
/// nothing, and a zero-sized buffer would otherwise reach a kernel's arguments.
Value cat(aten::CatOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  int64_t dim = normalizeDim(op.getDimAttr() ? op.getDimAttr().getInt() : 0, type.getRank());
  SmallVector<Value> inputs;
  for (Value t : op.getTensors()) {
    RankedTensorType tt = tensorType(t);
    if (tt.getRank() == 1 && tt.getDimSize(0) == 0 && type.getRank() != 1)
      continue;
    bool emptyAlongDim = tt.getRank() == type.getRank() && tt.getDimSize(dim) == 0;
    if (emptyAlongDim && type.getDimSize(dim) != 0)
      continue;
    inputs.push_back(b.convert(t, type.getElementType()));
  }
  if (b.failed())
    return {};
  if (inputs.size() == 1)
    return inputs.front();
  return b.create<prim::ConcatenateOp>(inputs, dim);
}

/// `x` rolled by `shift` along `dim`: its last (shift mod n) elements, then the rest.
Value rollDim(PrimBuilder &b, Value x, int64_t dim, int64_t shift) {
  if (b.failed())
    return {};
  int64_t n = tensorType(x).getDimSize(dim);
  if (ShapedType::isDynamic(n))
    return b.fail("rolling a dim of dynamic size");
  int64_t s = n == 0 ? 0 : ((shift % n) + n) % n;
  if (s == 0)
    return x;
  Value tail = sliceDim(b, x, dim, n - s, n);
  Value head = sliceDim(b, x, dim, 0, n - s);
  if (b.failed())
    return {};
  return b.create<prim::ConcatenateOp>(SmallVector<Value>{tail, head}, dim);
}

/// roll (Swin's shifted windows): one rotation per (shift, dim) pair; without dims the
/// flattened tensor is rolled and reshaped back.
Value roll(aten::RollOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  ArrayRef<int64_t> shifts = op.getShiftsAttr().asArrayRef();
  ArrayRef<int64_t> dims;
  if (op.getDimsAttr())
    dims = op.getDimsAttr().asArrayRef();
  if (dims.empty()) {
    if (shifts.size() != 1 || !type.hasStaticShape())
      return b.fail("roll without dims takes one shift and static sizes");
    auto flat = RankedTensorType::get({type.getNumElements()}, type.getElementType());
    Value rolled = rollDim(b, b.reshape(op.getSelf(), flat), 0, shifts[0]);
    return b.failed() ? Value() : b.reshape(rolled, type);
  }
  if (dims.size() != shifts.size())
    return b.fail("roll takes one shift per dim");
  Value x = op.getSelf();
  for (auto [shift, dim] : llvm::zip_equal(shifts, dims))
    x = rollDim(b, x, normalizeDim(dim, type.getRank()), shift);
  return x;
}

/// stack: each operand gets a size-1 dim at `dim`, then they are joined along it.
Value stack(aten::StackOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  int64_t dim = normalizeDim(op.getDimAttr() ? op.getDimAttr().getInt() : 0, type.getRank());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = 1;
  SmallVector<Value> inputs;
  for (Value t : op.getTensors())
    inputs.push_back(b.reshape(b.convert(t, type.getElementType()), type.clone(shape)));
  if (b.failed())
    return {};
  return b.create<prim::ConcatenateOp>(inputs, dim);
}

Value liftFresh(aten::LiftFreshOp op, PrimBuilder &) { return op.getSelf(); }

} // namespace

void populateIndexingDecompositions(DecompositionSet &set) {
  set.add<aten::EmbeddingOp>(embedding)
      .add<aten::IndexSelectOp>(indexSelect)
      .add<aten::GatherOp>(gatherAlongDim)
      .add<aten::IndexTensorOp>(indexTensor)
      .add<aten::SliceTensorOp>(sliceTensor)
      .add<aten::SelectIntOp>(selectInt)
      .add<aten::SqueezeOp>(reshapeToResult<aten::SqueezeOp>)
      .add<aten::SqueezeDimsOp>(reshapeToResult<aten::SqueezeDimsOp>)
      .add<aten::SplitTensorOp>(split<aten::SplitTensorOp>)
      .add<aten::SplitWithSizesOp>(split<aten::SplitWithSizesOp>)
      // "unsafe": ATen skips the autograd view tracking; the values are the same.
      .add<aten::UnsafeSplitTensorOp>(split<aten::UnsafeSplitTensorOp>)
      .add<aten::UnsafeChunkOp>(split<aten::UnsafeChunkOp>)
      .add<aten::RollOp>(roll)
      .add<aten::UnbindIntOp>(unbind)
      .add<aten::CatOp>(cat)
      .add<aten::StackOp>(stack)
      .add<aten::LiftFreshOp>(liftFresh);
}

} // namespace pt2c::decompose
