// pt2c-sink-into-gpu-launches: see GpuPasses.h. Upstream's
// gpu-launch-sink-index-computations sinks only constants and a few index ops; a memref
// view (collapse_shape of an argument, say) or a float computed from constants would
// otherwise become a kernel parameter that the execution plan cannot supply.
#include "compiler/codegen/cuda/GpuPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace pt2c {
namespace {

bool isSinkable(mlir::Operation* op) {
  return mlir::isMemoryEffectFree(op) && op->getNumRegions() == 0;
}

struct SinkIntoGpuLaunchesPass
    : public mlir::PassWrapper<SinkIntoGpuLaunchesPass, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SinkIntoGpuLaunchesPass)
  llvm::StringRef getArgument() const override { return "pt2c-sink-into-gpu-launches"; }
  llvm::StringRef getDescription() const override {
    return "Clone the side-effect-free ops a gpu.launch uses from above into it";
  }
  void runOnOperation() override {
    getOperation().walk([&](mlir::gpu::LaunchOp launch) {
      if (mlir::failed(mlir::sinkOperationsIntoLaunchOp(launch, isSinkable)))
        signalPassFailure();
    });
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createSinkIntoGpuLaunchesPass() {
  return std::make_unique<SinkIntoGpuLaunchesPass>();
}

void registerMapParallelLoopsToGpuPass();

void registerGpuPasses() {
  registerMapParallelLoopsToGpuPass();
  mlir::PassRegistration<SinkIntoGpuLaunchesPass>();
}

}  // namespace pt2c
