#include "compiler/transforms/fold/CausalMask.h"

#include <cmath>

#include "compiler/transforms/fold/HostEvaluator.h"
#include "ir/contract/ModelContract.h"
#include "ir/prim/PrimDialect.h"

namespace pt2c::fold {
namespace {

using namespace mlir;

// Masks are [B or 1, H or 1, L, S]; 2048 x 2048 is the largest worth evaluating.
constexpr int64_t kMaxElements = int64_t(1) << 22;
constexpr int kMaxDepth = 64;

// Values computed from constants and derived weights (`pt2c.value`) alone.
class ConstantValues {
public:
  explicit ConstantValues(func::FuncOp func) : func(func) {}

  std::optional<HostTensor> evaluate(Value v, int depth = 0) {
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    std::optional<HostTensor> result = compute(v, depth);
    memo[v] = result;
    return result;
  }

private:
  std::optional<HostTensor> compute(Value v, int depth) {
    if (!isEvaluableType(v.getType()) || depth > kMaxDepth ||
        cast<RankedTensorType>(v.getType()).getNumElements() > kMaxElements)
      return std::nullopt;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->getParentOp() != func)
        return std::nullopt;
      auto value = func.getArgAttrOfType<ElementsAttr>(arg.getArgNumber(), kWeightValueAttr);
      if (!value || value.getType() != v.getType())
        return std::nullopt;
      return tensorFromAttr(value);
    }
    Operation *op = v.getDefiningOp();
    if (!canEvaluate(op) || op->getNumResults() != 1)
      return std::nullopt;
    SmallVector<HostTensor> operands;
    for (Value o : op->getOperands()) {
      std::optional<HostTensor> t = evaluate(o, depth + 1);
      if (!t)
        return std::nullopt;
      operands.push_back(std::move(*t));
    }
    SmallVector<const HostTensor *> ptrs;
    for (const HostTensor &t : operands)
      ptrs.push_back(&t);
    return fold::evaluate(op, ptrs);
  }

  func::FuncOp func;
  llvm::DenseMap<Value, std::optional<HostTensor>> memo;
};

// 0 where j <= i and -inf where j > i in every [L, S] slice (PrimOps.td's `causal`);
// a finite "large negative" value is not the same mask, so it is not taken.
bool isCausal(const HostTensor &bias, int64_t queries, int64_t keys) {
  llvm::ArrayRef<int64_t> shape = bias.type.getShape();
  if (!bias.isFloat() || shape.size() != 4 || shape[2] != queries || shape[3] != keys)
    return false;
  for (int64_t e = 0, n = bias.numElements(); e < n; ++e) {
    int64_t j = e % keys, i = (e / keys) % queries;
    double x = bias.floats[e];
    if (j <= i ? x != 0.0 : x != -INFINITY)
      return false;
  }
  return true;
}

} // namespace

void foldCausalMasks(func::FuncOp func) {
  ConstantValues constants(func);
  func.walk([&](prim::AttentionOp op) {
    if (!op.getBias() || op.getCausal())
      return;
    std::optional<HostTensor> bias = constants.evaluate(op.getBias());
    if (!bias || !isCausal(*bias, op.logicalShape(0)[2], op.logicalShape(1)[2]))
      return;
    op.getBiasMutable().clear();
    op.setCausal(true);
  });
}

} // namespace pt2c::fold
