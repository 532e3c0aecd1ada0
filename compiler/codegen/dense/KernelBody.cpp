#include "compiler/codegen/dense/KernelBody.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "pt2c/plan_format.h"

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

std::optional<uint32_t> gemmDtype(mlir::Type elementType) {
  if (elementType.isF32())
    return PT2C_F32;
  if (elementType.isF16())
    return PT2C_F16;
  if (elementType.isBF16())
    return PT2C_BF16;
  return std::nullopt;
}

std::optional<llvm::ArrayRef<int64_t>> gemmShape(mlir::Value value) {
  auto type = mlir::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !gemmDtype(type.getElementType()))
    return std::nullopt;
  return type.getShape();
}

uint64_t elementCount(llvm::ArrayRef<int64_t> dims) {
  uint64_t count = 1;
  for (int64_t d : dims)
    count *= static_cast<uint64_t>(d);
  return count;
}

bool is(mlir::Operation *op, llvm::StringRef name) {
  return op && op->getName().getStringRef() == name;
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
