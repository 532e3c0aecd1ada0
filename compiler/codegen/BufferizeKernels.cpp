#include "compiler/codegen/BufferizeKernels.h"

#include "compiler/codegen/ConstantGlobalNames.h"
#include "compiler/codegen/DynamicKernelAbi.h"
#include "compiler/transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace pt2c {

void buildBufferizeKernelsPipeline(
    mlir::OpPassManager &pm, llvm::function_ref<void(mlir::OpPassManager &)> beforeBufferization) {
  pm.addPass(createLowerPrimToLinalgPass());
  pm.addNestedPass<mlir::func::FuncOp>(mlir::createLinalgElementwiseOpFusionPass());
  pm.addPass(mlir::createCanonicalizerPass());
  if (beforeBufferization)
    beforeBufferization(pm);
  pm.addPass(createCopyReturnedArgumentsPass());
  // Kernels are called with plain buffers: identity layouts at function boundaries.
  mlir::bufferization::OneShotBufferizationOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.setFunctionBoundaryTypeConversion(
      mlir::bufferization::LayoutMapOption::IdentityLayoutMap);
  pm.addPass(mlir::bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createNameConstantGlobalsPass());
  // A statically shaped result is written into its out-param, not into a temporary
  // then copied.
  mlir::bufferization::BufferResultsToOutParamsOpts outParams;
  outParams.hoistStaticAllocs = true;
  pm.addPass(mlir::bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(mlir::createCanonicalizerPass());
}

void registerBufferizeKernelsPipeline() {
  static mlir::PassPipelineRegistration<> registration(
      "pt2c-bufferize-kernels",
      "prim kernels -> bufferized linalg with results as out-params (both targets)",
      [](mlir::OpPassManager &pm) { buildBufferizeKernelsPipeline(pm); });
}

} // namespace pt2c
