#include "compiler/codegen/rocm/RocmCodegen.h"

#include "compiler/codegen/rocm/AmdgpuCompiler.h"
#include "compiler/codegen/rocm/CodeObjectTable.h"
#include "compiler/codegen/rocm/RocdlLowering.h"

namespace pt2c {

std::string describe(const GpuCodegenSummary &summary, const std::vector<AmdGpuArch> &archs) {
  std::string text = "ROCm";
  for (size_t i = 0; i < archs.size(); ++i)
    text += (i ? ", " : " ") + std::string(archs[i].name);
  text += ": " + std::to_string(summary.launches) + " launches of " +
          std::to_string(summary.gpuKernels) + " GPU kernels, ";
  if (summary.gemms > 0)
    text += std::to_string(summary.gemms) + " GEMM steps (their launches), ";
  if (summary.convs > 0)
    text += std::to_string(summary.convs) + " convolution steps (their launches), ";
  return text + "code objects " + std::to_string((summary.binaryBytes + 1023) / 1024) + " KiB";
}

llvm::Expected<GpuCodegenSummary> emitRocmObject(mlir::ModuleOp kernels, const ModelPlan &model,
                                                 const RocmCodegenOptions &options,
                                                 const std::string &objectPath) {
  // The linker first: without it nothing below can finish.
  auto lld = findLld();
  if (!lld)
    return lld.takeError();
  GpuTarget target;
  target.device = PT2C_DEVICE_ROCM;
  target.binarySymbol = "__pt2c_rocm_code_objects";
  target.buildPipeline = buildRocmKernelsToRocdlPipeline;
  target.compile =
      [&](mlir::gpu::GPUModuleOp gpuModule) -> llvm::Expected<std::optional<std::string>> {
    AmdgpuOptions amdgpu;
    amdgpu.archs = options.archs;
    amdgpu.lld = *lld;
    amdgpu.onLLVMIR = options.onKernelLLVMIR;
    auto objects = compileToCodeObjects(gpuModule, amdgpu);
    if (!objects)
      return objects.takeError();
    if (options.onKernelLLVMIR)
      return std::nullopt; // `--emit llvm` stops here
    auto table = packCodeObjects(*objects);
    if (!table)
      return table.takeError();
    return std::optional<std::string>(std::move(*table));
  };
  return emitGpuObject(kernels, model, options.host, target, objectPath);
}

} // namespace pt2c
