// The epilogue kernels that may join a GEMM step (GemmKernels.h lists their forms): read
// off a prim-level kernel function whose ops are exactly one of those forms, with every
// operand a kernel argument.
#ifndef PT2C_COMPILER_CODEGEN_DENSE_GEMMEPILOGUES_H_
#define PT2C_COMPILER_CODEGEN_DENSE_GEMMEPILOGUES_H_

#include <optional>

#include "compiler/codegen/dense/GemmKernels.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace pt2c {

std::optional<GemmEpilogueKernel> matchGemmEpilogue(mlir::func::FuncOp func);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_DENSE_GEMMEPILOGUES_H_
