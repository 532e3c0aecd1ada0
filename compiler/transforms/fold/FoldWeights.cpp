#include "compiler/transforms/fold/FoldWeights.h"

#include "compiler/transforms/fold/CausalMask.h"
#include "compiler/transforms/fold/FoldLowPrecision.h"
#include "compiler/transforms/fold/FoldScales.h"
#include "compiler/transforms/fold/HostEvaluator.h"
#include "compiler/transforms/fold/MergeProjections.h"
#include "ir/contract/ModelContract.h"
#include "ir/contract/StorageBytes.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"

namespace pt2c {

#define GEN_PASS_DEF_FOLDWEIGHTSPASS
#include "compiler/transforms/Passes.h.inc"

namespace {

using namespace mlir;
using fold::HostTensor;

// Weight-only chains are short (a batch norm's is 5 ops); the bound keeps the check of
// a long activation chain cheap.
constexpr int kMaxDepth = 32;
// Values computed from constants at a cost (FunctionFolder::worthStoring) are stored up
// to this size: a 1024-position decoder's boolean attention mask.
constexpr int64_t kComputedBytes = int64_t(1) << 20;
// Evaluated values up to this size are kept for other derived weights that share them.
constexpr int64_t kCachedElements = int64_t(1) << 20;

// The value operands of `op` that decide whether it is constant: a broadcast's or a
// reshape's dynamic result sizes are shapes, not data.
OperandRange dataOperands(Operation *op) {
  if (isa<prim::BroadcastInDimOp, prim::ReshapeOp>(op))
    return op->getOperands().take_front(1);
  return op->getOperands();
}

// Ops a kernel would recompute at a real cost per element of a table it reads: a rotary
// embedding's cos and sin of positions times frequencies.
bool isTranscendental(Operation *op) {
  return isa<prim::ExpOp, prim::LogOp, prim::TanhOp, prim::ErfOp, prim::SigmoidOp, prim::CosOp,
             prim::SinOp, prim::TanOp, prim::PowOp, prim::Expm1Op, prim::Log1pOp, prim::Log2Op,
             prim::Log10Op>(op);
}

bool isWeightArgument(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || !arg.getOwner()->isEntryBlock())
    return false;
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return func && func.getArgAttr(arg.getArgNumber(), kWeightAttr);
}

bool weightOnly(Value v, int depth) {
  if (isWeightArgument(v))
    return true;
  Operation *op = v.getDefiningOp();
  if (!op || !fold::canEvaluate(op))
    return false;
  if (isa<prim::ConstantOp>(op))
    return true;
  if (depth >= kMaxDepth)
    return false;
  return llvm::all_of(dataOperands(op), [&](Value o) { return weightOnly(o, depth + 1); });
}

class FunctionFolder {
public:
  FunctionFolder(func::FuncOp func, int64_t maxElements, const WeightBytes &weightBytes)
      : func(func), maxElements(maxElements), weightBytes(weightBytes) {}

  void run() {
    findConstants();
    if (inFusedOpsModule(func) &&
        fold::mergeSiblingProjections(func, [&](Value v) { return constant.contains(v); })) {
      constant.clear();
      findConstants(); // the joined weights
    }
    dropSatisfiedGuards();
    SmallVector<Value> roots = chooseRoots();
    SmallVector<std::pair<Value, std::string>> folded;
    for (Value root : roots) {
      std::optional<HostTensor> t = evaluateRoot(root);
      if (t)
        folded.push_back({root, fold::tensorToBytes(*t)});
    }
    for (auto &[root, bytes] : folded)
      replaceByDerivedWeight(root, bytes);
    removeDeadCode();
  }

private:
  // The weight's bytes: its `pt2c.value`, else the artifact's.
  std::optional<HostTensor> loadWeight(BlockArgument arg) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      return std::nullopt;
    unsigned i = arg.getArgNumber();
    if (auto value = func.getArgAttrOfType<ElementsAttr>(i, kWeightValueAttr))
      return value.getType() == type ? fold::tensorFromAttr(value) : std::nullopt;
    auto fqn = weightFqn(func, i);
    if (!fqn || !weightBytes)
      return std::nullopt;
    std::optional<StringRef> bytes = weightBytes(fqn.getValue());
    if (!bytes)
      return std::nullopt;
    return fold::tensorFromBytes(type, ArrayRef<char>(bytes->data(), bytes->size()));
  }

  bool hasKnownBytes(BlockArgument arg) {
    unsigned i = arg.getArgNumber();
    if (func.getArgAttr(i, kWeightValueAttr))
      return true;
    auto fqn = weightFqn(func, i);
    return fqn && weightBytes && weightBytes(fqn.getValue()).has_value();
  }

