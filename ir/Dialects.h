// One place that knows every dialect and interface a pt2c compilation needs, so that
// the driver, pt2c-opt and tests build the same MLIRContext.
#ifndef PT2C_IR_DIALECTS_H
#define PT2C_IR_DIALECTS_H

#include "mlir/IR/DialectRegistry.h"

namespace pt2c {

/// Registers aten, prim and the upstream dialects the CPU pipeline goes through (func,
/// arith, math, linalg, tensor, memref, scf, cf, bufferization, affine, index, LLVM),
/// their bufferization/deallocation external models, the convert-to-llvm interfaces
/// and the LLVM IR translations.
void registerAllDialects(mlir::DialectRegistry &registry);

} // namespace pt2c

#endif // PT2C_IR_DIALECTS_H
