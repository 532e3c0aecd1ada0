// aten.convolution with transposed = true (ConvTranspose1d/2d/3d) as prim ops.
#ifndef PT2C_COMPILER_TRANSFORMS_DECOMPOSE_TRANSPOSEDCONVOLUTION_H
#define PT2C_COMPILER_TRANSFORMS_DECOMPOSE_TRANSPOSEDCONVOLUTION_H

#include "compiler/transforms/decompose/PrimBuilder.h"
#include "ir/aten/AtenDialect.h"

namespace pt2c::decompose {

/// The transposed convolution `op` (bias included) in prim ops; fails through `b` where
/// it does not apply.
mlir::Value transposedConvolution(aten::ConvolutionOp op, PrimBuilder &b);

} // namespace pt2c::decompose

#endif // PT2C_COMPILER_TRANSFORMS_DECOMPOSE_TRANSPOSEDCONVOLUTION_H
