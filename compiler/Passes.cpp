#include "compiler/Passes.h"

#include "compiler/codegen/ApproximateMath.h"
#include "compiler/codegen/BufferizeKernels.h"
#include "compiler/codegen/ConstantGlobalNames.h"
#include "compiler/codegen/CpuPipeline.h"
#include "compiler/codegen/DynamicKernelAbi.h"
#include "compiler/codegen/SelectMinMax.h"
#include "compiler/codegen/SplitKernelLoops.h"
#include "compiler/codegen/cuda/GpuLowering.h"
#include "compiler/codegen/cuda/GpuPasses.h"
#include "compiler/codegen/rocm/RocdlLowering.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/Pipelines.h"
#include "compiler/transforms/fold/FoldWeights.h"
#include "compiler/transforms/kernels/ChannelsLastConvolutions.h"
#include "compiler/transforms/kernels/FormKernels.h"
#include "compiler/transforms/kernels/PointwiseConvolutions.h"
#include "compiler/transforms/kernels/SinkReshapes.h"
#include "compiler/transforms/symbolic/SymbolicShapes.h"

namespace pt2c {
namespace {
// registerPt2cTransformsPasses, registerPt2cCodegenPasses, registerPt2cCudaPasses.
#define GEN_PASS_REGISTRATION
#include "compiler/transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "compiler/codegen/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "compiler/codegen/cuda/Passes.h.inc"
} // namespace

void registerAllPasses() {
  registerPt2cTransformsPasses();
  registerPt2cCodegenPasses();
  registerPt2cCudaPasses();
  registerFrontPipelines();
  registerBufferizeKernelsPipeline();
  registerCpuKernelsToLLVMPipeline();
  registerCudaKernelsToNvvmPipeline();
  registerRocmKernelsToRocdlPipeline();
}

} // namespace pt2c
