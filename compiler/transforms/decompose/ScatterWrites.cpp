// Decompositions of the ops that write at computed positions (index_put: x[idx] = v
// and x[idx] += v in the functional form pt2c-functionalize makes of index_put_;
// index_fill; index_add; scatter and scatter_add; max_unpool2d) and of diagonal, a view read as
// a strided slice of the flattened matrix; slice_scatter and select_scatter as the
// write-back through a view that pt2c-functionalize builds (ViewScatter.h). The writes go through
// scatterAlong (Scatter.h), except an unpooling of tiling windows, which needs no one-hot table.
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/Scatter.h"
#include "compiler/transforms/functionalize/ViewScatter.h"
#include "ir/contract/ModelContract.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

int64_t product(ArrayRef<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

/// x[mask] = v (accumulate: x[mask] += v) with a bool mask over the dims starting at
/// `first` and a value of one element: a select. A value of several elements would be
/// spread over the true elements in order, a size only the data knows.
Value indexPutMask(aten::IndexPutOp op, PrimBuilder &b, Value mask, int64_t first) {
  RankedTensorType type = b.resultType();
  RankedTensorType maskType = tensorType(mask);
  if (product(tensorType(op.getValues()).getShape()) != 1)
    return b.fail("x[mask] = v with a bool mask and a value of several elements (where "
                  "they go depends on how many elements the mask selects)");
  if (first + maskType.getRank() > type.getRank())
    return b.fail("a bool mask with more dims than the tensor it indexes");
  Value value = b.broadcastTo(b.reshape(b.convert(op.getValues(), type.getElementType()),
                                        RankedTensorType::get({}, type.getElementType())),
                              type);
  if (op.getAccumulate().value_or(false))
    value = b.create<prim::AddOp>(op.getSelf(), value);
  Value where =
      b.broadcastInDim(mask, type.clone(maskType.getElementType()),
                       llvm::to_vector(llvm::seq<int64_t>(first, first + maskType.getRank())));
  return b.create<prim::SelectOp>(where, value, op.getSelf());
}

/// x[idx] = v with one 1-D index on dim 0, where sizes are dynamic (rows of a
/// data-dependent selection written back: torchvision's MultiScaleRoIAlign puts each
/// level's pooled boxes at their positions this way). The dims after 0 stay static.
Value indexPutRows(aten::IndexPutOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value index = op.getIndices()[0];
  RankedTensorType indexType = tensorType(index);
  if (op.getAccumulate().value_or(false) || indexType.getRank() != 1 ||
      !RankedTensorType::get(type.getShape().drop_front(), type.getElementType()).hasStaticShape())
    return b.fail("index_put into a tensor of dynamic sizes (supported: x[idx] = v with "
                  "one 1-D index on dim 0, the other dims static)");
  SmallVector<Value> count;
  if (indexType.isDynamicDim(0))
    count.push_back(b.create<prim::DimSizeOp>(index, 0));
  Value position =
      flatIndexPosition(b, op.getSelf(), index, indexType.getShape(), count); // wrapped
  SmallVector<int64_t> sourceShape(type.getShape());
  sourceShape[0] = indexType.getDimSize(0);
  auto sourceType = type.clone(sourceShape);
  Value values = b.convert(op.getValues(), type.getElementType());
  if (tensorType(values).getShape() != sourceType.getShape()) { // broadcast, right-aligned
    int64_t rank = tensorType(values).getRank();
    SmallVector<int64_t> dims =
        llvm::to_vector(llvm::seq<int64_t>(type.getRank() - rank, type.getRank()));
    values = b.create<prim::BroadcastInDimOp>(sourceType, values, dims, count);
  }
  return scatterAlong(b, op.getSelf(), 0, position, values, /*accumulate=*/false);
}

/// index_put(self, indices, values, accumulate): self with the elements that
/// self[indices] reads replaced by values (broadcast to that read's shape), or
/// values added there. The indexed dims are moved first and flattened, as index.Tensor
/// reads them (Indexing.cpp), so the write is one scatter along that flat dim.
Value indexPut(aten::IndexPutOp op, PrimBuilder &b) {
  Value self = op.getSelf();
  RankedTensorType type = b.resultType();
  int64_t rank = type.getRank(), k = op.getIndices().size();
  if (k == 0)
    return b.fail("index_put without index tensors");
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, k));
  if (auto present = op->getAttrOfType<DenseI64ArrayAttr>(kPresentIndicesAttr))
    dims.assign(present.asArrayRef().begin(), present.asArrayRef().end());
  if ((int64_t)dims.size() != k || dims.back() >= rank)
    return b.fail(Twine(kPresentIndicesAttr) + " does not match the index tensors");
  bool mask = k == 1 && tensorType(op.getIndices()[0]).getElementType().isInteger(1);
  bool dynamic = !type.hasStaticShape() || llvm::any_of(op.getIndices(), [](Value i) {
    return !tensorType(i).hasStaticShape();
  });
  if (dynamic && !mask) {
    if (k != 1 || dims.front() != 0)
      return b.fail("index_put with dynamic sizes and an index on another dim than 0, or "
                    "several indices");
    return indexPutRows(op, b);
  }
  if (!type.hasStaticShape())
    return b.fail("index_put into a tensor of dynamic sizes");
  if (mask)
    return indexPutMask(op, b, op.getIndices()[0], dims.front());
  for (Value index : op.getIndices())
    if (!tensorType(index).hasStaticShape())
      return b.fail("index_put with index tensors of dynamic sizes");

  // The broadcast shape of the indices, and the shape self[indices] has (NumPy's rule:
  // the index dims replace adjacent indexed dims, else they lead).
  SmallVector<int64_t> indexShape;
  for (Value index : op.getIndices()) {
    ArrayRef<int64_t> shape = tensorType(index).getShape();
    if (shape.size() > indexShape.size())
      indexShape.insert(indexShape.begin(), shape.size() - indexShape.size(), 1);
    for (auto [i, s] : llvm::enumerate(shape)) {
      int64_t &into = indexShape[indexShape.size() - shape.size() + i];
      if (into != s && into != 1 && s != 1)
        return b.fail("index tensors whose shapes do not broadcast");
      into = into == 1 ? s : into;
    }
  }
  int64_t indexRank = indexShape.size();
  bool adjacent = dims.back() - dims.front() == k - 1;
  int64_t first = adjacent ? dims.front() : 0;
  SmallVector<int64_t> toFront(dims), rest;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      toFront.push_back(d), rest.push_back(type.getDimSize(d));
  SmallVector<int64_t> readShape(rest.begin(), rest.begin() + first);
  readShape.append(indexShape);
  readShape.append(rest.begin() + first, rest.end());

  // values as [n, rest...] (index dims first, flattened)
  Value values =
      b.broadcastTo(b.convert(op.getValues(), type.getElementType()), type.clone(readShape));
  SmallVector<int64_t> indexFirst;
  for (int64_t d = 0; d < indexRank; ++d)
    indexFirst.push_back(first + d);
  for (int64_t d = 0; d < (int64_t)readShape.size(); ++d)
    if (d < first || d >= first + indexRank)
      indexFirst.push_back(d);
  int64_t n = product(indexShape);
  SmallVector<int64_t> flatValuesShape = {n};
  flatValuesShape.append(rest);
  Value flatValues = b.reshape(b.transpose(values, indexFirst), type.clone(flatValuesShape));

  // self as [size_0 * ... * size_{k-1}, rest...], and the written flat positions [n]
  Value front = b.transpose(self, toFront);
  if (b.failed())
    return {};
  Value position = flatIndexPosition(b, front, op.getIndices(), indexShape, {});
  auto i64 = IntegerType::get(type.getContext(), 64);
  Value flatPosition = b.reshape(position, RankedTensorType::get({n}, i64));
  SmallVector<int64_t> flatShape = {product(tensorType(front).getShape().take_front(k))};
  flatShape.append(rest);
  Value flatSelf = b.reshape(front, type.clone(flatShape));
  Value written =
      scatterAlong(b, flatSelf, 0, flatPosition, flatValues, op.getAccumulate().value_or(false));
  if (b.failed())
    return {};
  Value unflat = b.reshape(written, tensorType(front));
  SmallVector<int64_t> back(rank);
  for (int64_t d = 0; d < rank; ++d)
    back[toFront[d]] = d;
  return b.transpose(unflat, back);
}

