// Layout sinking on the GPU (LayoutSinking.cpp): transposes move below the elementwise
// ops and concatenations that read them, so that attention or a GEMM can absorb them;
// reshapes below elementwise ops, so that those join their producer's kernel. Read by
// prim.transpose's canonicalization (PrimFolds.cpp), the slice-through-transpose rewrite
// (PrimIndexingOps.cpp) and pt2c-sink-reshapes (compiler/transforms/kernels).
#ifndef PT2C_IR_PRIM_LAYOUTSINKING_H_
#define PT2C_IR_PRIM_LAYOUTSINKING_H_

#include "mlir/IR/PatternMatch.h"

namespace pt2c::prim {

/// The transpose sinking rewrites, for modules marked pt2c.fused_ops.
void populateLayoutSinkingPatterns(mlir::RewritePatternSet &patterns);

/// The reshape sinking rewrite, for modules marked pt2c.fused_ops: run by
/// pt2c-sink-reshapes just before kernel formation, not by the canonicalizer, so that
/// weight folding has narrowed f16 math written as convert(f32 op) first (a reshape
/// between such an op and its conversions would keep it from narrowing).
void populateReshapeSinkingPatterns(mlir::RewritePatternSet &patterns);

/// Whether `user` lets a transpose of its operand sink below it.
bool sinksTransposes(mlir::Operation *user);

} // namespace pt2c::prim

#endif // PT2C_IR_PRIM_LAYOUTSINKING_H_
