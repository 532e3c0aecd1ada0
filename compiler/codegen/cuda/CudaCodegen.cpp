#include "compiler/codegen/cuda/CudaCodegen.h"

#include "compiler/codegen/cuda/CudaToolkit.h"
#include "compiler/codegen/cuda/GpuLowering.h"
#include "compiler/codegen/cuda/PtxCompiler.h"

namespace pt2c {

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
  return text + "fatbin " + std::to_string((summary.binaryBytes + 1023) / 1024) + " KiB";
}

llvm::Expected<CudaCodegenSummary> emitCudaObject(mlir::ModuleOp kernels, const ModelPlan &model,
                                                  const CudaCodegenOptions &options,
                                                  const std::string &objectPath) {
  // The toolkit first: without it nothing below can finish.
  auto toolkit = findCudaToolkit();
  if (!toolkit)
    return toolkit.takeError();
  GpuTarget target;
  target.device = PT2C_DEVICE_CUDA;
  target.binarySymbol = "__pt2c_cuda_fatbin";
  target.buildPipeline = buildCudaKernelsToNvvmPipeline;
  target.compile =
      [&](mlir::gpu::GPUModuleOp gpuModule) -> llvm::Expected<std::optional<std::string>> {
    PtxOptions ptxOptions;
    ptxOptions.sms = options.sms;
    ptxOptions.libdevice = toolkit->libdevice;
    ptxOptions.onLLVMIR = options.onKernelLLVMIR;
    auto ptx = compileToPtx(gpuModule, ptxOptions);
    if (!ptx)
      return ptx.takeError();
    if (options.onKernelLLVMIR)
      return std::nullopt; // `--emit llvm` stops here
    auto fatbin = buildFatbin(*toolkit, *ptx);
    if (!fatbin)
      return fatbin.takeError();
    return std::optional<std::string>(std::move(*fatbin));
  };
  return emitGpuObject(kernels, model, options.host, target, objectPath);
}

} // namespace pt2c