/// index_fill(self, dim, index, value): the slices index[k] of dim set to value.
Value indexFill(aten::IndexFillIntScalarOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  int64_t rank = type.getRank();
  if (rank == 0 || !type.hasStaticShape())
    return b.fail("index_fill needs a tensor of rank >= 1 with static sizes");
  int64_t dim = normalizeDim(op.getDimAttr().getInt(), rank);
  RankedTensorType indexType = tensorType(op.getIndex());
  int64_t n = product(indexType.getShape());
  auto i64 = IntegerType::get(type.getContext(), 64);
  Value index = b.reshape(b.convert(op.getIndex(), i64), RankedTensorType::get({n}, i64));
  // Negative entries count from the end, as eager's index_fill allows.
  auto indexFlatType = RankedTensorType::get({n}, i64);
  Value negative =
      b.create<prim::CompareOp>(prim::CompareDirection::LT, index, b.splat(0.0, indexFlatType));
  Value wrapped =
      b.create<prim::AddOp>(index, b.splat((double)type.getDimSize(dim), indexFlatType));
  index = b.create<prim::SelectOp>(negative, wrapped, index);
  SmallVector<int64_t> sourceShape(type.getShape());
  sourceShape[dim] = n;
  Value source =
      b.splat(b.scalarAttr(op.getValueAttr(), type.getElementType()), type.clone(sourceShape));
  return scatterAlong(b, op.getSelf(), dim, index, source, /*accumulate=*/false);
}

