// pt2c-merge-gpu-modules: see Passes.td. gpu-kernel-outlining makes one gpu.module per
// launch, and kernels in different modules may share a name; the fatbin holds one module
// (one PTX, one cubin per architecture).
#include "compiler/codegen/cuda/GpuPasses.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

namespace pt2c {

#define GEN_PASS_DEF_MERGEGPUMODULESPASS
#include "compiler/codegen/cuda/Passes.h.inc"

namespace {

// Moves the kernels into @pt2c_kernels, each renamed after its (unique) module, and
// makes the launches follow.
mlir::LogicalResult mergeGpuModules(mlir::ModuleOp module) {
  mlir::OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  auto merged = builder.create<mlir::gpu::GPUModuleOp>(module.getLoc(), kGpuModuleName);
  mlir::SymbolTable mergedSymbols(merged);
  llvm::DenseMap<mlir::Attribute, mlir::SymbolRefAttr> renamed; // old kernel ref -> new
  for (auto gpuModule : llvm::make_early_inc_range(module.getOps<mlir::gpu::GPUModuleOp>())) {
    if (gpuModule == merged)
      continue;
    for (auto kernel : llvm::make_early_inc_range(gpuModule.getOps<mlir::gpu::GPUFuncOp>())) {
      auto oldRef = mlir::SymbolRefAttr::get(gpuModule.getNameAttr(),
                                             {mlir::FlatSymbolRefAttr::get(kernel.getNameAttr())});
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
    mlir::Block *rest = gpuModule.getBody();
    for (mlir::Operation &op : llvm::make_early_inc_range(rest->without_terminator())) {
      auto global = llvm::dyn_cast<mlir::memref::GlobalOp>(op);
      if (!global)
        return op.emitError() << "internal error: outlined GPU module holds more than "
                                 "kernels and globals: "
                              << op.getName();
      if (mergedSymbols.lookup(global.getSymName()))
        continue;
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

struct MergeGpuModulesPass : impl::MergeGpuModulesPassBase<MergeGpuModulesPass> {
  void runOnOperation() override {
    if (mlir::failed(mergeGpuModules(getOperation())))
      signalPassFailure();
  }
};

} // namespace
} // namespace pt2c
