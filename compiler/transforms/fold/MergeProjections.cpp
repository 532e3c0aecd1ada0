#include "compiler/transforms/fold/MergeProjections.h"

#include <tuple>

#include "ir/prim/PrimDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "llvm/ADT/MapVector.h"

namespace pt2c::fold {

namespace {

using namespace mlir;

// y = x W, contracting one dim of a rank-2 constant W, and y + broadcast(b) when the
// product's only user adds a constant [N] bias along the last dim (a Linear).
//
// Read either by attention alone (`view` null), or in place by elementwise kernels:
// then `view` is the value those read, the result itself or its one reshape, of shape
// [lead..., H, inner...] with lead the product's rows and H * prod(inner) = N.
struct Projection {
  prim::DotGeneralOp dot;
  prim::AddOp biasAdd; // null without a bias
  Value bias;
  Value view;
  size_t leadRank = 0; // of the view

  Value result() { return biasAdd ? biasAdd.getResult() : dot.getResult(); }
};

// The bias the product's sole user adds, if it is a constant [N] along the last dim.
std::pair<prim::AddOp, Value> biasOf(prim::DotGeneralOp dot,
                                     const std::function<bool(Value)> &isFoldable) {
  if (!dot->hasOneUse())
    return {};
  auto add = dyn_cast<prim::AddOp>(*dot->user_begin());
  if (!add)
    return {};
  Value other = add.getLhs() == dot.getResult() ? add.getRhs() : add.getLhs();
  auto broadcast = other.getDefiningOp<prim::BroadcastInDimOp>();
  if (!broadcast || !broadcast.getDynamicSizes().empty())
    return {};
  auto outType = cast<RankedTensorType>(dot.getType());
  auto biasType = cast<RankedTensorType>(broadcast.getOperand().getType());
  int64_t last = outType.getRank() - 1;
  if (biasType.getRank() != 1 || biasType.getDimSize(0) != outType.getDimSize(last) ||
      broadcast.getBroadcastDimensions() != ArrayRef<int64_t>{last} ||
      !isFoldable(broadcast.getOperand()))
    return {};
  return {add, broadcast.getOperand()};
}

// Whether every use of `v`, through reshapes, is a q, k or v operand that prim.attention
// reads in its [B, len, H, dim] layout: the only reader that takes a slice of the packed
// product in place (`parts`). An elementwise kernel would too, but not through the
// reshape between (a slice, then a reshape, is a copy), so those projections stay apart.
bool feedsAttention(Value v) {
  return !v.use_empty() && llvm::all_of(v.getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto reshape = dyn_cast<prim::ReshapeOp>(user))
      return feedsAttention(reshape.getResult());
    auto attention = dyn_cast<prim::AttentionOp>(user);
    unsigned which = use.getOperandNumber();
    return attention && which < 3 && attention.getHeadsInner()[which];
  });
}

// Whether every reader of `v` reads it in place inside an elementwise kernel: ops with
// the Elementwise trait, slices so read, and concatenations of static parts
// (prim::isElementwiseOnGpu; rotary embeddings' rotate_half).
bool readInPlace(Value v) {
  return !v.use_empty() && llvm::all_of(v.getUsers(), [](Operation *user) {
    if (user->hasTrait<OpTrait::Elementwise>())
      return true;
    if (auto slice = dyn_cast<prim::SliceOp>(user))
      return readInPlace(slice.getResult());
    auto concat = dyn_cast<prim::ConcatenateOp>(user);
    return concat && concat.joinsStaticParts();
  });
}

// The view of p's result that elementwise kernels read in place (Projection::view), if
// any, with its lead rank.
std::optional<std::pair<Value, size_t>> inPlaceView(Projection &p) {
  Value view = p.result();
  if (view.hasOneUse())
    if (auto reshape = dyn_cast<prim::ReshapeOp>(*view.user_begin()))
      view = reshape.getResult();
  auto type = dyn_cast<RankedTensorType>(view.getType());
  if (!type || !type.hasStaticShape() || !readInPlace(view))
    return std::nullopt;
  ArrayRef<int64_t> out = cast<RankedTensorType>(p.result().getType()).getShape();
  int64_t rows = 1;
  for (int64_t size : out.drop_back())
    rows *= size;
  // The shortest prefix of the view's dims that multiplies to the rows, then the split of N.
  int64_t product = 1;
  size_t lead = 0;
  while (lead < static_cast<size_t>(type.getRank()) && product != rows)
    product *= type.getDimSize(lead++);
  if (product != rows || lead == static_cast<size_t>(type.getRank()))
    return std::nullopt;
  return std::make_pair(view, lead);
}

