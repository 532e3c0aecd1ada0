#include "compiler/transforms/Pipelines.h"

#include "compiler/transforms/Passes.h"
#include "compiler/transforms/kernels/ChannelsLastConvolutions.h"
#include "compiler/transforms/kernels/FormKernels.h"
#include "compiler/transforms/kernels/PointwiseConvolutions.h"
#include "compiler/transforms/kernels/SinkReshapes.h"
#include "compiler/transforms/symbolic/SymbolicShapes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace pt2c {

void buildAtenToPrimPipeline(mlir::OpPassManager &pm, const AtenToPrimOptions &options) {
  pm.addPass(createFunctionalizePass());
  pm.addPass(createDecomposeAtenToPrimPass());
  pm.addPass(mlir::createCanonicalizerPass());
  // Each layer's decomposition rebuilds what it shares with the others (the attention
  // mask's conversion): one copy of each is enough.
  pm.addPass(mlir::createCSEPass());
  if (options.foldWeights)
    pm.addPass(createFoldWeightsPass(options.weightBytes));
}

void buildPrimToKernelsPipeline(mlir::OpPassManager &pm, const PrimToKernelsOptions &options) {
  // Weight folding narrows half arithmetic (FoldLowPrecision.h): the fused ops' patterns
  // (a residual add into layer norm) see the narrowed ops only now.
  if (options.channelsLastConvolutions)
    pm.addPass(createChannelsLastConvolutionsPass());
  if (options.fusedOps)
    pm.addPass(mlir::createCanonicalizerPass());
  // After the transposes of channels-last convolutions have cancelled: a product reading
  // a transpose would fold it into its dimension numbers instead.
  if (options.pointwiseConvolutionProducts)
    pm.addPass(createPointwiseConvolutionProductsPass());
  // Elementwise math read through a reshape joins its producer's kernel (a reduction's
  // epilogue): after weight folding narrowed half arithmetic.
  if (options.fusedOps)
    pm.addPass(createSinkReshapesPass());
  pm.addPass(createSymbolicShapesPass());
  pm.addPass(createFormKernelsPass());
}

void registerFrontPipelines() {
  static mlir::PassPipelineRegistration<AtenToPrimOptions> atenToPrim(
      "pt2c-aten-to-prim",
      "Imported aten -> prim: functionalize, decompose, canonicalize, cse, fold weights "
      "(what `pt2c compile --emit prim` prints)",
      buildAtenToPrimPipeline);
  static mlir::PassPipelineRegistration<PrimToKernelsOptions> primToKernels(
      "pt2c-prim-to-kernels",
      "prim -> model functions calling kernel functions: symbolic shapes, form kernels",
      buildPrimToKernelsPipeline);
}

} // namespace pt2c
