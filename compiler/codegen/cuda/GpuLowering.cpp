#include "compiler/codegen/cuda/GpuLowering.h"

#include "compiler/codegen/BufferizeKernels.h"
#include "compiler/codegen/cuda/GpuPasses.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace pt2c {

void buildKernelsToGpuPipeline(mlir::OpPassManager &pm, const GpuLoweringOptions &options) {
  LowerFusedOpsToGpuPassOptions fused;
  fused.tensorCores = options.tensorCores;
  fused.smCount = options.smCount;
  pm.addPass(createLowerFusedOpsToGpuPass(fused));
  // No deallocations after bufferization: the host code is never run; its allocations
  // become arena buffers of the plan.
  buildBufferizeKernelsPipeline(pm, [](mlir::OpPassManager &fused) {
    fused.addNestedPass<mlir::func::FuncOp>(createRecomputeAtExtractsPass());
  });
  pm.addNestedPass<mlir::func::FuncOp>(createWriteReshapedResultsInPlacePass());
  // Kernels of dynamic graphs: buffers at the symbols' maxima, sizes read on the GPU.
  pm.addPass(createBoundDynamicBuffersPass());
  // Reductions over many elements to launches of their own, the rest to parallel loops,
  // one launch per top-level loop nest; then the launches to outlined kernels. No
  // canonicalization between the loop mapping and convert-parallel-loops-to-gpu: it
  // would merge the block and thread loops and drop their mapping.
  pm.addNestedPass<mlir::func::FuncOp>(createMapRowReductionsToGpuPass());
  pm.addNestedPass<mlir::func::FuncOp>(mlir::createConvertLinalgToParallelLoopsPass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addNestedPass<mlir::func::FuncOp>(createMapParallelLoopsToGpuPass());
  pm.addNestedPass<mlir::func::FuncOp>(mlir::createParallelLoopToGpuPass());
  pm.addNestedPass<mlir::func::FuncOp>(createSinkIntoGpuLaunchesPass());
  pm.addNestedPass<mlir::func::FuncOp>(createLoadGpuSymbolsPass());
  // A kernel function's small launches (a decode step's) as one: launch latency is
  // their whole cost.
  pm.addNestedPass<mlir::func::FuncOp>(createMergeSmallGpuLaunchesPass());
  pm.addPass(mlir::createGpuKernelOutliningPass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(createMergeGpuModulesPass());
}

void addGpuKernelPreparation(mlir::OpPassManager &kernels) {
  kernels.addPass(mlir::memref::createExpandStridedMetadataPass());
  kernels.addPass(mlir::createLowerAffinePass());
  kernels.addPass(mlir::arith::createArithExpandOpsPass());
  kernels.addPass(mlir::createConvertSCFToCFPass());
}

void buildCudaKernelsToNvvmPipeline(mlir::OpPassManager &pm) {
  buildKernelsToGpuPipeline(pm, GpuLoweringOptions{});
  // The kernels to the LLVM dialect with NVVM intrinsics. Memref parameters become bare
  // pointers (shapes are static), so that a launch's parameters are device addresses;
  // math ops on floats become libdevice calls (__nv_erff, ...), linked in by
  // PtxCompiler; the math ops convert-gpu-to-nvvm leaves (math.absi of T5's position
  // buckets) become LLVM intrinsics, which the NVPTX backend selects.
  mlir::OpPassManager &kernels = pm.nest<mlir::gpu::GPUModuleOp>();
  addGpuKernelPreparation(kernels);
  mlir::ConvertGpuOpsToNVVMOpsOptions toNvvm;
  toNvvm.indexBitwidth = 64;
  toNvvm.useBarePtrCallConv = true;
  kernels.addPass(mlir::createConvertGpuOpsToNVVMOps(toNvvm));
  kernels.addPass(mlir::createConvertMathToLLVMPass());
  kernels.addPass(mlir::createCanonicalizerPass());
  kernels.addPass(mlir::createCSEPass());
  kernels.addPass(mlir::createReconcileUnrealizedCastsPass());
}

void registerCudaKernelsToNvvmPipeline() {
  static mlir::PassPipelineRegistration<> registration(
      "pt2c-cuda-kernels-to-nvvm",
      "pt2c's CUDA kernel lowering: prim kernels -> buffers -> GPU launches of kernels in "
      "one gpu.module of NVVM-ready LLVM dialect, as `pt2c --target cuda` runs it",
      buildCudaKernelsToNvvmPipeline);
}

mlir::LogicalResult runKernelPipeline(mlir::ModuleOp kernels,
                                      llvm::function_ref<void(mlir::OpPassManager &)> build) {
  mlir::PassManager pm(kernels->getName());
  build(pm);
  return pm.run(kernels);
}

mlir::LogicalResult lowerKernelsToGpu(mlir::ModuleOp kernels) {
  return runKernelPipeline(kernels, buildCudaKernelsToNvvmPipeline);
}

} // namespace pt2c
