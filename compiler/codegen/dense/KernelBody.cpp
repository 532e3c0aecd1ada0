#include "compiler/codegen/dense/KernelBody.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace pt2c::dense {

std::optional<std::pair<llvm::SmallVector<mlir::Operation *>, mlir::Value>>
body(mlir::func::FuncOp func) {
  if (func.getBody().getBlocks().size() != 1 || func.getNumResults() != 1)
    return std::nullopt;
  auto ret = mlir::dyn_cast<mlir::func::ReturnOp>(func.getBody().front().getTerminator());
  if (!ret || ret.getNumOperands() != 1)
    return std::nullopt;
  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation &op : func.getBody().front().without_terminator())
    ops.push_back(&op);
  return std::make_pair(ops, ret.getOperand(0));
}

int argumentIndex(mlir::func::FuncOp func, mlir::Value value) {
  auto arg = mlir::dyn_cast<mlir::BlockArgument>(value);
  return arg && arg.getOwner() == &func.getBody().front() ? arg.getArgNumber() : -1;
}

llvm::ArrayRef<int64_t> i64Array(mlir::Operation *op, llvm::StringRef name) {
  auto attr = op->getAttrOfType<mlir::DenseI64ArrayAttr>(name);
  return attr ? attr.asArrayRef() : llvm::ArrayRef<int64_t>();
}

bool isPositiveZeroFloatSplat(mlir::Value value) {
  mlir::Operation *op = value.getDefiningOp();
  if (!op || op->getName().getStringRef() != "prim.constant")
    return false;
  auto attr = op->getAttrOfType<mlir::DenseElementsAttr>("value");
  return attr && attr.isSplat() && mlir::isa<mlir::FloatType>(attr.getElementType()) &&
         attr.getSplatValue<llvm::APFloat>().isPosZero();
}

} // namespace pt2c::dense