/// The stride of the max pooling that made `indices` when its windows tile its input
/// (kernel == stride, no padding or dilation) of spatial size `area`: every index then
/// points into its own window. 0 otherwise.
int64_t tilingPoolStride(Value indices, ArrayRef<int64_t> area) {
  auto pool = indices.getDefiningOp<aten::MaxPool2dWithIndicesOp>();
  if (!pool || indices != pool->getResult(1) ||
      tensorType(pool.getSelf()).getShape().take_back(2) != area)
    return 0;
  auto all = [](std::optional<ArrayRef<int64_t>> arg, int64_t value) {
    return !arg || llvm::all_of(*arg, [&](int64_t v) { return v == value; });
  };
  ArrayRef<int64_t> kernel = pool.getKernelSize();
  std::optional<ArrayRef<int64_t>> stride = pool.getStride();
  if (kernel.empty() || !llvm::all_equal(kernel) || !all(stride, kernel[0]) ||
      !all(pool.getPadding(), 0) || !all(pool.getDilation(), 1))
    return 0;
  return kernel[0];
}

/// max_unpool2d after a pooling whose windows tile the plane (tilingPoolStride = s):
/// output position (y, x) can only hold the value of window (y / s, x / s), so each
/// value and index is repeated over its s x s window and kept where the index names
/// the position; O(H * W) instead of a one-hot table.
Value unpoolTiles(aten::MaxUnpool2dOp op, PrimBuilder &b, int64_t s) {
  RankedTensorType type = b.resultType();
  RankedTensorType valuesType = tensorType(op.getSelf());
  int64_t rank = type.getRank(), h = rank - 2, w = rank - 1;
  int64_t height = type.getDimSize(h), width = type.getDimSize(w);
  int64_t oh = valuesType.getDimSize(h), ow = valuesType.getDimSize(w);
  auto i64 = IntegerType::get(type.getContext(), 64);
  SmallVector<int64_t> tiled(valuesType.getShape().drop_back(2));
  tiled.append({oh, s, ow, s});
  SmallVector<int64_t> into = llvm::to_vector(llvm::seq<int64_t>(0, rank - 2));
  into.append({h, h + 2});
  SmallVector<int64_t> covered(valuesType.getShape().drop_back(2));
  covered.append({oh * s, ow * s});
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  high[h] = height - oh * s, high[w] = width - ow * s;
  // Repeated over each window, and padded over the rows and columns no window covers.
  auto spread = [&](Value v, double outside) {
    Type et = tensorType(v).getElementType();
    Value repeated = b.broadcastInDim(v, RankedTensorType::get(tiled, et), into);
    Value plane = b.reshape(repeated, RankedTensorType::get(covered, et));
    Value fill = b.splat(outside, RankedTensorType::get({}, et));
    return b.create<prim::PadOp>(plane, fill, low, high);
  };
  Value values = spread(b.convert(op.getSelf(), type.getElementType()), 0.0);
  Value indices = spread(b.convert(op.getIndices(), i64), -1.0);
  auto positionsType = type.clone(i64);
  Value rows = b.create<prim::IotaOp>(positionsType, h);
  Value flat =
      b.create<prim::AddOp>(b.create<prim::MulOp>(rows, b.splat((double)width, positionsType)),
                            b.create<prim::IotaOp>(positionsType, w));
  Value here = b.create<prim::CompareOp>(prim::CompareDirection::EQ, indices, flat);
  return b.create<prim::SelectOp>(here, values, b.splat(0.0, type));
}

