#include "compiler/codegen/cuda/GpuObject.h"

#include "compiler/codegen/PlanReader.h"
#include "compiler/codegen/cuda/CudaPlan.h"
#include "compiler/codegen/cuda/GpuLowering.h"
#include "compiler/codegen/cuda/LaunchTable.h"

namespace pt2c {
namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

llvm::Expected<GpuCodegenSummary> emitGpuObject(mlir::ModuleOp kernels, const ModelPlan &model,
                                                const CpuCodegenOptions &host,
                                                const GpuTarget &target,
                                                const std::string &objectPath) {
  // Read at the prim level, before the lowering rewrites the kernel functions. cuDNN
  // serves channels-last convolutions (the CUDA pipeline's pt2c-channels-last-convolutions
  // makes them); on other targets their fallback runs.
  DenseOptions options;
  options.convs.channelsLast = target.device == PT2C_DEVICE_CUDA;
  DenseKernels dense = findDenseKernels(kernels, options);
  if (mlir::failed(runKernelPipeline(kernels, target.buildPipeline)))
    return fail("lowering the kernels to GPU failed");
  auto launches = readLaunchTable(kernels);
  if (mlir::failed(launches))
    return fail("reading the GPU launches failed");
  // Each graph of a plan set names its own GPU kernels (all in the one binary).
  GpuCodegenSummary summary;
  auto expand = [&](const ExecutionPlan &graph) -> llvm::Expected<ExecutionPlan> {
    auto expanded = expandPlanForGpu(graph, *launches, dense, target.device);
    if (!expanded)
      return expanded.takeError();
    auto records = readPlanRecords(expanded->bytes);
    if (!records)
      return records.takeError();
    summary.gemms += records->gemms.size();
    summary.convs += records->convs.size();
    summary.launches += records->steps.size() - records->gemms.size() - records->convs.size();
    return expanded;
  };
  auto gpuPlan = rewriteModelPlan(model, expand, /*sharedKernelTable=*/false);
  if (!gpuPlan)
    return gpuPlan.takeError();

  auto gpuModule = kernels.lookupSymbol<mlir::gpu::GPUModuleOp>(kGpuModuleName);
  if (!gpuModule)
    return fail("internal error: no GPU module after lowering");
  auto binary = target.compile(gpuModule);
  if (!binary)
    return binary.takeError();
  if (!*binary)
    return GpuCodegenSummary{}; // `--emit llvm` stops here

  // The host object carries data only: the GPU plan, the weights and the binary. An
  // empty module gives it an empty CPU kernel table (__pt2c_num_kernels = 0).
  mlir::OpBuilder builder(kernels.getContext());
  mlir::OwningOpRef<mlir::ModuleOp> hostModule(builder.create<mlir::ModuleOp>(kernels.getLoc()));
  ExecutionPlan hostPlan = *gpuPlan;
  hostPlan.kernels.clear();
  CpuCodegenOptions hostOptions = host;
  hostOptions.onLLVMIR = nullptr;
  hostOptions.blobs.push_back({target.binarySymbol, **binary, 8});
  if (mlir::failed(emitCpuObject(*hostModule, hostPlan, hostOptions, objectPath)))
    return fail("writing the model's object failed");

  summary.gpuKernels = gpuPlan->kernels.size();
  summary.binaryBytes = (*binary)->size();
  summary.arenaBytes = gpuPlan->arenaSize;
  return summary;
}

} // namespace pt2c