  // The element count multiplied out with overflow checks: getNumElements() wraps for
  // the sizes a damaged artifact can declare, and a wrapped count would pass the bound
  // (the host evaluator then asked for an impossible vector: std::length_error).
  bool fitsBound(Value v) {
    if (!fold::isEvaluableType(v.getType()))
      return false;
    int64_t n = 1;
    for (int64_t size : cast<RankedTensorType>(v.getType()).getShape())
      if (size < 0 || __builtin_mul_overflow(n, size, &n) || n > maxElements)
        return false;
    return true;
  }

  // Constant: a weight with known bytes, or an evaluable op of constants.
  void findConstants() {
    for (BlockArgument arg : func.getArguments())
      if (isWeightArgument(arg) && fold::isEvaluableType(arg.getType()) && hasKnownBytes(arg))
        constant.insert(arg);
    for (Operation &op : func.front()) {
      if (!fold::canEvaluate(&op) || op.getNumResults() != 1 || !fitsBound(op.getResult(0)))
        continue;
      if (llvm::all_of(op.getOperands(), [&](Value o) { return constant.contains(o); }))
        constant.insert(op.getResult(0));
    }
  }

  // A guard whose value is a constant the traced value satisfies can never fail: checking
  // it would cost every GPU run a stream synchronization and a device-to-host copy (the
  // guards transformers' masks put on position ids are input-independent). It leaves the
  // function's results; one that does not hold stays, so every run reports it.
  void dropSatisfiedGuards() {
    Operation *ret = func.front().getTerminator();
    llvm::BitVector satisfied(func.getNumResults());
    for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
      auto guard = func.getResultAttrOfType<DictionaryAttr>(i, kGuardAttr);
      auto expected = guard ? guard.getAs<FloatAttr>("expected") : FloatAttr();
      if (!expected || !constant.contains(v))
        continue;
      std::optional<HostTensor> t = evaluateRoot(v);
      if (!t || t->numElements() != 1)
        continue;
      double actual = t->isFloat() ? t->floats[0] : static_cast<double>(t->ints[0]);
      if (actual == expected.getValueAsDouble())
        satisfied.set(i);
    }
    if (satisfied.none())
      return;
    ret->eraseOperands(satisfied);
    (void)func.eraseResults(satisfied);
  }

  // The constants to store: starting from those that run-time ops read, each value is
  // stored unless that is not worth it, in which case its op stays and its constant
  // operands are considered instead.
  SmallVector<Value> chooseRoots() {
    SmallVector<Value> worklist;
    for (Operation &op : func.front())
      if (op.getNumResults() != 1 || !constant.contains(op.getResult(0)))
        for (Value o : op.getOperands())
          if (constant.contains(o))
            worklist.push_back(o);
    std::reverse(worklist.begin(), worklist.end()); // pop in program order
    llvm::SetVector<Value> roots;
    DenseSet<Value> seen;
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      Operation *def = v.getDefiningOp();
      if (!def || isa<prim::ConstantOp>(def))
        continue; // already data
      if (worthStoring(v)) {
        roots.insert(v);
        continue;
      }
      for (Value o : llvm::reverse(def->getOperands()))
        if (constant.contains(o))
          worklist.push_back(o);
    }
    return roots.takeVector();
  }

  // Stored only if it is no bigger than the data it is computed from, or, up to
  // kComputedBytes, if computing it reads its inputs more than once per element (a
  // reduction, a windowed one, a gather, a product: the running sum under a decoder's
  // attention mask) or takes a transcendental function of them (a rotary table's cos and
  // sin). Not stored: a broadcast to an activation's shape (the kernel reading it
  // broadcasts for free) and a mere reshape of one weight (free at run time: the plan
  // aliases it).
  bool worthStoring(Value v) {
    if (auto b = v.getDefiningOp<prim::BroadcastInDimOp>();
        b && b.getType().getNumElements() > b.getOperand().getType().getNumElements())
      return false;
    Value base = v;
    while (auto r = base.getDefiningOp<prim::ReshapeOp>())
      base = r.getOperand();
    if (base != v && (isa<BlockArgument>(base) || base.getDefiningOp<prim::ConstantOp>()))
      return false;
    int64_t bytes = storageBytes(cast<RankedTensorType>(v.getType()));
    Sources sources = sourcesOf(v);
    return bytes <= sources.bytes || (sources.costly && bytes <= kComputedBytes);
  }

  struct Sources {
    int64_t bytes = 0;   // of the distinct weights and non-splat constants read
    bool costly = false; // an op on the way does more than one pass over its elements
  };

  Sources sourcesOf(Value v) {
    DenseSet<Value> seen;
    SmallVector<Value> stack{v};
    Sources sources;
    auto bytesOf = [](Type t) { return storageBytes(cast<RankedTensorType>(t)); };
    while (!stack.empty()) {
      Value x = stack.pop_back_val();
      if (!seen.insert(x).second)
        continue;
      Operation *def = x.getDefiningOp();
      if (!def) {
        sources.bytes += bytesOf(x.getType());
      } else if (auto c = dyn_cast<prim::ConstantOp>(def)) {
        auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
        if (!dense || !dense.isSplat())
          sources.bytes += bytesOf(x.getType());
      } else {
        sources.costly |=
            isa<prim::ReduceOp, prim::ReduceWindowOp, prim::GatherOp, prim::DotGeneralOp>(def) ||
            isTranscendental(def);
        for (Value o : def->getOperands())
          stack.push_back(o);
      }
    }
    return sources;
  }

  std::optional<HostTensor> evaluateRoot(Value root) {
    local.clear();
    return evaluateValue(root);
  }

  // Evaluates `v`, reusing small shared values; nullopt if some op cannot be evaluated
  // (its result is undefined, or a weight's bytes do not match its type).
  std::optional<HostTensor> evaluateValue(Value v) {
    if (auto it = cache.find(v); it != cache.end())
      return it->second;
    if (auto it = local.find(v); it != local.end())
      return it->second;
    std::optional<HostTensor> result;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      result = loadWeight(arg);
    } else {
      Operation *op = v.getDefiningOp();
      SmallVector<HostTensor> operands;
      for (Value o : op->getOperands()) {
        std::optional<HostTensor> t = evaluateValue(o);
        if (!t)
          return std::nullopt;
        operands.push_back(std::move(*t));
      }
      SmallVector<const HostTensor *> ptrs;
      for (const HostTensor &t : operands)
        ptrs.push_back(&t);
      result = fold::evaluate(op, ptrs);
    }
    if (!result)
      return std::nullopt;
    bool small = result->numElements() <= kCachedElements;
    (small ? cache : local)[v] = *result;
    return result;
  }

  void replaceByDerivedWeight(Value root, const std::string &bytes) {
    auto type = cast<RankedTensorType>(root.getType());
    std::string name = kDerivedWeightPrefix + std::to_string(derivedCount++);
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(bytes.data(), bytes.size()), 64);
    auto value = DenseResourceElementsAttr::get(type, "pt2c_fold", std::move(blob));
    MLIRContext *ctx = func.getContext();
    auto attrs = DictionaryAttr::get(
        ctx, {NamedAttribute(StringAttr::get(ctx, kWeightAttr), StringAttr::get(ctx, name)),
              NamedAttribute(StringAttr::get(ctx, kWeightValueAttr), value)});
    unsigned index = func.getNumArguments();
    func.insertArgument(index, type, attrs, root.getLoc());
    root.replaceAllUsesWith(func.getArgument(index));
  }

  // Ops left without users, then weights left without readers (not in the blob then).
  void removeDeadCode() {
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(func.front())))
      if (isOpTriviallyDead(&op))
        op.erase();
    llvm::BitVector unused(func.getNumArguments());
    for (BlockArgument arg : func.getArguments())
      if (isWeightArgument(arg) && arg.use_empty())
        unused.set(arg.getArgNumber());
    (void)func.eraseArguments(unused);
  }

  func::FuncOp func;
  int64_t maxElements;
  const WeightBytes &weightBytes;
  DenseSet<Value> constant;
  llvm::DenseMap<Value, HostTensor> cache, local;
  unsigned derivedCount = 0;
};

struct FoldWeightsPass : impl::FoldWeightsPassBase<FoldWeightsPass> {
  using FoldWeightsPassBase::FoldWeightsPassBase;
  FoldWeightsPass(WeightBytes weightBytes, const FoldWeightsPassOptions &options)
      : FoldWeightsPassBase(options), weightBytes(std::move(weightBytes)) {}

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    fold::populateScaleFoldingPatterns(patterns);
    fold::populateLowPrecisionFoldingPatterns(patterns);
    // Not converging within the driver's bound only leaves some scales unfolded.
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns));
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      fold::foldCausalMasks(func);
      FunctionFolder(func, maxElements, weightBytes).run();
    }
  }

  WeightBytes weightBytes;
};

} // namespace

bool isWeightOnly(Value v) { return weightOnly(v, 0); }

std::unique_ptr<Pass> createFoldWeightsPass(WeightBytes weightBytes,
                                            const FoldWeightsPassOptions &options) {
  return std::make_unique<FoldWeightsPass>(std::move(weightBytes), options);
}

} // namespace pt2c
