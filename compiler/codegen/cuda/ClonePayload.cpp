#include "compiler/codegen/cuda/ClonePayload.h"

namespace pt2c {

void clonePayload(mlir::OpBuilder &b, mlir::linalg::GenericOp generic,
                  llvm::ArrayRef<mlir::Value> ivs, mlir::IRMapping &mapping,
                  mlir::Operation *skip) {
  for (mlir::Operation &op : generic.getBody()->without_terminator()) {
    if (&op == skip)
      continue;
    if (auto index = llvm::dyn_cast<mlir::linalg::IndexOp>(op))
      mapping.map(index.getResult(), ivs[index.getDim()]);
    else
      b.clone(op, mapping);
  }
}

} // namespace pt2c
