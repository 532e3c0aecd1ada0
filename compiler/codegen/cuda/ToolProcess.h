// Running the external tools of GPU code generation (CUDA's ptxas and fatbinary, ROCm's
// ld.lld) on files in a scratch directory that is removed afterwards.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_TOOLPROCESS_H_
#define PT2C_COMPILER_CODEGEN_CUDA_TOOLPROCESS_H_

#include <string>
#include <vector>

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace pt2c {

// Files made for one build, removed (with the directory) when it is destroyed.
class ScratchDir {
public:
  ~ScratchDir();
  // `prefix` names the directory (pt2c-cuda-XXXXXX).
  llvm::Error create(llvm::StringRef prefix);
  // A path in the directory, removed with it.
  std::string path(const std::string &name);

private:
  llvm::SmallString<128> dir;
  std::vector<std::string> files;
};

llvm::Error writeFile(const std::string &path, llvm::StringRef contents);
llvm::Expected<std::string> readFile(const std::string &path);

// Runs a tool (args[0] is its path); its output becomes part of the error when it fails.
llvm::Error runTool(const std::vector<std::string> &args, ScratchDir &scratch);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_TOOLPROCESS_H_
