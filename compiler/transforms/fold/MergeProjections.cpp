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
struct Projection {
  prim::DotGeneralOp dot;
  prim::AddOp biasAdd; // null without a bias
  Value bias;

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

std::optional<Projection> projectionOf(prim::DotGeneralOp dot,
                                       const std::function<bool(Value)> &isFoldable) {
  auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(dot.getRhs().getType());
  if (!dot.getLhsBatchingDimensions().empty() || !lhsType.hasStaticShape() ||
      !rhsType.hasStaticShape() || rhsType.getRank() != 2 ||
      dot.getRhsContractingDimensions().size() != 1 || !isFoldable(dot.getRhs()))
    return std::nullopt;
  auto [add, bias] = biasOf(dot, isFoldable);
  Projection p{dot, add, bias};
  if (!feedsAttention(p.result()))
    return std::nullopt;
  return p;
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
  // [..., P * N] -> [..., P, N]: the layout prim.attention's `parts` read in place.
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
  using Key = std::tuple<Value, Type, Attribute, Attribute, Type>;
  llvm::MapVector<Key, SmallVector<Projection>> groups;
  DominanceInfo dominance(func);
  func.walk([&](prim::DotGeneralOp dot) {
    std::optional<Projection> p = projectionOf(dot, isFoldable);
    if (!p)
      return;
    Key key{dot.getLhs(), dot.getRhs().getType(), dot.getLhsContractingDimensionsAttr(),
            dot.getRhsContractingDimensionsAttr(), p->bias ? p->bias.getType() : Type()};
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
