// Links a model's object file with the prebuilt runtime archive into model.so, using
// LLVM's lld. Only the C ABI (runtime/exports.map) is exported; libstdc++ is never
// needed, so NEEDED lists libc and libm alone.
#ifndef PT2C_COMPILER_CODEGEN_SHAREDLIBRARYLINKER_H_
#define PT2C_COMPILER_CODEGEN_SHAREDLIBRARYLINKER_H_

#include <string>
#include <vector>

#include "llvm/Support/Error.h"

namespace pt2c {

struct LinkInputs {
  std::vector<std::string> objects;
  std::vector<std::string> archives; // the runtime
  std::string versionScript;         // runtime/exports.map
  std::string soname;
};

// Writes `output`; on failure the error carries the linker's own message.
llvm::Error linkSharedLibrary(const LinkInputs &inputs, const std::string &output);

// The lld this build uses: $PT2C_LLD, else ld.lld-19 or ld.lld from LLVM 19.
llvm::Expected<std::string> findLinker();

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_SHAREDLIBRARYLINKER_H_
