#include "compiler/codegen/cuda/GpuLowering.h"

#include "compiler/codegen/LoweringPipelines.h"
#include "compiler/codegen/cuda/GpuPasses.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace pt2c {
namespace {

// The kernels to the LLVM dialect with NVVM intrinsics. Memref parameters become bare
// pointers (shapes are static), so that a launch's parameters are device addresses; math
// ops on floats become libdevice calls (__nv_erff, ...), linked in by PtxCompiler; the
// math ops convert-gpu-to-nvvm leaves (math.absi of T5's position buckets) become LLVM
// intrinsics, which the NVPTX backend selects.
constexpr const char* kKernelsToNvvm =
    "gpu.module("
    "expand-strided-metadata,"
    "lower-affine,"
    "arith-expand,"
    "convert-scf-to-cf,"
    "convert-gpu-to-nvvm{index-bitwidth=64 use-bare-ptr-memref-call-conv=1},"
    "convert-math-to-llvm,"
    "canonicalize,"
    "cse,"
    "reconcile-unrealized-casts)";

mlir::LogicalResult runPipeline(mlir::ModuleOp module, llvm::StringRef pipeline) {
  return runPassPipeline(module, pipeline, "GPU lowering");
}

// After kBufferizeKernelsPipeline (no deallocations: the host code is never run; its
// allocations become arena buffers of the plan): reductions over many elements to
// launches of their own, the rest to parallel loops, one launch per top-level loop nest;
// then the launches to outlined kernels. No canonicalization between the loop mapping
// and convert-parallel-loops-to-gpu: it would merge the block and thread loops and drop
// their mapping.
mlir::LogicalResult outlineLaunches(mlir::ModuleOp module) {
  mlir::PassManager pm(module->getName());
  pm.addNestedPass<mlir::func::FuncOp>(createMapRowReductionsToGpuPass());
  pm.addNestedPass<mlir::func::FuncOp>(mlir::createConvertLinalgToParallelLoopsPass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addNestedPass<mlir::func::FuncOp>(createMapParallelLoopsToGpuPass());
  pm.addNestedPass<mlir::func::FuncOp>(mlir::createParallelLoopToGpuPass());
  pm.addNestedPass<mlir::func::FuncOp>(createSinkIntoGpuLaunchesPass());
  pm.addPass(mlir::createGpuKernelOutliningPass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  return pm.run(module);
}

// gpu-kernel-outlining makes one gpu.module per launch, and kernels in different modules
// may share a name. One module (one PTX, one cubin per architecture) is what the
// fatbin holds, so the kernels move into @pt2c_kernels, each renamed after its (unique)
// module, and the launches follow.
mlir::LogicalResult mergeGpuModules(mlir::ModuleOp module) {
  mlir::OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  auto merged = builder.create<mlir::gpu::GPUModuleOp>(module.getLoc(), kGpuModuleName);
  mlir::SymbolTable mergedSymbols(merged);
  llvm::DenseMap<mlir::Attribute, mlir::SymbolRefAttr> renamed;  // old kernel ref -> new
  for (auto gpuModule : llvm::make_early_inc_range(module.getOps<mlir::gpu::GPUModuleOp>())) {
    if (gpuModule == merged) continue;
    for (auto kernel : llvm::make_early_inc_range(gpuModule.getOps<mlir::gpu::GPUFuncOp>())) {
      auto oldRef = mlir::SymbolRefAttr::get(
          gpuModule.getNameAttr(), {mlir::FlatSymbolRefAttr::get(kernel.getNameAttr())});
      if (mergedSymbols.lookup(gpuModule.getName()))
        return kernel.emitError() << "internal error: GPU kernel name " << gpuModule.getName()
                                  << " is not unique";
      kernel->remove();
      kernel.setName(gpuModule.getName());
      mergedSymbols.insert(kernel, merged.getBody()->getTerminator()->getIterator());
      renamed[oldRef] = mlir::SymbolRefAttr::get(
          merged.getNameAttr(), {mlir::FlatSymbolRefAttr::get(kernel.getNameAttr())});
    }
    // Outlining also copies the globals a kernel reads (a constant the kernel copies
    // into its output): symbols of the host module, so one name is one global, kept once.
    mlir::Block* rest = gpuModule.getBody();
    for (mlir::Operation& op : llvm::make_early_inc_range(rest->without_terminator())) {
      auto global = llvm::dyn_cast<mlir::memref::GlobalOp>(op);
      if (!global)
        return op.emitError() << "internal error: outlined GPU module holds more than "
                                 "kernels and globals: "
                              << op.getName();
      if (mergedSymbols.lookup(global.getSymName())) continue;
      global->remove();
      mergedSymbols.insert(global, merged.getBody()->getTerminator()->getIterator());
    }
    gpuModule.erase();
  }
  mlir::LogicalResult result = mlir::success();
  module.walk([&](mlir::gpu::LaunchFuncOp launch) {
    auto it = renamed.find(launch.getKernel());
    if (it == renamed.end()) {
      result = launch.emitError() << "internal error: launch of an unknown kernel";
      return;
    }
    launch.setKernelAttr(it->second);
  });
  return result;
}

}  // namespace

mlir::LogicalResult lowerKernelsToGpu(mlir::ModuleOp kernels) {
  mlir::PassManager fused(kernels->getName());
  fused.addPass(createLowerFusedOpsToGpuPass());
  if (mlir::failed(fused.run(kernels)) ||
      mlir::failed(runPipeline(kernels, kBufferizeKernelsPipeline)) ||
      mlir::failed(outlineLaunches(kernels)) ||
      mlir::failed(mergeGpuModules(kernels)))
    return mlir::failure();
  return runPipeline(kernels, kKernelsToNvvm);
}

}  // namespace pt2c