std::optional<Projection> projectionOf(prim::DotGeneralOp dot,
                                       const std::function<bool(Value)> &isFoldable) {
  auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(dot.getRhs().getType());
  if (!dot.getLhsBatchingDimensions().empty() || !lhsType.hasStaticShape() ||
      !rhsType.hasStaticShape() || rhsType.getRank() != 2 ||
      dot.getRhsContractingDimensions().size() != 1 || !isFoldable(dot.getRhs()))
    return std::nullopt;
  auto [add, bias] = biasOf(dot, isFoldable);
  Projection p{dot, add, bias, Value(), 0};
  if (feedsAttention(p.result()))
    return p;
  auto view = inPlaceView(p);
  if (!view)
    return std::nullopt;
  std::tie(p.view, p.leadRank) = *view;
  return p;
}

// Attention's projections: [..., P * N] -> [..., P, N], the layout prim.attention's
// `parts` read in place, and each result a reshape of its part.
void sliceParts(OpBuilder &b, Location loc, ArrayRef<Projection> group, Value product) {
  auto productType = cast<RankedTensorType>(product.getType());
  int64_t last = productType.getRank() - 1;
  auto parts = static_cast<int64_t>(group.size());
  SmallVector<int64_t> shape(productType.getShape());
  int64_t n = shape.back() / parts;
  shape.back() = parts;
  shape.push_back(n);
  Value packed = b.create<prim::ReshapeOp>(loc, productType.clone(shape), product, ValueRange{});
  SmallVector<int64_t> start(shape.size(), 0), limit(shape), strides(shape.size(), 1);
  for (int64_t i = 0; i < parts; ++i) {
    Projection p = group[i];
    start[last] = i;
    limit[last] = i + 1;
    Value part =
        b.create<prim::SliceOp>(loc, packed, b.getDenseI64ArrayAttr(start),
                                b.getDenseI64ArrayAttr(limit), b.getDenseI64ArrayAttr(strides));
    Value result = p.result();
    result.replaceAllUsesWith(
        b.create<prim::ReshapeOp>(loc, result.getType(), part, ValueRange{}).getResult());
  }
}

// Projections read in place: the product viewed as [lead..., sum of H, inner...] and
// each view a slice of its heads, which the elementwise kernel reading it reads in place.
void sliceViews(OpBuilder &b, Location loc, ArrayRef<Projection> group, Value product) {
  auto first = cast<RankedTensorType>(group.front().view.getType());
  size_t at = group.front().leadRank;
  SmallVector<int64_t> shape(first.getShape());
  shape[at] = 0;
  for (const Projection &p : group)
    shape[at] += cast<RankedTensorType>(p.view.getType()).getDimSize(at);
  auto viewType = first.clone(shape);
  Value whole = product.getType() == viewType
                    ? product
                    : b.create<prim::ReshapeOp>(loc, viewType, product, ValueRange{}).getResult();
  SmallVector<int64_t> start(shape.size(), 0), limit(shape), strides(shape.size(), 1);
  for (Projection p : group) {
    limit[at] = start[at] + cast<RankedTensorType>(p.view.getType()).getDimSize(at);
    Value part =
        b.create<prim::SliceOp>(loc, whole, b.getDenseI64ArrayAttr(start),
                                b.getDenseI64ArrayAttr(limit), b.getDenseI64ArrayAttr(strides));
    Operation *reshape = p.view == p.result() ? nullptr : p.view.getDefiningOp();
    p.view.replaceAllUsesWith(part);
    if (reshape)
      reshape->erase();
    start[at] = limit[at];
  }
}

