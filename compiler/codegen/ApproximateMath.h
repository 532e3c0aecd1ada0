// pt2c-approximate-math: f32 math.exp, math.erf, math.tanh, math.log (and the other
// functions MLIR's polynomial approximations cover) become polynomial arithmetic instead
// of libm calls, so the loops around them vectorize: SiLU's exp, GELU's erf and softmax's
// exp were each one scalar libm call per element. MLIR's approximations are within a few
// ulp of libm over the f32 range and keep its special values (inf, NaN, under/overflow).
#ifndef PT2C_COMPILER_CODEGEN_APPROXIMATEMATH_H_
#define PT2C_COMPILER_CODEGEN_APPROXIMATEMATH_H_

#include "mlir/Pass/Pass.h"

namespace pt2c {

// The ROCm kernels use it too (with expand-pow): they link no device library.
#define GEN_PASS_DECL_APPROXIMATEMATHPASS
#include "compiler/codegen/Passes.h.inc"

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_APPROXIMATEMATH_H_
