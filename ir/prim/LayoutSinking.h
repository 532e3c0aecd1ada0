// Layout sinking on the GPU (LayoutSinking.cpp): transposes move below the elementwise
// ops and concatenations that read them, so that attention or a GEMM can absorb them;
// reshapes below elementwise ops, so that those join their producer's kernel. Read by
// prim.transpose's canonicalization (PrimFolds.cpp) and by the slice-through-transpose rewrite
// (PrimIndexingOps.cpp).
#ifndef PT2C_IR_PRIM_LAYOUTSINKING_H_
#define PT2C_IR_PRIM_LAYOUTSINKING_H_

#include "mlir/IR/PatternMatch.h"

namespace pt2c::prim {

/// The sinking rewrites, for modules marked pt2c.fused_ops.
void populateLayoutSinkingPatterns(mlir::RewritePatternSet &patterns);

/// Whether `user` lets a transpose of its operand sink below it.
bool sinksTransposes(mlir::Operation *user);

} // namespace pt2c::prim

#endif // PT2C_IR_PRIM_LAYOUTSINKING_H_
