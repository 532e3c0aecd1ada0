// The largest value index arithmetic of a dynamic kernel can take: the GPU lowering
// sizes buffers and launch grids of kernels with dynamic dimensions at these bounds
// (blocks past the run's actual extent exit at the loop guard), so that launches and
// memory stay fixed from run to run and one CUDA graph serves every size.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_DYNAMICBOUNDS_H_
#define PT2C_COMPILER_CODEGEN_CUDA_DYNAMICBOUNDS_H_

#include <cstdint>
#include <optional>

#include "ir/symbolic/SymbolicIR.h"
#include "mlir/IR/Value.h"

namespace pt2c {

// An upper bound of integer or index value `v` over the symbols' ranges (prim.symbol
// `i` in ranges[i]), by interval arithmetic over the arith, affine and memref.dim ops
// that compute sizes; std::nullopt when `v` depends on anything else (a loaded value)
// or the arithmetic overflows.
std::optional<int64_t> upperBound(mlir::Value v, llvm::ArrayRef<sym::SymbolRange> ranges);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_DYNAMICBOUNDS_H_
