#include "compiler/codegen/cuda/GpuLLVMModule.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

namespace pt2c {

llvm::Expected<GpuLLVMModule> translateGpuModule(mlir::gpu::GPUModuleOp kernels,
                                                 llvm::StringRef kernelAttr,
                                                 llvm::LLVMContext &context) {
  GpuLLVMModule result;
  kernels.walk([&](mlir::LLVM::LLVMFuncOp f) {
    if (f->hasAttr(kernelAttr))
      result.kernels.push_back(f.getName().str());
  });
  mlir::MLIRContext *ctx = kernels.getContext();
  mlir::registerBuiltinDialectTranslation(*ctx);
  mlir::registerLLVMDialectTranslation(*ctx);
  mlir::registerGPUDialectTranslation(*ctx);
  result.module = mlir::translateModuleToLLVMIR(kernels.getOperation(), context, "pt2c_kernels");
  if (!result.module)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "translating the GPU kernels to LLVM IR failed");
  internalizeAllButKernels(*result.module, result.kernels);
  alignKernelPointers(*result.module, result.kernels);
  return result;
}

void alignKernelPointers(llvm::Module &m, const std::vector<std::string> &kernels) {
  for (const std::string &name : kernels) {
    llvm::Function *f = m.getFunction(name);
    if (!f)
      continue;
    for (llvm::Argument &arg : f->args())
      if (arg.getType()->isPointerTy() && !arg.hasAttribute(llvm::Attribute::Alignment))
        arg.addAttr(llvm::Attribute::getWithAlignment(m.getContext(),
                                                      llvm::Align(kKernelPointerAlignment)));
  }
}

void internalizeAllButKernels(llvm::Module &m, const std::vector<std::string> &kernels) {
  for (llvm::Function &f : m.functions())
    if (!f.isDeclaration() && !llvm::is_contained(kernels, f.getName().str()))
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &g : m.globals())
    if (!g.isDeclaration())
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
}

} // namespace pt2c
