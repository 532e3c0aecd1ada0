// Which data movement the GPU lowering computes elementwise (a declaration of its own so
// that the passes using it do not all rebuild with PrimDialect.h).
#ifndef PT2C_IR_PRIM_ELEMENTWISEONGPU_H_
#define PT2C_IR_PRIM_ELEMENTWISEONGPU_H_

#include "mlir/IR/Operation.h"

namespace pt2c::prim {

/// Data movement that the GPU lowering computes elementwise, in a module marked
/// pt2c.fused_ops (the CUDA pipeline): a concatenation of static parts (equal ones as
/// their stack, selected by its index; others each element read from its part) and a
/// slice read only by elementwise ops or such concatenations (read in place, no copy).
/// form-kernels fuses them like elementwise ops; lower/Indexing.cpp lowers them so
/// (rotary embeddings' rotate_half, a ViT's class token before its patches: one kernel).
bool isElementwiseOnGpu(mlir::Operation *op);

} // namespace pt2c::prim

#endif // PT2C_IR_PRIM_ELEMENTWISEONGPU_H_
