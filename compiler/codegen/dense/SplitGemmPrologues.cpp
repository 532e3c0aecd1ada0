#include "compiler/codegen/dense/SplitGemmPrologues.h"

#include "llvm/ADT/BitVector.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"

namespace pt2c {
namespace {

// The dot_general `func` returns when one operand is computed in `func` and the other is
// an argument; `computed` is 0 (lhs) or 1 (rhs). Likewise a convolution whose input (not
// filter) is computed: the previous layer's bias and ReLU (ConvKernels.h).
mlir::Operation* splittableDot(mlir::func::FuncOp func, unsigned& computed) {
  if (func.isExternal() || func.getNumResults() != 1) return nullptr;
  auto ret = llvm::dyn_cast<mlir::func::ReturnOp>(func.getBody().front().getTerminator());
  mlir::Operation* dot = ret ? ret.getOperand(0).getDefiningOp() : nullptr;
  bool isConv = dot && dot->getName().getStringRef() == "prim.convolution";
  if (!dot || (!isConv && dot->getName().getStringRef() != "prim.dot_general")) return nullptr;
  bool lhsArg = mlir::isa<mlir::BlockArgument>(dot->getOperand(0));
  bool rhsArg = mlir::isa<mlir::BlockArgument>(dot->getOperand(1));
  if (lhsArg == rhsArg) return nullptr;  // nothing to split off, or two prologues
  computed = lhsArg ? 1 : 0;
  if (isConv && computed != 0) return nullptr;
  auto type = mlir::dyn_cast<mlir::RankedTensorType>(dot->getOperand(computed).getType());
  mlir::Type element = type ? type.getElementType() : mlir::Type();
  if (!type || !type.hasStaticShape() || !(element.isF32() || element.isF16() || element.isBF16()))
    return nullptr;
  // The dot must be the only user of the computed operand (else it is not a prologue).
  return dot->getOperand(computed).hasOneUse() ? dot : nullptr;
}

}  // namespace

std::map<std::string, SplitKernel> splitGemmPrologues(mlir::ModuleOp kernels) {
  std::map<std::string, SplitKernel> splits;
  mlir::SymbolTable symbols(kernels);
  llvm::SmallVector<mlir::func::FuncOp> funcs(kernels.getOps<mlir::func::FuncOp>());
  for (mlir::func::FuncOp func : funcs) {
    unsigned computed = 0;
    mlir::Operation* dot = splittableDot(func, computed);
    if (!dot) continue;
    SplitKernel split;
    mlir::Value operand = dot->getOperand(computed);
    auto operandType = mlir::cast<mlir::RankedTensorType>(operand.getType());
    split.operandBytes = operandType.getNumElements() * 4;
    unsigned otherArg = mlir::cast<mlir::BlockArgument>(dot->getOperand(1 - computed)).getArgNumber();
    split.gemmArgs = computed == 0 ? std::vector<int>{-1, static_cast<int>(otherArg)}
                                   : std::vector<int>{static_cast<int>(otherArg), -1};
    mlir::OpBuilder b(func);

    // The prologue: the function without its dot, returning the operand.
    auto prologue = llvm::cast<mlir::func::FuncOp>(b.clone(*func));
    split.prologue = (func.getName() + "_prologue").str();
    prologue.setName(split.prologue);
    mlir::Operation* ret = prologue.getBody().front().getTerminator();
    mlir::Operation* clonedDot = ret->getOperand(0).getDefiningOp();
    ret->setOperand(0, clonedDot->getOperand(computed));
    clonedDot->erase();
    llvm::BitVector unused(prologue.getNumArguments());
    for (mlir::BlockArgument arg : prologue.getArguments()) {
      if (arg.use_empty()) unused.set(arg.getArgNumber());
      else split.prologueArgs.push_back(arg.getArgNumber());
    }
    prologue.eraseArguments(unused);
    prologue.setType(b.getFunctionType(prologue.getArgumentTypes(), {operandType}));

    // The GEMM: dot_general of its two arguments.
    mlir::Type lhsType = dot->getOperand(0).getType(), rhsType = dot->getOperand(1).getType();
    bool isConv = dot->getName().getStringRef() == "prim.convolution";
    split.gemm = (func.getName() + (isConv ? "_conv" : "_gemm")).str();
    auto gemm = b.create<mlir::func::FuncOp>(
        func.getLoc(), split.gemm, b.getFunctionType({lhsType, rhsType}, func.getResultTypes()));
    gemm.setPrivate();
    for (mlir::NamedAttribute attr : func->getDiscardableAttrs())
      gemm->setAttr(attr.getName(), attr.getValue());
    mlir::Block* body = gemm.addEntryBlock();
    b.setInsertionPointToStart(body);
    mlir::Operation* newDot = b.clone(*dot);
    newDot->setOperand(0, body->getArgument(0));
    newDot->setOperand(1, body->getArgument(1));
    b.create<mlir::func::ReturnOp>(func.getLoc(), newDot->getResults());

    symbols.insert(prologue);
    symbols.insert(gemm);
    splits[func.getName().str()] = split;
    symbols.erase(func);
  }
  return splits;
}

}  // namespace pt2c
