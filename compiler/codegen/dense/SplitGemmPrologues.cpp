#include "compiler/codegen/dense/SplitGemmPrologues.h"

#include "ir/contract/ModelContract.h"
#include "ir/contract/StorageBytes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"

namespace pt2c {
namespace {

// The dot_general `func` returns when one operand is computed in `func` and the other is
// an argument; `computed` is 0 (lhs) or 1 (rhs). Likewise a convolution whose input (not
// filter) is computed: the previous layer's bias and ReLU (ConvKernels.h).
mlir::Operation *splittableDot(mlir::func::FuncOp func, unsigned &computed) {
  if (func.isExternal() || func.getNumResults() != 1)
    return nullptr;
  auto ret = llvm::dyn_cast<mlir::func::ReturnOp>(func.getBody().front().getTerminator());
  mlir::Operation *dot = ret ? ret.getOperand(0).getDefiningOp() : nullptr;
  bool isConv = dot && dot->getName().getStringRef() == "prim.convolution";
  if (!dot || (!isConv && dot->getName().getStringRef() != "prim.dot_general"))
    return nullptr;
  bool lhsArg = mlir::isa<mlir::BlockArgument>(dot->getOperand(0));
  bool rhsArg = mlir::isa<mlir::BlockArgument>(dot->getOperand(1));
  if (lhsArg == rhsArg)
    return nullptr; // nothing to split off, or two prologues
  computed = lhsArg ? 1 : 0;
  if (isConv && computed != 0)
    return nullptr;
  auto type = mlir::dyn_cast<mlir::RankedTensorType>(dot->getOperand(computed).getType());
  mlir::Type element = type ? type.getElementType() : mlir::Type();
  if (!type || !type.hasStaticShape() || !(element.isF32() || element.isF16() || element.isBF16()))
    return nullptr;
  // The dot must be the only user of the computed operand (else it is not a prologue).
  return dot->getOperand(computed).hasOneUse() ? dot : nullptr;
}

} // namespace

namespace {

// The prologue: `func` without `consumer`, returning the consumer's operand `computed`.
// Records its name and arguments in `split`.
mlir::func::FuncOp clonePrologue(mlir::func::FuncOp func, mlir::Operation *consumer,
                                 unsigned computed, mlir::OpBuilder &b, SplitKernel &split) {
  auto operandType = mlir::cast<mlir::RankedTensorType>(consumer->getOperand(computed).getType());
  // Its element's own width: an f64 or i64 operand is twice an f32 one (4 bytes here
  // gave such a prologue half the buffer it writes; the runtime's kernel-size check
  // found it).
  split.operandBytes = storageBytes(operandType);
  auto prologue = llvm::cast<mlir::func::FuncOp>(b.clone(*func));
  split.prologue = (func.getName() + "_prologue").str();
  prologue.setName(split.prologue);
  mlir::Operation *ret = prologue.getBody().front().getTerminator();
  mlir::Operation *clonedConsumer = ret->getOperand(0).getDefiningOp();
  ret->setOperand(0, clonedConsumer->getOperand(computed));
  clonedConsumer->erase();
  // What only the consumer used (a pooling window's initial value) goes with it.
  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation &op : prologue.getBody().front().without_terminator())
    ops.push_back(&op);
  for (mlir::Operation *op : llvm::reverse(ops)) // users before what they use
    if (op->use_empty() && mlir::isPure(op))
      op->erase();
  llvm::BitVector unused(prologue.getNumArguments());
  for (mlir::BlockArgument arg : prologue.getArguments()) {
    if (arg.use_empty())
      unused.set(arg.getArgNumber());
    else
      split.prologueArgs.push_back(arg.getArgNumber());
  }
  prologue.eraseArguments(unused);
  prologue.setType(b.getFunctionType(prologue.getArgumentTypes(), {operandType}));
  return prologue;
}

// A function named `name` of `argTypes` returning `func`'s results, with `func`'s
// attributes; the caller fills its entry block.
mlir::func::FuncOp createConsumer(mlir::func::FuncOp func, const std::string &name,
                                  mlir::TypeRange argTypes, mlir::OpBuilder &b) {
  auto consumer = b.create<mlir::func::FuncOp>(func.getLoc(), name,
                                               b.getFunctionType(argTypes, func.getResultTypes()));
  consumer.setPrivate();
  for (mlir::NamedAttribute attr : func->getDiscardableAttrs())
    consumer->setAttr(attr.getName(), attr.getValue());
  consumer.addEntryBlock();
  return consumer;
}

// The pooling window `func` returns when its input is computed in `func` from the
// arguments (a convolution's bias and ReLU fused into the max pooling after it), and its
// initial value is a constant.
mlir::Operation *splittablePooling(mlir::func::FuncOp func) {
  if (func.isExternal() || func.getNumResults() != 1)
    return nullptr;
  auto ret = llvm::dyn_cast<mlir::func::ReturnOp>(func.getBody().front().getTerminator());
  mlir::Operation *pool = ret ? ret.getOperand(0).getDefiningOp() : nullptr;
  if (!pool || pool->getName().getStringRef() != "prim.reduce_window" ||
      pool->getNumOperands() != 2 || pool->getNumResults() != 1)
    return nullptr;
  mlir::Operation *input = pool->getOperand(0).getDefiningOp();
  mlir::Operation *init = pool->getOperand(1).getDefiningOp();
  if (!input || !pool->getOperand(0).hasOneUse() || !init ||
      init->getName().getStringRef() != "prim.constant")
    return nullptr;
  auto type = mlir::dyn_cast<mlir::RankedTensorType>(pool->getOperand(0).getType());
  return type && type.hasStaticShape() ? pool : nullptr;
}

} // namespace