/// index_add(self, dim, index[n], source, alpha): slice k of source * alpha added to
/// slice index[k] of dim (repeated indices add up).
Value indexAdd(aten::IndexAddOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  RankedTensorType indexType = tensorType(op.getIndex());
  int64_t rank = type.getRank();
  if (rank == 0 || !type.hasStaticShape() || !indexType.hasStaticShape() || indexType.getRank() > 1)
    return b.fail("index_add needs static sizes, a 0-d or 1-d index and a tensor of "
                  "rank >= 1");
  int64_t dim = normalizeDim(op.getDimAttr().getInt(), rank);
  int64_t n = product(indexType.getShape());
  auto i64 = IntegerType::get(type.getContext(), 64);
  Value index = b.reshape(b.convert(op.getIndex(), i64), RankedTensorType::get({n}, i64));
  SmallVector<int64_t> sourceShape(type.getShape());
  sourceShape[dim] = n;
  Value source =
      b.reshape(b.convert(op.getSource(), type.getElementType()), type.clone(sourceShape));
  return scatterAlong(b, op.getSelf(), dim, index, b.scaleBy(source, op.getAlphaAttr()),
                      /*accumulate=*/true);
}

/// max_unpool2d(values, indices, output_size): zeros of [..., H, W] with each value
/// written at its flat position indices[...] in H * W (per image and channel).
Value maxUnpool2d(aten::MaxUnpool2dOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  RankedTensorType valuesType = tensorType(op.getSelf());
  int64_t rank = type.getRank();
  if ((rank != 3 && rank != 4) || !type.hasStaticShape() || !valuesType.hasStaticShape() ||
      tensorType(op.getIndices()).getShape() != valuesType.getShape())
    return b.fail("max_unpool2d needs static [N,] C, H, W sizes and indices shaped like "
                  "the values");
  if (int64_t s = tilingPoolStride(op.getIndices(), type.getShape().take_back(2));
      s > 0 && valuesType.getDimSize(rank - 2) * s <= type.getDimSize(rank - 2) &&
      valuesType.getDimSize(rank - 1) * s <= type.getDimSize(rank - 1))
    return unpoolTiles(op, b, s);
  int64_t planes = product(type.getShape().drop_back(2));
  int64_t outArea = product(type.getShape().take_back(2));
  int64_t inArea = product(valuesType.getShape().take_back(2));
  auto i64 = IntegerType::get(type.getContext(), 64);
  Value values = b.reshape(op.getSelf(), valuesType.clone({planes, inArea}));
  Value indices =
      b.reshape(b.convert(op.getIndices(), i64), RankedTensorType::get({planes, inArea}, i64));
  Value zeros = b.splat(0.0, type.clone({planes, outArea}));
  Value written = scatterAlong(b, zeros, 1, indices, values, /*accumulate=*/false,
                               /*batchDims=*/1);
  return b.reshape(written, type);
}

/// scatter(self, dim, index, src or value) and scatter_add: element p of index writes
/// (adds) src[p] at self[p with p[dim] = index[p]]. With dim moved last every other dim
/// is a batch dim of one scatterAlong. ATen lets index be smaller than self in the
/// other dims too; pt2c needs them equal (one-hot labels, per-row writes).
Value scatterElements(PrimBuilder &b, Value self, int64_t dimArg, Value index, Value src,
                      bool accumulate) {
  RankedTensorType type = b.resultType();
  RankedTensorType indexType = tensorType(index);
  int64_t rank = type.getRank();
  if (rank == 0 || !type.hasStaticShape() || !indexType.hasStaticShape() ||
      indexType.getRank() != rank)
    return b.fail("scatter needs static sizes and an index of the tensor's rank >= 1");
  int64_t dim = normalizeDim(dimArg, rank);
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && indexType.getDimSize(d) != type.getDimSize(d))
      return b.fail("scatter with an index smaller than the tensor outside dim " + Twine(dim) +
                    " is not supported");
  RankedTensorType srcType = tensorType(src);
  if (srcType.getShape() != indexType.getShape()) { // src may be larger: its corner
    if (!srcType.hasStaticShape())
      return b.fail("scatter from a src of dynamic sizes");
    SmallVector<int64_t> starts(rank, 0), strides(rank, 1);
    src = b.create<prim::SliceOp>(src, starts, indexType.getShape(), strides);
  }
  SmallVector<int64_t> toLast = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  toLast.erase(toLast.begin() + dim);
  toLast.push_back(dim);
  // One statement per created op: C++ leaves argument evaluation order unspecified.
  Value selfLast = b.transpose(self, toLast);
  Value indexLast = b.transpose(index, toLast);
  Value srcLast = b.transpose(src, toLast);
  Value written = scatterAlong(b, selfLast, rank - 1, indexLast, srcLast, accumulate,
                               /*batchDims=*/rank - 1);
  SmallVector<int64_t> back(rank);
  for (int64_t d = 0; d < rank; ++d)
    back[toLast[d]] = d;
  return b.transpose(written, back);
}

