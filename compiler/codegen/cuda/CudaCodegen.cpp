#include "compiler/codegen/cuda/CudaCodegen.h"

#include "compiler/codegen/PlanReader.h"
#include "compiler/codegen/cuda/CudaPlan.h"
#include "compiler/codegen/cuda/CudaToolkit.h"
#include "compiler/codegen/cuda/GpuLowering.h"
#include "compiler/codegen/cuda/LaunchTable.h"
#include "compiler/codegen/cuda/PtxCompiler.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace pt2c {
namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

std::string describe(const CudaCodegenSummary &summary, const std::vector<unsigned> &sms) {
  std::string text = "CUDA";
  for (size_t i = 0; i < sms.size(); ++i)
    text += (i ? ", sm_" : " sm_") + std::to_string(sms[i]);
  text += ": " + std::to_string(summary.launches) + " launches of " +
          std::to_string(summary.gpuKernels) + " GPU kernels, ";
  if (summary.gemms > 0)
    text += std::to_string(summary.gemms) + " GEMM steps (cuBLASLt, those launches as fallback), ";
  if (summary.convs > 0)
    text +=
        std::to_string(summary.convs) + " convolution steps (cuDNN, those launches as fallback), ";
  return text + "fatbin " + std::to_string((summary.fatbinBytes + 1023) / 1024) + " KiB";
}

llvm::Expected<CudaCodegenSummary> emitCudaObject(mlir::ModuleOp kernels, const ModelPlan &model,
                                                  const CudaCodegenOptions &options,
                                                  const std::string &objectPath) {
  // The toolkit first: without it nothing below can finish.
  auto toolkit = findCudaToolkit();
  if (!toolkit)
    return toolkit.takeError();
  // Read at the prim level, before the lowering rewrites the kernel functions.
  DenseKernels dense = findDenseKernels(kernels);
  if (mlir::failed(lowerKernelsToGpu(kernels)))
    return fail("lowering the kernels to GPU failed");
  auto launches = readLaunchTable(kernels);
  if (mlir::failed(launches))
    return fail("reading the GPU launches failed");
  // Each graph of a plan set names its own GPU kernels (all in the one fatbin).
  CudaCodegenSummary summary;
  auto expand = [&](const ExecutionPlan &graph) -> llvm::Expected<ExecutionPlan> {
    auto expanded = expandPlanForCuda(graph, *launches, dense);
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
  auto cudaPlan = rewriteModelPlan(model, expand, /*sharedKernelTable=*/false);
  if (!cudaPlan)
    return cudaPlan.takeError();

  auto gpuModule = kernels.lookupSymbol<mlir::gpu::GPUModuleOp>(kGpuModuleName);
  if (!gpuModule)
    return fail("internal error: no GPU module after lowering");
  PtxOptions ptxOptions;
  ptxOptions.sms = options.sms;
  ptxOptions.libdevice = toolkit->libdevice;
  ptxOptions.onLLVMIR = options.onKernelLLVMIR;
  auto ptx = compileToPtx(gpuModule, ptxOptions);
  if (!ptx)
    return ptx.takeError();
  if (options.onKernelLLVMIR)
    return CudaCodegenSummary{}; // `--emit llvm` stops here
  auto fatbin = buildFatbin(*toolkit, *ptx);
  if (!fatbin)
    return fatbin.takeError();

  // The host object carries data only: the CUDA plan, the weights and the fatbin. An
  // empty module gives it an empty CPU kernel table (__pt2c_num_kernels = 0).
  mlir::OpBuilder builder(kernels.getContext());
  mlir::OwningOpRef<mlir::ModuleOp> host(builder.create<mlir::ModuleOp>(kernels.getLoc()));
  ExecutionPlan hostPlan = *cudaPlan;
  hostPlan.kernels.clear();
  CpuCodegenOptions hostOptions = options.host;
  hostOptions.onLLVMIR = nullptr;
  hostOptions.blobs.push_back({"__pt2c_cuda_fatbin", *fatbin, 8});
  if (mlir::failed(emitCpuObject(*host, hostPlan, hostOptions, objectPath)))
    return fail("writing the model's object failed");

  summary.gpuKernels = cudaPlan->kernels.size();
  summary.fatbinBytes = fatbin->size();
  summary.arenaBytes = cudaPlan->arenaSize;
  return summary;
}

} // namespace pt2c
