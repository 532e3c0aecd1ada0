// pt2c-sink-into-gpu-launches: see GpuPasses.h. Upstream's sinking
// (gpu-launch-sink-index-computations, sinkOperationsIntoLaunchOp) never gives a launch
// a new dependency, so a view of a function argument (memref.subview %arg0) stays
// outside and becomes a strided kernel parameter that neither the bare-pointer calling
// convention nor the execution plan can pass. Here a pure op is cloned in even when
// that makes its operands (the argument itself) the launch's dependencies instead.
#include "compiler/codegen/cuda/GpuPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace pt2c {

#define GEN_PASS_DEF_SINKINTOGPULAUNCHESPASS
#include "compiler/codegen/cuda/Passes.h.inc"

namespace {

bool isSinkable(mlir::Operation *op) {
  return mlir::isMemoryEffectFree(op) && op->getNumRegions() == 0;
}

// Clones every side-effect-free op the launch uses from above into its body, and then
// the ops those clones use, until only values with no such op remain (arguments,
// allocations, results of ops with effects).
void sinkInto(mlir::gpu::LaunchOp launch) {
  mlir::Region &body = launch.getBody();
  mlir::OpBuilder builder(launch.getContext());
  while (true) {
    llvm::SetVector<mlir::Value> above;
    mlir::getUsedValuesDefinedAbove(body, above);
    bool changed = false;
    for (mlir::Value value : above) {
      mlir::Operation *op = value.getDefiningOp();
      if (!op || !isSinkable(op))
        continue;
      builder.setInsertionPointToStart(&body.front());
      mlir::Operation *clone = builder.clone(*op);
      for (auto [from, to] : llvm::zip(op->getResults(), clone->getResults()))
        mlir::replaceAllUsesInRegionWith(from, to, body);
      changed = true;
    }
    if (!changed)
      return;
  }
}

struct SinkIntoGpuLaunchesPass : impl::SinkIntoGpuLaunchesPassBase<SinkIntoGpuLaunchesPass> {
  void runOnOperation() override { getOperation().walk(sinkInto); }
};

} // namespace

} // namespace pt2c
