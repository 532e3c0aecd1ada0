// The MLIR half of ROCm code generation, the pipeline `pt2c-rocm-kernels-to-rocdl`: the
// same kernel lowering as CUDA's up to the gpu dialect (buildKernelsToGpuPipeline, without
// the tensor-core attention kernel, whose mma.sync is inline PTX), then @pt2c_kernels to
// the LLVM dialect with ROCDL intrinsics. Math functions become arithmetic and LLVM
// intrinsics the AMDGPU backend selects, so no device library (ocml) is linked.
#ifndef PT2C_COMPILER_CODEGEN_ROCM_ROCDLLOWERING_H_
#define PT2C_COMPILER_CODEGEN_ROCM_ROCDLLOWERING_H_

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace pt2c {

void buildRocmKernelsToRocdlPipeline(mlir::OpPassManager &pm);

void registerRocmKernelsToRocdlPipeline();

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_ROCM_ROCDLLOWERING_H_
