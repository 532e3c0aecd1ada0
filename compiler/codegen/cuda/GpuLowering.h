// The MLIR half of CUDA code generation: kernel functions (prim ops on tensors, as
// pt2c-form-kernels outlined them) -> host functions that only allocate temporaries and
// launch GPU kernels, plus one gpu.module of NVVM-ready LLVM-dialect kernels.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_GPULOWERING_H_
#define PT2C_COMPILER_CODEGEN_CUDA_GPULOWERING_H_

#include "mlir/IR/BuiltinOps.h"

namespace pt2c {

// The name of the one gpu.module lowerKernelsToGpu leaves in the module.
constexpr char kGpuModuleName[] = "pt2c_kernels";

// Lowers `kernels` in place. Afterwards each kernel function takes its buffers as
// memrefs (inputs, then its results as out-params) and holds memref.alloc (temporaries),
// gpu.launch_func on @pt2c_kernels::@<name> with constant grid and block sizes and memref
// arguments (its own arguments or temporaries), constants and a return. @pt2c_kernels
// holds llvm.func kernels whose parameters are bare pointers, one per memref.
mlir::LogicalResult lowerKernelsToGpu(mlir::ModuleOp kernels);

}  // namespace pt2c

#endif  // PT2C_COMPILER_CODEGEN_CUDA_GPULOWERING_H_
