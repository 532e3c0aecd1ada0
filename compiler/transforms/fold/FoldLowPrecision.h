// Batch norm folding for f16 and bf16 models. Their aten ops compute in f32 and round
// back (decompose/LowPrecision.cpp), so a convolution's batch norm reads
//   convert_T(add(mul(convert_f32(conv_T(x, W)), bcast(s)), bcast(t)))
// and a residual sum convert_T(add(convert_f32(a), convert_f32(b))). These rewrites give
// the f32 patterns of FoldScales.h and the convolution epilogues of the CUDA plan
// (ConvKernels.h) the same shapes as in an f32 model:
//   mul(convert_f32(p), bcast(s))  ->  convert_f32(p'), p' = p with W' = convert_T(
//                                      convert_f32(W) * bcast(s)) (p: conv or dot_general
//                                      of T, s varying along its output channels)
//   convert_T(op(convert_f32(a), convert_f32(b)))  ->  op_T(a, b)   (op: add, sub, mul)
//   convert_T(op(convert_f32(a), bcast(c)))        ->  op_T(a, bcast(convert_T(c)))
//                                                   (c weight-only)
// The first is exact: f32 carries at least twice T's precision plus two bits, so
// rounding the exact result to f32 and then to T gives T's rounding of it (and prim ops
// on T round once). The second rounds the constant c to T first: half a unit in T's last
// place of c, as small as what folding batch norm changes in f32 models.
#ifndef PT2C_COMPILER_TRANSFORMS_FOLD_FOLDLOWPRECISION_H_
#define PT2C_COMPILER_TRANSFORMS_FOLD_FOLDLOWPRECISION_H_

#include "mlir/IR/PatternMatch.h"

namespace pt2c::fold {

void populateLowPrecisionFoldingPatterns(mlir::RewritePatternSet &patterns);

} // namespace pt2c::fold

#endif // PT2C_COMPILER_TRANSFORMS_FOLD_FOLDLOWPRECISION_H_
