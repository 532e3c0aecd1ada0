// The passes pt2c adds to upstream MLIR's GPU lowering (compiler/codegen/cuda): where
// each loop nest of a kernel function runs on the GPU, what a launch computes itself,
// pt2c's fused kernels and the one gpu.module of the fatbin. Passes.td describes each.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_GPUPASSES_H_
#define PT2C_COMPILER_CODEGEN_CUDA_GPUPASSES_H_

#include <cstdint>
#include <memory>

#include "mlir/Pass/Pass.h"

namespace pt2c {

// The name of the one gpu.module pt2c-merge-gpu-modules leaves in the module.
constexpr char kGpuModuleName[] = "pt2c_kernels";

#define GEN_PASS_DECL
#include "compiler/codegen/cuda/Passes.h.inc"

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_GPUPASSES_H_
