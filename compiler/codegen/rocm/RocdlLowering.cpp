#include "compiler/codegen/rocm/RocdlLowering.h"

#include "compiler/codegen/ApproximateMath.h"
#include "compiler/codegen/cuda/GpuLowering.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace pt2c {

void buildRocmKernelsToRocdlPipeline(mlir::OpPassManager &pm) {
  GpuLoweringOptions options;
  options.tensorCores = false;
  buildKernelsToGpuPipeline(pm, options);
  // Math without a device library: f16/bf16 math computes in f32, pow becomes exp and
  // log, and exp, log, tanh, erf, sin, cos, ... become MLIR's polynomial approximations
  // (within a few ulp of libm over the f32 range). convert-gpu-to-rocdl turns what is
  // left (sqrt, rsqrt, floor, fabs, ...) into __ocml_* calls, which AmdgpuCompiler
  // defines as the LLVM intrinsics the AMDGPU backend selects (DeviceFunctions.h); it
  // refuses LLVM's math intrinsics in its input, so convert-math-to-llvm runs after it,
  // for the integer math it leaves (math.absi).
  pm.nest<mlir::gpu::GPUModuleOp>().addPass(mlir::math::createMathLegalizeToF32());
  ApproximateMathPassOptions approximate;
  approximate.expandPow = true;
  pm.addPass(createApproximateMathPass(approximate));
  mlir::OpPassManager &kernels = pm.nest<mlir::gpu::GPUModuleOp>();
  addGpuKernelPreparation(kernels);
  // ROCDL keeps bf16 values as i16 and converts only extf/truncf: arithmetic on bf16
  // computes in f32 (as the fused kernels and PyTorch do), each result rounded to bf16.
  static const std::string kBf16[] = {"bf16"};
  mlir::arith::ArithEmulateUnsupportedFloatsOptions bf16ToF32;
  bf16ToF32.sourceTypeStrs = kBf16;
  bf16ToF32.targetTypeStr = "f32";
  kernels.addPass(mlir::arith::createArithEmulateUnsupportedFloats(bf16ToF32));
  // Memref parameters become bare pointers, one kernel argument each, as on CUDA. The
  // chipset is only read for AMDGPU-dialect ops, which pt2c does not make: the module
  // is translated once and compiled per architecture (AmdgpuCompiler).
  kernels.addPass(mlir::createLowerGpuOpsToROCDLOpsPass(
      "gfx900", /*indexBitwidth=*/64, /*useBarePtrCallConv=*/true, mlir::gpu::amd::Runtime::HIP));
  kernels.addPass(mlir::createConvertMathToLLVMPass());
  kernels.addPass(mlir::createCanonicalizerPass());
  kernels.addPass(mlir::createCSEPass());
  kernels.addPass(mlir::createReconcileUnrealizedCastsPass());
}

void registerRocmKernelsToRocdlPipeline() {
  static mlir::PassPipelineRegistration<> registration(
      "pt2c-rocm-kernels-to-rocdl",
      "pt2c's ROCm kernel lowering: prim kernels -> buffers -> GPU launches of kernels in "
      "one gpu.module of ROCDL-ready LLVM dialect, as `pt2c --target rocm` runs it",
      buildRocmKernelsToRocdlPipeline);
}

} // namespace pt2c
