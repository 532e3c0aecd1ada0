#include "compiler/transforms/decompose/Scatter.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace pt2c::decompose {

Value scatterAlong(PrimBuilder &b, Value self, int64_t dim, Value index, Value source,
                   bool accumulate, int64_t batchDims) {
  if (b.failed())
    return {};
  RankedTensorType type = tensorType(self);
  RankedTensorType indexType = tensorType(index);
  // The count of written slices may be dynamic (a KV cache written at `cache_position`,
  // one entry per token of a prompt of any length): the one-hot table then has a dynamic
  // dim, which the max below reduces away. So may the written dim itself (rows of a
  // data-dependent selection written back, as torchvision's pooler does per level):
  // the table's other dim, which the result keeps.
  bool dynamicCount =
      indexType.getRank() == batchDims + 1 && indexType.isDynamicDim(batchDims) && !accumulate;
  bool dynamicSize = batchDims == 0 && !accumulate && type.isDynamicDim(dim);
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d) && !(d == dim && dynamicSize))
      return b.fail("writing at indices into a tensor of dynamic sizes");
  if (!dynamicCount &&
      (!indexType.hasStaticShape() || (!dynamicSize && !tensorType(source).hasStaticShape())))
    return b.fail("writing at indices into a tensor of dynamic sizes");
  if (batchDims != 0 && batchDims != dim)
    return b.fail("scatterAlong: batch dims must be none or all dims before `dim`");
  auto i64 = IntegerType::get(type.getContext(), 64);
  ArrayRef<int64_t> batchShape = type.getShape().take_front(batchDims);
  int64_t n = indexType.getShape().back(), size = type.getDimSize(dim);
  int64_t batch = 1;
  for (int64_t s : batchShape)
    batch *= s;
  SmallVector<Value> pairSizes; // the dynamic count and size, where they are
  if (dynamicCount)
    pairSizes.push_back(b.create<prim::DimSizeOp>(index, batchDims));
  if (dynamicSize)
    pairSizes.push_back(b.create<prim::DimSizeOp>(self, dim));
  if (!dynamicCount && !dynamicSize && batch * n * size > kMaxScatterTable)
    return b.fail("writes " + Twine(batch * n) + " indexed slices into " + Twine(size) +
                  " positions: the one-hot table pt2c builds for it would exceed " +
                  Twine(kMaxScatterTable) + " entries");
  // Accumulating sums every slice into every position it might hit: n times the tensor.
  if (accumulate && n * type.getNumElements() > kMaxScatterSum)
    return b.fail("adds " + Twine(n) + " indexed slices into a tensor of " +
                  Twine(type.getNumElements()) +
                  " elements: the masked sum pt2c builds "
                  "for it would exceed " +
                  Twine(kMaxScatterSum) + " terms");
  // hit[batch..., k, j]: index k writes position j.
  SmallVector<int64_t> pairShape(batchShape);
  pairShape.append({n, size});
  auto pairType = RankedTensorType::get(pairShape, i64);
  SmallVector<int64_t> indexDims = llvm::to_vector(llvm::seq<int64_t>(0, batchDims + 1));
  Value wanted =
      b.create<prim::BroadcastInDimOp>(pairType, b.convert(index, i64), indexDims, pairSizes);
  Value hit = b.create<prim::CompareOp>(prim::CompareDirection::EQ, wanted,
                                        b.create<prim::IotaOp>(pairType, batchDims + 1, pairSizes));
  Value written = b.convert(source, type.getElementType());
  if (accumulate) {
    // wide = self's shape with dim split into [n, size]: source slice k summed into
    // each position j it hits.
    SmallVector<int64_t> wideShape(type.getShape());
    wideShape.insert(wideShape.begin() + dim, n);
    SmallVector<int64_t> hitDims = llvm::to_vector(llvm::seq<int64_t>(0, batchDims));
    hitDims.append({dim, dim + 1});
    SmallVector<int64_t> sourceDims;
    for (int64_t d = 0; d < type.getRank(); ++d)
      sourceDims.push_back(d <= dim ? d : d + 1);
    auto wideType = RankedTensorType::get(wideShape, type.getElementType());
    Value hitWide =
        b.broadcastInDim(hit, wideType.clone(IntegerType::get(type.getContext(), 1)), hitDims);
    Value sourceWide = b.broadcastInDim(written, wideType, sourceDims);
    Value added = b.create<prim::SelectOp>(hitWide, sourceWide, b.splat(0.0, wideType));
    return b.create<prim::AddOp>(self, b.reduce(prim::ReduceKind::SUM, added, {dim}));
  }
  // The last k that writes each position j, or -1: gather source slice k there.
  Value k = b.create<prim::SelectOp>(hit, b.create<prim::IotaOp>(pairType, batchDims, pairSizes),
                                     b.splat(-1.0, pairType, wanted));
  Value position = b.reduce(prim::ReduceKind::MAX, k, {batchDims}); // [batch..., size]
  Value found = b.create<prim::CompareOp>(prim::CompareDirection::GE, position,
                                          b.splat(0.0, tensorType(position), position));
  // Clamps the -1s (prim.gather clamps out-of-range indices).
  Value gathered = b.create<prim::GatherOp>(written, position, dim, batchDims);
  if (b.failed())
    return {};
  SmallVector<int64_t> foundDims = llvm::to_vector(llvm::seq<int64_t>(0, batchDims));
  foundDims.push_back(dim);
  Value everywhere =
      b.broadcastInDim(found, type.clone(tensorType(found).getElementType()), foundDims, self);
  return b.create<prim::SelectOp>(everywhere, gathered, self);
}

