#include "compiler/codegen/cuda/CudaToolkit.h"

#include "compiler/codegen/cuda/ToolProcess.h"

#include <cstdlib>

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace pt2c {
namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string join(llvm::StringRef a, llvm::StringRef b) {
  llvm::SmallString<256> p(a);
  llvm::sys::path::append(p, b);
  return std::string(p);
}

bool isToolkit(const std::string &root) {
  return llvm::sys::fs::can_execute(join(root, "bin/ptxas")) &&
         llvm::sys::fs::can_execute(join(root, "bin/fatbinary"));
}

} // namespace

llvm::Expected<CudaToolkit> findCudaToolkit() {
  std::vector<std::string> candidates;
  for (const char *var : {"PT2C_CUDA_HOME", "CUDA_HOME"})
    if (const char *value = std::getenv(var); value && *value)
      candidates.push_back(value);
  candidates.push_back("/usr/local/cuda");
  if (auto ptxas = llvm::sys::findProgramByName("ptxas"))
    candidates.push_back(
        std::string(llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas))));
  for (const std::string &root : candidates) {
    if (!isToolkit(root))
      continue;
    CudaToolkit t{root, join(root, "bin/ptxas"), join(root, "bin/fatbinary"),
                  join(root, "nvvm/libdevice/libdevice.10.bc")};
    return t;
  }
  std::string tried;
  for (const std::string &c : candidates)
    tried += "\n  " + c;
  return fail("--target cuda needs the CUDA toolkit (ptxas, fatbinary, libdevice); looked "
              "in:" +
              tried + "\nset PT2C_CUDA_HOME to the toolkit's directory");
}

llvm::Expected<std::string> buildFatbin(const CudaToolkit &toolkit,
                                        const std::map<unsigned, std::string> &ptx) {
  if (ptx.empty())
    return fail("internal error: no PTX to pack");
  ScratchDir scratch;
  if (auto err = scratch.create("pt2c-cuda"))
    return std::move(err);
  std::string fatbin = scratch.path("kernels.fatbin");
  std::vector<std::string> pack = {toolkit.fatbinary, "--64", "--create=" + fatbin};
  std::string newestPtx;
  for (const auto &[sm, text] : ptx) {
    std::string arch = "sm_" + std::to_string(sm);
    std::string ptxFile = scratch.path(arch + ".ptx"), cubin = scratch.path(arch + ".cubin");
    if (auto err = writeFile(ptxFile, text))
      return std::move(err);
    if (auto err = runTool({toolkit.ptxas, "-arch=" + arch, "-O3", ptxFile, "-o", cubin}, scratch))
      return std::move(err);
    pack.push_back("--image3=kind=elf,sm=" + std::to_string(sm) + ",file=" + cubin);
    newestPtx = "--image3=kind=ptx,sm=" + std::to_string(sm) + ",file=" + ptxFile;
  }
  pack.push_back(newestPtx); // std::map: the last SM is the newest
  if (auto err = runTool(pack, scratch))
    return std::move(err);
  return readFile(fatbin);
}

} // namespace pt2c
