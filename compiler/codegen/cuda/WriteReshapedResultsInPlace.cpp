// pt2c-write-reshaped-results-in-place: see Passes.td. buffer-results-to-out-params
// hoists a returned allocation into its out-param, but not one returned through a
// reshape; there it copies, and on the GPU every copy is a launch.
#include "compiler/codegen/cuda/GpuPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace pt2c {

#define GEN_PASS_DEF_WRITERESHAPEDRESULTSINPLACEPASS
#include "compiler/codegen/cuda/Passes.h.inc"

namespace {

// Whether every use of `v` other than `last` (and of the views of it that `reshape` is)
// comes before `last` in its block.
bool usedOnlyBefore(mlir::Value v, mlir::Operation *reshape, mlir::Operation *last) {
  for (mlir::Operation *user : v.getUsers()) {
    if (user == reshape)
      continue;
    mlir::Operation *top = last->getBlock()->findAncestorOpInBlock(*user);
    if (!top || !top->isBeforeInBlock(last))
      return false;
  }
  for (mlir::Operation *user : reshape->getResult(0).getUsers())
    if (user != last)
      return false;
  return true;
}

// Rewrites one `memref.copy (reshape %alloc), %out`; false where it does not apply.
bool writeInPlace(mlir::memref::CopyOp copy, mlir::func::FuncOp func) {
  auto out = mlir::dyn_cast<mlir::BlockArgument>(copy.getTarget());
  if (!out || out.getOwner() != &func.front() || !out.hasOneUse())
    return false;
  mlir::Operation *reshape = copy.getSource().getDefiningOp();
  if (!reshape || !mlir::isa<mlir::memref::CollapseShapeOp, mlir::memref::ExpandShapeOp>(reshape))
    return false;
  auto alloc = reshape->getOperand(0).getDefiningOp<mlir::memref::AllocOp>();
  if (!alloc || alloc->getBlock() != copy->getBlock() || !alloc.getType().hasStaticShape() ||
      !alloc.getType().getLayout().isIdentity() ||
      !mlir::cast<mlir::MemRefType>(out.getType()).getLayout().isIdentity() ||
      !usedOnlyBefore(alloc.getResult(), reshape, copy))
    return false;
  mlir::OpBuilder b(alloc);
  mlir::Value inPlace;
  if (auto collapse = mlir::dyn_cast<mlir::memref::CollapseShapeOp>(reshape))
    inPlace = b.create<mlir::memref::ExpandShapeOp>(alloc.getLoc(), alloc.getType(), out,
                                                    collapse.getReassociationIndices());
  else
    inPlace = b.create<mlir::memref::CollapseShapeOp>(
        alloc.getLoc(), out,
        mlir::cast<mlir::memref::ExpandShapeOp>(reshape).getReassociationIndices());
  if (inPlace.getType() != alloc.getType()) {
    inPlace.getDefiningOp()->erase();
    return false;
  }
  copy.erase();
  reshape->erase();
  alloc.replaceAllUsesWith(inPlace);
  alloc.erase();
  return true;
}

struct WriteReshapedResultsInPlacePass
    : impl::WriteReshapedResultsInPlacePassBase<WriteReshapedResultsInPlacePass> {
  void runOnOperation() override {
    mlir::func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    llvm::SmallVector<mlir::memref::CopyOp> copies;
    for (auto copy : func.front().getOps<mlir::memref::CopyOp>())
      copies.push_back(copy);
    for (mlir::memref::CopyOp copy : copies)
      writeInPlace(copy, func);
  }
};

} // namespace
} // namespace pt2c
