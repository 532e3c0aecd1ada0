// The named pipelines of pt2c's front half, as the driver runs them and as pt2c-opt
// offers them (registered by pt2c::registerAllPasses, compiler/Passes.h):
//
//   pt2c-aten-to-prim     imported aten -> prim (`pt2c compile --emit prim` prints this)
//   pt2c-prim-to-kernels  prim -> model functions calling outlined kernel functions,
//                         which the execution plan is built from
//
// The back half (kernels -> machine code) is in compiler/codegen/CpuPipeline.h and
// compiler/codegen/cuda/GpuLowering.h; compiler/transforms/README.md lists them all.
#ifndef PT2C_COMPILER_TRANSFORMS_PIPELINES_H_
#define PT2C_COMPILER_TRANSFORMS_PIPELINES_H_

#include "compiler/transforms/fold/FoldWeights.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace pt2c {

struct AtenToPrimOptions : mlir::PassPipelineOptions<AtenToPrimOptions> {
  Option<bool> foldWeights{*this, "fold-weights",
                           llvm::cl::desc("Run pt2c-fold-weights (--no-fold-weights: off)"),
                           llvm::cl::init(true)};
  // The driver's weights: the artifact's bytes by FQN. Unset (pt2c-opt), only weights
  // that carry `pt2c.value` are evaluated.
  WeightBytes weightBytes;
};

// pt2c-functionalize, pt2c-decompose-aten-to-prim, canonicalize, cse, then
// pt2c-fold-weights.
void buildAtenToPrimPipeline(mlir::OpPassManager &pm, const AtenToPrimOptions &options);

struct PrimToKernelsOptions : mlir::PassPipelineOptions<PrimToKernelsOptions> {
  Option<bool> fusedOps{*this, "fused-ops",
                        llvm::cl::desc("The module has the GPU's fused ops (CUDA targets)"),
                        llvm::cl::init(false)};
  Option<bool> channelsLastConvolutions{
      *this, "channels-last-convolutions",
      llvm::cl::desc("Half-precision convolutions compute channels-last (CUDA targets)"),
      llvm::cl::init(false)};
  Option<bool> pointwiseConvolutionProducts{
      *this, "pointwise-convolution-products",
      llvm::cl::desc("1x1 convolutions become matrix products (CUDA targets)"),
      llvm::cl::init(false)};
};

// [pt2c-channels-last-convolutions,] [canonicalize,]
// [pt2c-pointwise-convolution-products,] pt2c-symbolic-shapes, pt2c-form-kernels.
void buildPrimToKernelsPipeline(mlir::OpPassManager &pm, const PrimToKernelsOptions &options);

void registerFrontPipelines();

} // namespace pt2c

#endif // PT2C_COMPILER_TRANSFORMS_PIPELINES_H_
