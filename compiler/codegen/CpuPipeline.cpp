#include "compiler/codegen/CpuPipeline.h"

#include <string>

#include "compiler/codegen/ApproximateMath.h"
#include "compiler/codegen/DynamicKernelAbi.h"
#include "compiler/codegen/LoweringPipelines.h"
#include "compiler/codegen/SelectMinMax.h"
#include "compiler/codegen/SplitKernelLoops.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Pass/PassRegistry.h"

namespace pt2c {
namespace {

// After kBufferizeKernelsPipeline: loops, then the LLVM dialect with memrefs as bare
// pointers (shapes are static).
constexpr const char kBuffersToLLVM[] =
    "buffer-deallocation-pipeline,"
    "convert-bufferization-to-memref,"
    "pt2c-dynamic-kernel-abi,"
    "pt2c-split-kernel-loops,"
    "func.func(convert-linalg-to-loops),"
    "lower-affine,"
    "expand-strided-metadata,"
    "convert-scf-to-cf,"
    "pt2c-approximate-math,"
    "pt2c-select-minmax,"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "finalize-memref-to-llvm,"
    "convert-arith-to-llvm,"
    "convert-cf-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
    "reconcile-unrealized-casts";

std::string pipelineText() {
  return std::string("pt2c-bind-kernel-symbols,") + kBufferizeKernelsPipeline + "," +
         kBuffersToLLVM;
}

}  // namespace

mlir::LogicalResult buildCpuLoweringPipeline(mlir::OpPassManager& pm) {
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (mlir::failed(mlir::parsePassPipeline(pipelineText(), pm, errorStream))) {
    llvm::errs() << "internal error: the CPU lowering pipeline does not parse: " << errors
                 << "\n";
    return mlir::failure();
  }
  return mlir::success();
}

void registerCpuLoweringPasses() {
  registerDynamicKernelAbiPasses();
  registerSplitKernelLoopsPass();
  registerApproximateMathPass();
  registerSelectMinMaxPass();
  static mlir::PassPipelineRegistration<> registration(
      "pt2c-cpu-lowering",
      "pt2c's CPU kernel lowering: prim kernels -> linalg -> buffers -> loops -> LLVM "
      "dialect (bare-pointer memrefs), as `pt2c --target cpu` runs it",
      [](mlir::OpPassManager& pm) { (void)buildCpuLoweringPipeline(pm); });
}

}  // namespace pt2c