std::map<std::string, SplitKernel> splitGemmPrologues(mlir::ModuleOp kernels,
                                                      const SplitOptions &options) {
  std::map<std::string, SplitKernel> splits;
  mlir::SymbolTable symbols(kernels);
  llvm::SmallVector<mlir::func::FuncOp> funcs(kernels.getOps<mlir::func::FuncOp>());
  for (mlir::func::FuncOp func : funcs) {
    // Kernels of dynamic graphs get no library steps (those take static shapes), so a
    // split would only add a launch.
    if (func->hasAttr(kSymbolNamesAttr))
      continue;
    unsigned computed = 0;
    mlir::Operation *dot = splittableDot(func, computed);
    mlir::Operation *pool = !dot && options.poolingPrologues ? splittablePooling(func) : nullptr;
    if (!dot && !pool)
      continue;
    SplitKernel split;
    mlir::OpBuilder b(func);
    mlir::func::FuncOp prologue =
        clonePrologue(func, dot ? dot : pool, pool ? 0 : computed, b, split);
    mlir::func::FuncOp consumer;
    if (pool) {
      // The pooling: its window over its one argument, the initial value cloned in.
      split.gemmArgs = {-1};
      split.gemm = (func.getName() + "_pool").str();
      consumer = createConsumer(func, split.gemm, {pool->getOperand(0).getType()}, b);
      b.setInsertionPointToStart(&consumer.getBody().front());
      mlir::Operation *init = b.clone(*pool->getOperand(1).getDefiningOp());
      mlir::Operation *newPool = b.clone(*pool);
      newPool->setOperand(0, consumer.getArgument(0));
      newPool->setOperand(1, init->getResult(0));
      b.create<mlir::func::ReturnOp>(func.getLoc(), newPool->getResults());
    } else {
      // The GEMM (convolution): the product of its two arguments.
      unsigned otherArg =
          mlir::cast<mlir::BlockArgument>(dot->getOperand(1 - computed)).getArgNumber();
      split.gemmArgs = computed == 0 ? std::vector<int>{-1, static_cast<int>(otherArg)}
                                     : std::vector<int>{static_cast<int>(otherArg), -1};
      bool isConv = dot->getName().getStringRef() == "prim.convolution";
      split.gemm = (func.getName() + (isConv ? "_conv" : "_gemm")).str();
      consumer = createConsumer(func, split.gemm,
                                {dot->getOperand(0).getType(), dot->getOperand(1).getType()}, b);
      mlir::Block *body = &consumer.getBody().front();
      b.setInsertionPointToStart(body);
      mlir::Operation *newDot = b.clone(*dot);
      newDot->setOperand(0, body->getArgument(0));
      newDot->setOperand(1, body->getArgument(1));
      b.create<mlir::func::ReturnOp>(func.getLoc(), newDot->getResults());
    }
    symbols.insert(prologue);
    symbols.insert(consumer);
    splits[func.getName().str()] = split;
    symbols.erase(func);
  }
  return splits;
}

} // namespace pt2c
