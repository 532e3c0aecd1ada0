// Transpose sinking on the GPU (TransposeSinking.cpp): transposes move below the
// elementwise ops and concatenations that read them, so that attention or a GEMM can
// absorb them. Read by prim.transpose's canonicalization (PrimFolds.cpp) and by the
// slice-through-transpose rewrite (PrimIndexingOps.cpp).
#ifndef PT2C_IR_PRIM_TRANSPOSESINKING_H_
#define PT2C_IR_PRIM_TRANSPOSESINKING_H_

#include "mlir/IR/PatternMatch.h"

namespace pt2c::prim {

/// The sinking rewrites, for modules marked pt2c.fused_ops.
void populateTransposeSinkingPatterns(mlir::RewritePatternSet &patterns);

/// Whether `user` lets a transpose of its operand sink below it.
bool sinksTransposes(mlir::Operation *user);

} // namespace pt2c::prim

#endif // PT2C_IR_PRIM_TRANSPOSESINKING_H_
