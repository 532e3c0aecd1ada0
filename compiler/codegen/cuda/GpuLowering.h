// The MLIR half of CUDA code generation, the pipeline `pt2c-cuda-kernels-to-nvvm`: kernel
// functions (prim ops on tensors, as pt2c-form-kernels outlined them) -> host functions
// that only allocate temporaries and launch GPU kernels, plus one gpu.module of
// NVVM-ready LLVM-dialect kernels. The driver runs it (lowerKernelsToGpu) as lit tests
// name it in pt2c-opt.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_GPULOWERING_H_
#define PT2C_COMPILER_CODEGEN_CUDA_GPULOWERING_H_

#include "compiler/codegen/cuda/GpuPasses.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace pt2c {

// What differs between the GPU targets before their dialect conversion.
struct GpuLoweringOptions {
  // The NVIDIA tensor-core attention kernel (inline PTX); off for ROCm.
  bool tensorCores = true;
  // The multiprocessors the attention kernels size their grids for (pt2c-lower-fused-
  // ops-to-gpu's sm-count): an H100's, which the other targets' parts come near.
  int64_t smCount = 132;
};

// The part every GPU target shares (CUDA here, ROCm in compiler/codegen/rocm), anchored on
// builtin.module: pt2c-lower-fused-ops-to-gpu, pt2c-bufferize-kernels
// (BufferizeKernels.h), the loop nests to launches of outlined kernels,
// pt2c-merge-gpu-modules. The kernels of @pt2c_kernels are still gpu/scf/arith/memref.
void buildKernelsToGpuPipeline(mlir::OpPassManager &pm, const GpuLoweringOptions &options);

// The passes on @pt2c_kernels every target's conversion to LLVM starts with (strided
// metadata, affine, arith expansion, scf to cf).
void addGpuKernelPreparation(mlir::OpPassManager &kernels);

// buildKernelsToGpuPipeline, then the kernels to NVVM.
void buildCudaKernelsToNvvmPipeline(mlir::OpPassManager &pm);

void registerCudaKernelsToNvvmPipeline();

// Lowers `kernels` in place. Afterwards each kernel function takes its buffers as
// memrefs (inputs, then its results as out-params) and holds memref.alloc (temporaries),
// gpu.launch_func on @pt2c_kernels::@<name> (kGpuModuleName) with constant grid and
// block sizes and memref arguments (its own arguments or temporaries), constants and a
// return. @pt2c_kernels holds llvm.func kernels whose parameters are bare pointers, one
// per memref.
mlir::LogicalResult lowerKernelsToGpu(mlir::ModuleOp kernels);

// Runs the pipeline `build` adds on `kernels` (lowerKernelsToGpu with CUDA's).
mlir::LogicalResult runKernelPipeline(mlir::ModuleOp kernels,
                                      llvm::function_ref<void(mlir::OpPassManager &)> build);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_GPULOWERING_H_
