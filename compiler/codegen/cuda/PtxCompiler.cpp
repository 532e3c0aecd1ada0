#include "compiler/codegen/cuda/PtxCompiler.h"

#include <algorithm>

#include "compiler/codegen/LLVMOptimizer.h"
#include "compiler/codegen/cuda/GpuLLVMModule.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace pt2c {
namespace {

constexpr const char *kTriple = "nvptx64-nvidia-cuda";

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// The oldest PTX ISA version LLVM 19 generates for each SM (PTX 6.3 introduced sm_75,
// 7.0 sm_80, 7.1 sm_86, 7.4 sm_87, 7.8 sm_89 and sm_90).
const std::map<unsigned, unsigned> &ptxVersions() {
  static const std::map<unsigned, unsigned> versions = {{75, 63}, {80, 70}, {86, 71},
                                                        {87, 74}, {89, 78}, {90, 78}};
  return versions;
}

const llvm::Target *nvptxTarget(std::string &error) {
  static bool initialized = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    return true;
  }();
  (void)initialized;
  return llvm::TargetRegistry::lookupTarget(kTriple, error);
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(unsigned sm, std::string &error) {
  const llvm::Target *target = nvptxTarget(error);
  if (!target)
    return nullptr;
  std::string cpu = "sm_" + std::to_string(sm);
  // At least PTX 7.8 for every SM: the tensor-core attention transposes V's blocks with
  // movmatrix (sm_75 and later, PTX 7.8).
  constexpr unsigned kMinPtx = 78;
  std::string features = "+ptx" + std::to_string(std::max(kMinPtx, ptxVersions().at(sm)));
  return std::unique_ptr<llvm::TargetMachine>(
      target->createTargetMachine(kTriple, cpu, features, llvm::TargetOptions(), std::nullopt,
                                  std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

// Links libdevice (only the functions the kernels call) when the kernels call any.
llvm::Error linkLibdevice(llvm::Module &m, const std::string &path) {
  bool needed = llvm::any_of(m.functions(), [](const llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__nv_");
  });
  if (!needed)
    return llvm::Error::success();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail("cannot read libdevice (" + path + "): " + buffer.getError().message() +
                "; set PT2C_CUDA_HOME to the CUDA toolkit");
  auto library = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), m.getContext());
  if (!library)
    return library.takeError();
  // libdevice says nvptx64-nvidia-gpulibs; match it to the kernels to link quietly.
  (*library)->setTargetTriple(m.getTargetTriple());
  (*library)->setDataLayout(m.getDataLayout());
  if (llvm::Linker::linkModules(m, std::move(*library), llvm::Linker::LinkOnlyNeeded))
    return fail("linking libdevice (" + path + ") failed");
  return llvm::Error::success();
}

// Shared memory arrays get an explicit 16-byte alignment. Without one, the load/store
// vectorizer assumed the arrays' preferred alignment and emitted 16-byte ld.shared.v4,
// while the PTX declared them `.align 4`: a misaligned access at run time (the fused
// attention kernel of an f32 model, whose scores rows are 40 bytes apart).
void alignSharedArrays(llvm::Module &m) {
  constexpr unsigned kSharedAddressSpace = 3;
  for (llvm::GlobalVariable &g : m.globals())
    if (g.getAddressSpace() == kSharedAddressSpace &&
        (!g.getAlign() || *g.getAlign() < llvm::Align(16)))
      g.setAlignment(llvm::Align(16));
}

llvm::Expected<std::string> emitPtx(llvm::Module &m, llvm::TargetMachine &tm) {
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream os(ptx);
  llvm::legacy::PassManager codegen;
  if (tm.addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return fail("the NVPTX target cannot emit PTX");
  codegen.run(m);
  return std::string(ptx.str());
}

} // namespace

bool isSupportedSm(unsigned sm) { return ptxVersions().count(sm) > 0; }

llvm::Expected<std::map<unsigned, std::string>> compileToPtx(mlir::gpu::GPUModuleOp kernels,
                                                             const PtxOptions &options) {
  mlir::registerNVVMDialectTranslation(*kernels.getContext());
  llvm::LLVMContext llvmContext;
  auto translated = translateGpuModule(kernels, "nvvm.kernel", llvmContext);
  if (!translated)
    return translated.takeError();
  std::unique_ptr<llvm::Module> m = std::move(translated->module);

  std::string error;
  auto reference = createTargetMachine(options.sms.front(), error);
  if (!reference)
    return fail("no NVPTX target in this LLVM: " + error);
  m->setTargetTriple(kTriple);
  m->setDataLayout(reference->createDataLayout());
  if (auto err = linkLibdevice(*m, options.libdevice))
    return std::move(err);
  // IEEE denormals, as PyTorch's CUDA kernels (no flush to zero).
  m->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{0});
  internalizeAllButKernels(*m, translated->kernels); // libdevice's functions too
  alignSharedArrays(*m);
  if (llvm::verifyModule(*m, &llvm::errs()))
    return fail("internal error: the GPU kernels' LLVM IR does not verify");
  if (options.onLLVMIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    m->print(os, nullptr);
    options.onLLVMIR(os.str());
  }

  std::map<unsigned, std::string> ptx;
  for (unsigned sm : options.sms) {
    auto tm = createTargetMachine(sm, error);
    if (!tm)
      return fail("cannot target sm_" + std::to_string(sm) + ": " + error);
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*m);
    // The NVPTX target registers NVVMReflect, which resolves libdevice's
    // __nvvm_reflect("__CUDA_FTZ") from the module flag.
    optimizeModuleO3(*copy, *tm, /*unrollLoops=*/true);
    auto text = emitPtx(*copy, *tm);
    if (!text)
      return text.takeError();
    ptx[sm] = std::move(*text);
  }
  return ptx;
}

} // namespace pt2c
