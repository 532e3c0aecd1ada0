// scatter_reduce(self, dim, index, src, reduce, include_self): element p of src is
// combined into self[p with p[dim] = index[p]] by sum, prod, mean, amax or amin; with
// include_self = False a position that is written forgets self's value first. As the
// other writes at computed positions (Scatter.h), through a one-hot table: with dim
// moved last, hit[..., k, j] says src slice k lands on position j, each position's
// reduction runs over k with the identity where k misses, and positions nothing hits
// keep self.
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/Scatter.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

Value scatterReduce(aten::ScatterReduceTwoOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Type et = type.getElementType();
  int64_t rank = type.getRank();
  Value index = op.getIndex();
  RankedTensorType indexType = tensorType(index);
  if (rank == 0 || !type.hasStaticShape() || !indexType.hasStaticShape() ||
      indexType.getRank() != rank || !tensorType(op.getSrc()).hasStaticShape())
    return b.fail("scatter_reduce needs static sizes and an index of the tensor's rank >= 1");
  int64_t dim = normalizeDim(op.getDimAttr().getInt(), rank);
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && indexType.getDimSize(d) != type.getDimSize(d))
      return b.fail("scatter_reduce with an index smaller than the tensor outside dim " +
                    Twine(dim) + " is not supported");
  StringRef reduce = op.getReduce();
  using K = prim::ReduceKind;
  std::optional<K> kind = llvm::StringSwitch<std::optional<K>>(reduce)
                              .Cases("sum", "mean", K::SUM)
                              .Case("prod", K::PROD)
                              .Case("amax", K::MAX)
                              .Case("amin", K::MIN)
                              .Default(std::nullopt);
  if (!kind)
    return b.fail("scatter_reduce with an unknown reduction '" + reduce + "'");
  bool mean = reduce == "mean";
  if (mean && !isa<FloatType>(et))
    return b.fail("scatter_reduce's integer mean (a floor division) is not supported yet");
  int64_t n = indexType.getDimSize(dim), size = type.getDimSize(dim);
  if (n * type.getNumElements() > kMaxScatterSum)
    return b.fail("scatter_reduce of " + Twine(n) + " indexed slices into a tensor of " +
                  Twine(type.getNumElements()) + " elements: the table pt2c builds for it " +
                  "would exceed " + Twine(kMaxScatterSum) + " entries");
  Value src = b.convert(op.getSrc(), et);
  if (tensorType(src).getShape() != indexType.getShape()) { // src may be larger: its corner
    SmallVector<int64_t> starts(rank, 0), strides(rank, 1);
    src = b.create<prim::SliceOp>(src, starts, indexType.getShape(), strides);
  }
  SmallVector<int64_t> toLast = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  toLast.erase(toLast.begin() + dim);
  toLast.push_back(dim);
  Value self = b.transpose(b.convert(op.getSelf(), et), toLast); // [others..., size]
  Value indexLast = b.transpose(index, toLast);                  // [others..., n]
  Value srcLast = b.transpose(src, toLast);

  // hit[others..., k, j]: slice k of src lands on position j.
  auto selfType = tensorType(self);
  SmallVector<int64_t> pairShape(selfType.getShape().drop_back());
  pairShape.append({n, size});
  auto i64 = IntegerType::get(type.getContext(), 64);
  auto pairType = RankedTensorType::get(pairShape, i64);
  SmallVector<int64_t> leading = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value wanted = b.broadcastInDim(b.convert(indexLast, i64), pairType, leading);
  Value hit = b.create<prim::CompareOp>(prim::CompareDirection::EQ, wanted,
                                        b.create<prim::IotaOp>(pairType, rank, ValueRange{}));
  auto wideType = pairType.clone(et);
  Value spread = b.broadcastInDim(srcLast, wideType, leading);
  Value terms =
      b.create<prim::SelectOp>(hit, spread, b.splat(reductionIdentity(*kind, et), wideType));
  Value reduced = b.reduce(*kind, terms, {rank - 1}); // [others..., size]
  Value touched = b.reduce(K::OR, hit, {rank - 1});
  Value combined = reduced;
  if (op.getIncludeSelf().value_or(true)) {
    switch (*kind) {
    case K::SUM:
      combined = b.create<prim::AddOp>(self, reduced);
      break;
    case K::PROD:
      combined = b.create<prim::MulOp>(self, reduced);
      break;
    case K::MAX:
      combined = b.create<prim::MaxOp>(self, reduced);
      break;
    default:
      combined = b.create<prim::MinOp>(self, reduced);
      break;
    }
  }
  if (mean) {
    Value count = b.reduce(K::SUM, b.convert(hit, et), {rank - 1});
    if (op.getIncludeSelf().value_or(true))
      count = b.create<prim::AddOp>(count, b.splat(1.0, selfType));
    // Untouched positions divide by 0 here; the select below keeps self there.
    combined = b.create<prim::DivOp>(combined, count);
  }
  Value written = b.create<prim::SelectOp>(touched, combined, self);
  SmallVector<int64_t> back(rank);
  for (int64_t d = 0; d < rank; ++d)
    back[toLast[d]] = d;
  return b.transpose(written, back);
}

} // namespace

void populateScatterReduceDecompositions(DecompositionSet &set) {
  set.add<aten::ScatterReduceTwoOp>(scatterReduce);
}

} // namespace pt2c::decompose
