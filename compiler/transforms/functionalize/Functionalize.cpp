// pt2c-functionalize: aten with in-place ops and views (reference semantics, as the
// exporter recorded it) -> aten and prim with value semantics only.
//
// Every tensor value is read as a reference: a root (a function argument or the result
// of an op that makes a new tensor) seen through a chain of view ops. The pass walks
// the function in order keeping each root's current value. An in-place op on a value
// becomes its functional form applied to the value's current contents; the new
// contents are then scattered back into the root through the inverse of the chain, and
// the root's version advances. Any later read of any alias of that root (the root, the
// written view, other views) gets a value regenerated from the root's current value by
// replaying its view chain (cached per root version, so unchanged tensors are read as
// they are). Writes to roots that are function arguments are checked against the
// write-back results the importer made (pt2c.writeback for module state,
// pt2c.input_writeback for user inputs); weights cannot be written.
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/decompose/PrimBuilder.h"
#include "compiler/transforms/functionalize/ViewScatter.h"
#include "ir/aten/AtenDialect.h"
#include "ir/aten/AtenDtypeRules.h"
#include "ir/contract/ModelContract.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringMap.h"

namespace pt2c {

#define GEN_PASS_DEF_FUNCTIONALIZEPASS
#include "compiler/transforms/Passes.h.inc"

namespace {

using namespace mlir;
using decompose::PrimBuilder;
using decompose::tensorType;

/// "aten.add_.Tensor" -> "aten.add.Tensor": ATen names every in-place variant this way.
/// An op is in-place if it mutates (is not Pure) and its name has that form.
std::optional<std::string> functionalName(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("aten.") || isMemoryEffectFree(op) || op->getNumOperands() == 0 ||
      op->getNumResults() != 1)
    return std::nullopt;
  auto [base, overload] = name.split('.');
  if (!base.ends_with("_") || base.ends_with("__"))
    return std::nullopt;
  std::string functional = ("aten." + base.drop_back()).str();
  if (!overload.empty())
    functional += ("." + overload).str();
  return functional;
}

/// transpose_, t_, unsqueeze_, squeeze_: in-place only in name, they change the sizes
/// and strides of the tensor, never its elements. The exporter names the tensor after
/// the call by the op's result, so the op is its view form (same operands and
/// attributes); this replaces it by that form and returns it, or returns null.
Operation *asViewForm(Operation *op, PatternRewriter &rewriter) {
  static const llvm::StringMap<StringRef> viewForms = {
      {"aten.transpose_", "aten.transpose.int"}, {"aten.t_", "aten.t"},
      {"aten.unsqueeze_", "aten.unsqueeze"},     {"aten.squeeze_", "aten.squeeze"},
      {"aten.squeeze_.dim", "aten.squeeze.dim"}, {"aten.squeeze_.dims", "aten.squeeze.dims"}};
  auto it = viewForms.find(op->getName().getStringRef());
  if (it == viewForms.end())
    return nullptr;
  auto name = RegisteredOperationName::lookup(it->second, op->getContext());
  if (!name)
    return nullptr;
  OperationState state(op->getLoc(), *name);
  state.addOperands(op->getOperands());
  state.addAttributes(op->getAttrs());
  state.addTypes(op->getResultTypes());
  Operation *view = rewriter.create(state);
  rewriter.replaceOp(op, view->getResults());
  return view;
}

/// A value seen as `root` through view ops: result `result` of each op, in order.
struct ViewStep {
  Operation *op;
  unsigned result;
  Value value() const { return op->getResult(result); }
};
struct Reference {
  Value root;
  SmallVector<ViewStep, 4> chain;
};

class Functionalizer {
public:
  explicit Functionalizer(func::FuncOp func) : func(func), rewriter(func.getContext()) {}

  LogicalResult run() {
    Block &body = func.getBody().front();
    for (BlockArgument arg : body.getArguments())
      addRoot(arg);
    for (Operation &op : llvm::make_early_inc_range(body)) {
      rewriter.setInsertionPoint(&op);
      LogicalResult done = success();
      if (Operation *view = asViewForm(&op, rewriter))
        recordView(view);
      else if (std::optional<std::string> functional = functionalName(&op))
        done = rewriteInPlace(&op, *functional);
      else if (functionalize::isViewOp(&op))
        recordView(&op);
      else
        readCurrentValues(&op);
      if (failed(done))
        return failure();
    }
    for (Operation *op : llvm::reverse(rewritten))
      op->erase();
    return success();
  }

private:
  void addRoot(Value value) {
    refs[value] = Reference{value, {}};
    current[value] = value;
  }

  /// Every tensor operand of `op` replaced by its alias's current value.
  void readCurrentValues(Operation *op) {
    for (OpOperand &operand : op->getOpOperands())
      operand.set(currentValue(operand.get()));
    for (Value result : op->getResults())
      addRoot(result);
  }

  void recordView(Operation *op) {
    // The parent's reference, before its operand becomes the parent's current value
    // (which may be a new value that only stands for the parent's contents now).
    if (!refs.count(op->getOperand(0))) // defined outside the body: a tensor of its own
      addRoot(op->getOperand(0));
    Reference parent = refs.lookup(op->getOperand(0));
    for (OpOperand &operand : op->getOpOperands())
      operand.set(currentValue(operand.get()));
    for (OpResult result : op->getResults()) {
      Reference ref = parent;
      ref.chain.push_back({op, result.getResultNumber()});
      refs[result] = ref;
      cache[result] = {version[ref.root], result};
    }
  }

