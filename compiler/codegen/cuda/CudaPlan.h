// The CUDA execution plan: the plan buildExecutionPlan made (one step per kernel
// function, on buffers that are inputs, outputs, weights, state or arena) with each step
// replaced by the GPU launches of its kernel function (LaunchTable), and the launched
// kernels as the plan's GPU kernel table (plan_format.h, PT2C_DEVICE_CUDA).
#ifndef PT2C_COMPILER_CODEGEN_CUDA_CUDAPLAN_H_
#define PT2C_COMPILER_CODEGEN_CUDA_CUDAPLAN_H_

#include "compiler/codegen/ExecutionPlan.h"
#include "compiler/codegen/cuda/LaunchTable.h"
#include "compiler/codegen/dense/LibrarySteps.h"
#include "llvm/Support/Error.h"

namespace pt2c {

// A kernel function's temporaries get arena space after everything the CPU-style plan
// placed, shared by all steps (each step's temporaries are dead when the step ends).
// GEMM and convolution kernels become library steps (cuBLASLt, cuDNN) with their launches
// as the fallback (dense/LibrarySteps.h).
// The result's `kernels` lists the GPU kernel names in kernel-table order. `device` is
// PT2C_DEVICE_CUDA or PT2C_DEVICE_ROCM: the plan is the same on both (the runtime serves
// library steps with cuBLASLt/cuDNN or hipBLASLt/MIOpen, or runs their fallbacks).
llvm::Expected<ExecutionPlan> expandPlanForGpu(const ExecutionPlan &plan,
                                               const LaunchTable &launches,
                                               const DenseKernels &dense, pt2c_device device);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_CUDAPLAN_H_
