// In-place aten ops (relu_, add_.Tensor, hardswish_, ...) rewritten to their
// functional forms (relu, add.Tensor, ...), which the decompositions then handle.
//
// TEMPORARY, until pt2c has a real functionalization pass (DESIGN.md decision 4);
// delete this file and its populate call then. Under value semantics, `y = x.relu_()`
// can become `y = relu(x)` only if nothing reads x, or memory shared with x, after
// the mutation: the exporter names the mutated result afresh (later ops read `y`), but
// an op that still reads x, a view of x, or the tensor x is a view of would see the
// old value here and the new one in eager. Such graphs are rejected with an error
// naming the reader. Views are the ops whose schema returns `Tensor(a)` (an alias of
// an operand); their list is generated from ir/aten/aten_ops.txt (AtenViewOps.inc).
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

bool isViewOp(Operation *op) {
  static const llvm::StringSet<> views = {
#include "compiler/transforms/decompose/AtenViewOps.inc"
  };
  return views.contains(op->getName().getStringRef());
}

/// "aten.add_.Tensor" -> "aten.add.Tensor" when `op` mutates (is not Pure) and the
/// functional form is a registered op; ATen names every in-place variant this way.
std::optional<OperationName> functionalForm(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("aten.") || isMemoryEffectFree(op) || op->getNumResults() != 1 ||
      op->getNumOperands() == 0)
    return std::nullopt;
  auto [base, overload] = name.split('.');
  if (!base.ends_with("_") || base.ends_with("__"))
    return std::nullopt;
  std::string functional = ("aten." + base.drop_back()).str();
  if (!overload.empty())
    functional += ("." + overload).str();
  auto registered = RegisteredOperationName::lookup(functional, op->getContext());
  if (!registered)
    return std::nullopt;
  return OperationName(*registered);
}

/// The values that may share memory with `value`: its views, the tensors it is a view
/// of, and their views, transitively.
llvm::SetVector<Value> aliasesOf(Value value) {
  llvm::SetVector<Value> aliases;
  aliases.insert(value);
  for (size_t i = 0; i < aliases.size(); ++i) {
    Value v = aliases[i];
    if (Operation *def = v.getDefiningOp(); def && isViewOp(def) && def->getNumOperands())
      aliases.insert(def->getOperand(0));
    for (Operation *user : v.getUsers())
      if (isViewOp(user))
        for (Value r : user->getResults())
          aliases.insert(r);
  }
  return aliases;
}

/// An op after `inPlace` that reads the memory `inPlace` writes, if any.
Operation *laterReader(Operation *inPlace) {
  for (Value alias : aliasesOf(inPlace->getOperand(0)))
    for (Operation *user : alias.getUsers()) {
      if (user == inPlace || isViewOp(user))
        continue; // a view reads nothing; its readers are checked through it
      if (user->getBlock() != inPlace->getBlock() || inPlace->isBeforeInBlock(user))
        return user;
    }
  return nullptr;
}

struct InPlaceToFunctional : RewritePattern {
  explicit InPlaceToFunctional(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    std::optional<OperationName> functional = functionalForm(op);
    if (!functional)
      return failure();
    if (Operation *reader = laterReader(op)) {
      InFlightDiagnostic diag = op->emitError()
          << "in-place " << op->getName() << " modifies a tensor that "
          << reader->getName()
          << " reads afterwards (directly or through a view); pt2c supports in-place "
             "ops only on tensors nothing reads after the write, until it has "
             "functionalization";
      diag.attachNote(reader->getLoc()) << "the later reader";
      return failure();
    }
    OperationState state(op->getLoc(), *functional);
    state.addOperands(op->getOperands());
    state.addAttributes(op->getAttrs());
    state.addTypes(op->getResultTypes());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

} // namespace

void populateInPlaceOpRewrites(RewritePatternSet &patterns) {
  patterns.add<InPlaceToFunctional>(patterns.getContext());
}

} // namespace pt2c::decompose
