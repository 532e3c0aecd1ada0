#include "compiler/codegen/CpuPipeline.h"

#include "compiler/codegen/ApproximateMath.h"
#include "compiler/codegen/BufferizeKernels.h"
#include "compiler/codegen/DynamicKernelAbi.h"
#include "compiler/codegen/SelectMinMax.h"
#include "compiler/codegen/SplitKernelLoops.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"

namespace pt2c {

void buildCpuKernelsToLLVMPipeline(mlir::OpPassManager &pm) {
  pm.addPass(createBindKernelSymbolsPass());
  buildBufferizeKernelsPipeline(pm);
  // Then loops, and the LLVM dialect with memrefs as bare pointers (static shapes; a
  // dynamic kernel's sizes come from its symbol values, pt2c-dynamic-kernel-abi).
  mlir::bufferization::buildBufferDeallocationPipeline(
      pm, mlir::bufferization::BufferDeallocationPipelineOptions());
  pm.addPass(mlir::createBufferizationToMemRefPass());
  pm.addPass(createDynamicKernelAbiPass());
  pm.addPass(createSplitKernelLoopsPass());
  pm.addNestedPass<mlir::func::FuncOp>(mlir::createConvertLinalgToLoopsPass());
  pm.addPass(mlir::createLowerAffinePass());
  pm.addPass(mlir::memref::createExpandStridedMetadataPass());
  // Views of dynamic size (a slice or concatenation along a dynamic dim) leave
  // affine.apply offsets from the expansion; static ones fold to constants.
  pm.addPass(mlir::createLowerAffinePass());
  pm.addPass(mlir::createConvertSCFToCFPass());
  pm.addPass(createApproximateMathPass());
  pm.addPass(createSelectMinMaxPass());
  pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createConvertMathToLibmPass());
  pm.addPass(mlir::createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  mlir::ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(mlir::createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
}

void registerCpuKernelsToLLVMPipeline() {
  static mlir::PassPipelineRegistration<> registration(
      "pt2c-cpu-kernels-to-llvm",
      "pt2c's CPU kernel lowering: prim kernels -> linalg -> buffers -> loops -> LLVM "
      "dialect (bare-pointer memrefs), as `pt2c --target cpu` runs it",
      buildCpuKernelsToLLVMPipeline);
}

} // namespace pt2c