// Replaces the projections (same x, same weight type, all with or all without a bias;
// the first is the earliest) by one product and a slice of it each.
void merge(ArrayRef<Projection> group) {
  prim::DotGeneralOp first = group.front().dot;
  OpBuilder b(first);
  Location loc = first.getLoc();
  int64_t outDim = 1 - first.getRhsContractingDimensions()[0]; // of W: N
  SmallVector<Value> weights, biases;
  for (Projection p : group) {
    weights.push_back(p.dot.getRhs());
    if (p.bias)
      biases.push_back(p.bias);
  }
  Value joined = b.create<prim::ConcatenateOp>(loc, weights, b.getI64IntegerAttr(outDim));
  Value product = b.create<prim::DotGeneralOp>(
      loc, first.getLhs(), joined, first.getLhsBatchingDimensionsAttr(),
      first.getRhsBatchingDimensionsAttr(), first.getLhsContractingDimensionsAttr(),
      first.getRhsContractingDimensionsAttr());
  auto productType = cast<RankedTensorType>(product.getType());
  int64_t last = productType.getRank() - 1;
  if (!biases.empty()) {
    Value bias = b.create<prim::ConcatenateOp>(loc, biases, b.getI64IntegerAttr(0));
    Value wide = b.create<prim::BroadcastInDimOp>(loc, productType, bias,
                                                  b.getDenseI64ArrayAttr({last}), ValueRange{});
    product = b.create<prim::AddOp>(loc, wide, product); // a Linear's order: bias first
  }
  if (group.front().view) {
    sliceViews(b, loc, group, product);
  } else {
    sliceParts(b, loc, group, product);
  }
  // Only now: the builder inserts before the first product.
  for (Projection p : group) {
    if (p.biasAdd)
      p.biasAdd.erase();
    p.dot.erase();
  }
}

} // namespace

bool mergeSiblingProjections(func::FuncOp func, const std::function<bool(Value)> &isFoldable) {
  // Projections keyed by what must agree: x, the weight's type (N, K, element type), the
  // contracted dims, and whether (and which) bias.
  // Projections read in place may differ in N (grouped-query attention's q and k): their
  // key has N as 0 and the view's shape with H as 0 instead.
  using Key = std::tuple<Value, Type, Attribute, Attribute, Type, Type>;
  llvm::MapVector<Key, SmallVector<Projection>> groups;
  DominanceInfo dominance(func);
  func.walk([&](prim::DotGeneralOp dot) {
    std::optional<Projection> p = projectionOf(dot, isFoldable);
    if (!p)
      return;
    Key key{dot.getLhs(),
            dot.getRhs().getType(),
            dot.getLhsContractingDimensionsAttr(),
            dot.getRhsContractingDimensionsAttr(),
            p->bias ? p->bias.getType() : Type(),
            Type()};
    if (p->view) {
      auto weight = cast<RankedTensorType>(dot.getRhs().getType());
      SmallVector<int64_t> w(weight.getShape());
      w[1 - dot.getRhsContractingDimensions()[0]] = 0;
      auto view = cast<RankedTensorType>(p->view.getType());
      SmallVector<int64_t> v(view.getShape());
      v[p->leadRank] = 0;
      std::get<1>(key) = weight.clone(w);
      std::get<4>(key) =
          p->bias ? cast<RankedTensorType>(p->bias.getType()).clone(ArrayRef<int64_t>{0}) : Type();
      std::get<5>(key) = view.clone(v);
    }
    SmallVector<Projection> &group = groups[key];
    // The merged product goes where the first one was: a later sibling's weight or bias
    // must already be there.
    Operation *at = group.empty() ? nullptr : group.front().dot;
    if (at && (!dominance.properlyDominates(dot.getRhs(), at) ||
               (p->bias && !dominance.properlyDominates(p->bias, at))))
      return;
    group.push_back(*p);
  });
  bool changed = false;
  for (auto &[key, group] : groups)
    if (group.size() > 1) {
      merge(group);
      changed = true;
    }
  return changed;
}

} // namespace pt2c::fold
