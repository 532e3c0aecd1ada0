// pt2c-select-minmax (CPU): arith.maximumf / minimumf become a compare and a select,
// `x > y || isnan(x) ? x : y`, which is what PyTorch's CPU kernels compute (NaN wins; of
// two zeros the first). LLVM expands llvm.maximum on x86 into a sign test, two blends, a
// max and an unordered compare per element, which made ReLU and max pooling several times
// slower than the select form, and kept the loops from vectorizing well.
#ifndef PT2C_COMPILER_CODEGEN_SELECTMINMAX_H_
#define PT2C_COMPILER_CODEGEN_SELECTMINMAX_H_

#include "mlir/Pass/Pass.h"

namespace pt2c {

#define GEN_PASS_DECL_SELECTMINMAXPASS
#include "compiler/codegen/Passes.h.inc"

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_SELECTMINMAX_H_
