#include "compiler/codegen/rocm/AmdgpuCompiler.h"

#include <cstdlib>

#include "compiler/codegen/LLVMOptimizer.h"
#include "compiler/codegen/cuda/GpuLLVMModule.h"
#include "compiler/codegen/cuda/ToolProcess.h"
#include "compiler/codegen/rocm/DeviceFunctions.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace pt2c {
namespace {

constexpr const char *kTriple = "amdgcn-amd-amdhsa";
// Code object version 4: what every ROCm from 5.x on loads (LLVM 19 defaults to 5, which
// ROCm releases before 5.5 reject).
constexpr uint32_t kCodeObjectVersion = 400;

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

const llvm::Target *amdgpuTarget(std::string &error) {
  static bool initialized = [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    return true;
  }();
  (void)initialized;
  return llvm::TargetRegistry::lookupTarget(kTriple, error);
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const AmdGpuArch &arch,
                                                         std::string &error) {
  const llvm::Target *target = amdgpuTarget(error);
  if (!target)
    return nullptr;
  // The wavefront size is the architecture's default: 64 on CDNA (its only one), 32 on
  // RDNA. The kernels are right on either: they work in 32-lane groups (thread id / 32,
  // shuffles of width 32), which ds_bpermute keeps inside each half of a 64-lane wave.
  std::string features = arch.waveSize == 64 ? "+wavefrontsize64" : "+wavefrontsize32";
  if (llvm::StringRef(arch.name).starts_with("gfx9"))
    features.clear(); // GFX9 has no wavefront size feature: wave64 is all it runs
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      kTriple, arch.name, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
}

llvm::Expected<std::string> emitObject(llvm::Module &m, llvm::TargetMachine &tm) {
  llvm::SmallString<0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if (tm.addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    return fail("the AMDGPU target cannot emit an object file");
  codegen.run(m);
  return std::string(object.str());
}

} // namespace

llvm::Expected<std::string> findLld() {
  if (const char *path = std::getenv("PT2C_LLD"); path && *path) {
    if (!llvm::sys::fs::can_execute(path))
      return fail("PT2C_LLD=" + llvm::Twine(path) + " is not an executable");
    return std::string(path);
  }
  for (const char *name : {"ld.lld-19", "ld.lld"})
    if (auto path = llvm::sys::findProgramByName(name))
      return *path;
  for (const char *path : {"/usr/bin/ld.lld-19", "/usr/lib/llvm-19/bin/ld.lld"})
    if (llvm::sys::fs::can_execute(path))
      return std::string(path);
  return fail("--target rocm needs ld.lld (LLVM 19's, Debian package lld-19) to link the "
              "code objects; set PT2C_LLD to its path");
}

llvm::Expected<std::vector<CodeObject>> compileToCodeObjects(mlir::gpu::GPUModuleOp kernels,
                                                             const AmdgpuOptions &options) {
  if (options.archs.empty())
    return fail("internal error: no AMD GPU architecture to compile for");
  mlir::registerROCDLDialectTranslation(*kernels.getContext());
  llvm::LLVMContext llvmContext;
  auto translated = translateGpuModule(kernels, "rocdl.kernel", llvmContext);
  if (!translated)
    return translated.takeError();
  llvm::Module &m = *translated->module;

  std::string error;
  auto reference = createTargetMachine(options.archs.front(), error);
  if (!reference)
    return fail("no AMDGPU target in this LLVM: " + error);
  m.setTargetTriple(kTriple);
  m.setDataLayout(reference->createDataLayout());
  m.addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version", kCodeObjectVersion);
  std::vector<std::string> unknown = defineDeviceFunctions(m);
  if (!unknown.empty())
    return fail("internal error: the GPU kernels call " + llvm::Twine(unknown.front()) +
                ", which pt2c does not define (no ROCm device library is linked)");
  if (llvm::verifyModule(m, &llvm::errs()))
    return fail("internal error: the GPU kernels' LLVM IR does not verify");
  if (options.onLLVMIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    m.print(os, nullptr);
    options.onLLVMIR(os.str());
    return std::vector<CodeObject>{};
  }

  ScratchDir scratch;
  if (auto err = scratch.create("pt2c-rocm"))
    return std::move(err);
  std::vector<CodeObject> objects;
  for (const AmdGpuArch &arch : options.archs) {
    auto tm = createTargetMachine(arch, error);
    if (!tm)
      return fail("cannot target " + llvm::Twine(arch.name) + ": " + error);
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(m);
    optimizeModuleO3(*copy, *tm, /*unrollLoops=*/true);
    auto object = emitObject(*copy, *tm);
    if (!object)
      return object.takeError();
    std::string objectFile = scratch.path(std::string(arch.name) + ".o");
    std::string codeObject = scratch.path(std::string(arch.name) + ".hsaco");
    if (auto err = writeFile(objectFile, *object))
      return std::move(err);
    if (auto err = runTool({options.lld, "-shared", "--no-undefined", objectFile, "-o", codeObject},
                           scratch))
      return std::move(err);
    auto elf = readFile(codeObject);
    if (!elf)
      return elf.takeError();
    objects.push_back({arch.name, arch.waveSize, std::move(*elf)});
  }
  return objects;
}

} // namespace pt2c