  /// The value `value` has now: untracked values are themselves, roots their current
  /// value, views the replay of their chain on their parent's current value.
  Value currentValue(Value value) {
    auto it = refs.find(value);
    if (it == refs.end())
      return value;
    const Reference &ref = it->second;
    if (ref.chain.empty())
      return current.lookup(ref.root);
    unsigned now = version.lookup(ref.root);
    auto cached = cache.find(value);
    if (cached != cache.end() && cached->second.first == now)
      return cached->second.second;
    ViewStep last = ref.chain.back();
    Value parent = ref.chain.size() == 1 ? ref.root : ref.chain[ref.chain.size() - 2].value();
    Value parentNow = currentValue(parent);
    Operation *replay = rewriter.clone(*last.op);
    replay->setOperand(0, parentNow);
    Value result = replay->getResult(last.result);
    cache[value] = {now, result};
    return result;
  }

  LogicalResult rewriteInPlace(Operation *op, StringRef functional) {
    Value self = op->getOperand(0);
    if (!refs.count(self)) // defined outside the function body: a tensor of its own
      addRoot(self);
    Reference ref = refs.lookup(self);
    if (failed(checkWritable(op, ref.root)))
      return failure();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(currentValue(operand));

    PrimBuilder b(rewriter, op);
    Value updated = functionalForm(op, functional, operands, b);
    // The new contents of each view of the chain, innermost first, down to the root.
    Value contents = updated;
    for (size_t i = ref.chain.size(); i-- > 0 && !b.failed();) {
      Value parent = i == 0 ? ref.root : ref.chain[i - 1].value();
      contents = functionalize::scatterIntoParent(b, ref.chain[i].op, ref.chain[i].result,
                                                  currentValue(parent), contents);
    }
    if (b.failed())
      return op->emitError() << "cannot functionalize in-place " << op->getName() << ": "
                             << b.failureReason();
    current[ref.root] = contents;
    unsigned now = ++version[ref.root];
    for (Value alias : {self, Value(op->getResult(0))}) {
      refs[alias] = ref;
      cache[alias] = {now, updated};
    }
    rewritten.push_back(op);
    return success();
  }

  /// The value the in-place op leaves in its first operand, computed without writing.
  Value functionalForm(Operation *op, StringRef functional, ArrayRef<Value> operands,
                       PrimBuilder &b) {
    RankedTensorType type = tensorType(op->getResult(0));
    if (functional == "aten.copy") // copy_(self, src): src converted and broadcast
      return b.broadcastTo(b.convert(operands[1], type.getElementType()), type);
    auto name = RegisteredOperationName::lookup(functional, op->getContext());
    // ATen names a few in-place ops `X_.Tensor` whose functional form is the default
    // overload `X` (floor_divide_.Tensor -> floor_divide).
    if (!name && StringRef(functional).ends_with(".Tensor"))
      name = RegisteredOperationName::lookup(StringRef(functional).drop_back(7), op->getContext());
    if (!name)
      return b.fail("its functional form " + functional +
                    " is not an op of the aten "
                    "dialect (add it to ir/aten/aten_ops.txt)");
    OperationState state(op->getLoc(), *name);
    state.addOperands(operands);
    state.addAttributes(op->getAttrs());
    state.addTypes(type);
    Operation *functionalOp = rewriter.create(state);
    // PyTorch computes an in-place op in the promoted dtype and casts the result into
    // self (add_ of a f16 self and a f32 tensor adds in f32): so does the functional form.
    auto dtypes = aten::inferResultDtypes(functionalOp, /*diagnose=*/false);
    Type promoted = dtypes && succeeded(*dtypes) ? (**dtypes)[0] : Type();
    if (!promoted || promoted == type.getElementType())
      return functionalOp->getResult(0);
    functionalOp->getResult(0).setType(type.clone(promoted));
    return b.convert(functionalOp->getResult(0), type.getElementType());
  }

  /// Function arguments may be written only where a result writes them back. (An
  /// argument with no pt2c role, as in lit tests, has no caller to write back to.)
  LogicalResult checkWritable(Operation *op, Value root) {
    auto arg = dyn_cast<BlockArgument>(root);
    if (!arg)
      return success();
    unsigned i = arg.getArgNumber();
    auto writtenBack = [&](StringRef resultAttr, StringAttr name) {
      for (unsigned r = 0; r < func.getNumResults(); ++r)
        if (func.getResultAttr(r, resultAttr) == name)
          return true;
      return false;
    };
    if (auto fqn = weightFqn(func, i))
      return op->emitError() << "in-place " << op->getName() << " writes weight '" << fqn.getValue()
                             << "' (a parameter or constant tensor of the model); pt2c "
                                "compiles weights as constants and cannot keep such "
                                "changes: make it a buffer (register_buffer) or write "
                                "into a copy";
    // Module state and user inputs: the artifact lists those it writes, each with a
    // write-back result that names it.
    struct Role {
      StringAttr name;
      const char *writeback, *what;
    };
    for (Role role : {Role{stateFqn(func, i), kWritebackAttr, "buffer"},
                      Role{userInputName(func, i), kInputWritebackAttr, "input"}})
      if (role.name && !writtenBack(role.writeback, role.name))
        return op->emitError() << "in-place " << op->getName() << " writes " << role.what << " '"
                               << role.name.getValue() << "', which has no " << role.writeback
                               << " result: the artifact does not list the " << role.what
                               << " as mutated";
    return success();
  }

  func::FuncOp func;
  PatternRewriter rewriter;
  DenseMap<Value, Reference> refs;
  DenseMap<Value, Value> current;                    // root -> its contents now
  DenseMap<Value, unsigned> version;                 // root -> writes to it so far
  DenseMap<Value, std::pair<unsigned, Value>> cache; // view -> (root version, contents)
  SmallVector<Operation *> rewritten;
};

struct FunctionalizePass : impl::FunctionalizePassBase<FunctionalizePass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(Functionalizer(func).run()))
        return signalPassFailure();
  }
};

} // namespace

} // namespace pt2c