Value replaceStrided(PrimBuilder &b, Value parent, int64_t dim, int64_t start, int64_t step,
                     Value piece) {
  if (b.failed())
    return {};
  RankedTensorType type = tensorType(parent);
  if (!type.hasStaticShape() || !tensorType(piece).hasStaticShape())
    return b.fail("writing through a strided view of a tensor with dynamic sizes");
  int64_t size = type.getDimSize(dim), length = tensorType(piece).getDimSize(dim);
  if (step < 1 || start < 0 || (length > 0 && start + (length - 1) * step >= size))
    return b.fail("the written view lies outside the tensor it views");
  // For each position of dim: the piece's slice written there (0 where none is, masked).
  SmallVector<int64_t> from(size, 0);
  SmallVector<bool> written(size, false);
  for (int64_t k = 0; k < length; ++k)
    from[start + k * step] = k, written[start + k * step] = true;
  MLIRContext *context = type.getContext();
  auto fromType = RankedTensorType::get({size}, IntegerType::get(context, 64));
  auto maskType = RankedTensorType::get({size}, IntegerType::get(context, 1));
  Value positions = b.create<prim::ConstantOp>(DenseElementsAttr::get(fromType, ArrayRef(from)));
  Value mask = b.create<prim::ConstantOp>(DenseElementsAttr::get(maskType, ArrayRef(written)));
  Value gathered = b.create<prim::GatherOp>(piece, positions, dim, 0);
  Value everywhere = b.broadcastInDim(mask, type.clone(maskType.getElementType()), {dim});
  return b.create<prim::SelectOp>(everywhere, gathered, parent);
}

std::optional<DiagonalLayout> diagonalLayout(PrimBuilder &b, RankedTensorType type, int64_t offset,
                                             int64_t dim1, int64_t dim2) {
  int64_t rank = type.getRank();
  dim1 = normalizeDim(dim1, rank), dim2 = normalizeDim(dim2, rank);
  if (rank < 2 || dim1 == dim2 || dim1 >= rank || dim2 >= rank) {
    b.fail("diagonal needs two different dims of a tensor of rank >= 2");
    return std::nullopt;
  }
  if (type.isDynamicDim(dim1) || type.isDynamicDim(dim2)) {
    b.fail("diagonal of dynamic dims");
    return std::nullopt;
  }
  DiagonalLayout layout;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim1 && d != dim2)
      layout.permutation.push_back(d);
  layout.permutation.append({dim1, dim2});
  int64_t n1 = type.getDimSize(dim1), n2 = type.getDimSize(dim2);
  // Element (i, i + offset) of the [n1, n2] matrix is at i * n2 + i + offset.
  layout.step = n2 + 1;
  if (offset >= 0) {
    layout.start = offset;
    layout.length = std::max<int64_t>(0, std::min(n1, n2 - offset));
  } else {
    layout.start = -offset * n2;
    layout.length = std::max<int64_t>(0, std::min(n1 + offset, n2));
  }
  if (layout.length == 0)
    layout.start = 0;
  return layout;
}

Value diagonalFlattened(PrimBuilder &b, Value x, const DiagonalLayout &layout) {
  Value moved = b.transpose(x, layout.permutation);
  if (b.failed())
    return {};
  RankedTensorType type = tensorType(moved);
  SmallVector<int64_t> shape(type.getShape().drop_back(2));
  shape.push_back(type.getShape()[type.getRank() - 2] * type.getShape().back());
  return b.reshape(moved, type.clone(shape));
}

} // namespace pt2c::decompose