Value scatterSrc(aten::ScatterSrcOp op, PrimBuilder &b) {
  return scatterElements(b, op.getSelf(), op.getDimAttr().getInt(), op.getIndex(), op.getSrc(),
                         /*accumulate=*/false);
}

Value scatterValue(aten::ScatterValueOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  RankedTensorType indexType = tensorType(op.getIndex());
  if (!indexType.hasStaticShape())
    return b.fail("scatter with an index of dynamic sizes");
  Value src = b.splat(b.scalarAttr(op.getValueAttr(), type.getElementType()),
                      indexType.clone(type.getElementType()));
  return scatterElements(b, op.getSelf(), op.getDimAttr().getInt(), op.getIndex(), src,
                         /*accumulate=*/false);
}

Value scatterAdd(aten::ScatterAddOp op, PrimBuilder &b) {
  return scatterElements(b, op.getSelf(), op.getDimAttr().getInt(), op.getIndex(), op.getSrc(),
                         /*accumulate=*/true);
}

/// diagonal(self, offset, dim1, dim2): a strided slice of self with dim1 and dim2
/// moved last and flattened; the diagonal's dim comes last, as in ATen.
Value diagonal(aten::DiagonalOp op, PrimBuilder &b) {
  auto intOr = [](IntegerAttr attr, int64_t otherwise) { return attr ? attr.getInt() : otherwise; };
  RankedTensorType type = tensorType(op.getSelf());
  std::optional<DiagonalLayout> layout =
      diagonalLayout(b, type, intOr(op.getOffsetAttr(), 0), intOr(op.getDim1Attr(), 0),
                     intOr(op.getDim2Attr(), 1));
  if (!layout)
    return {};
  Value flat = diagonalFlattened(b, op.getSelf(), *layout);
  if (b.failed())
    return {};
  RankedTensorType flatType = tensorType(flat);
  int64_t last = flatType.getRank() - 1;
  SmallVector<int64_t> starts(flatType.getRank(), 0), limits(flatType.getShape()),
      strides(flatType.getRank(), 1);
  starts[last] = layout->start;
  limits[last] = layout->length == 0 ? 0 : layout->start + (layout->length - 1) * layout->step + 1;
  strides[last] = layout->step;
  return b.create<prim::SliceOp>(flat, starts, limits, strides);
}

/// slice_scatter(self, src, dim, start, end, step) and select_scatter(self, src, dim,
/// index): self with the slice (select) replaced by src, which is what
/// pt2c-functionalize writes back through a mutated view of the same arguments.
template <typename OpT> Value viewScatter(OpT op, PrimBuilder &b) {
  Value src = b.convert(op.getSrc(), b.resultElementType());
  return functionalize::scatterIntoParent(b, op, 0, op.getSelf(), src);
}

} // namespace

void populateScatterWriteDecompositions(DecompositionSet &set) {
  set.add<aten::IndexPutOp>(indexPut)
      .add<aten::IndexFillIntScalarOp>(indexFill)
      .add<aten::MaxUnpool2dOp>(maxUnpool2d)
      .add<aten::ScatterSrcOp>(scatterSrc)
      .add<aten::ScatterValueOp>(scatterValue)
      .add<aten::ScatterAddOp>(scatterAdd)
      .add<aten::IndexAddOp>(indexAdd)
      .add<aten::DiagonalOp>(diagonal)
      .add<aten::SliceScatterOp>(viewScatter<aten::SliceScatterOp>)
      .add<aten::SelectScatterOp>(viewScatter<aten::SelectScatterOp>);
}

} // namespace pt2c::decompose
