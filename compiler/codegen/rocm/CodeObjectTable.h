// Packs one code object per AMD GPU architecture into the table a ROCm model.so embeds
// (runtime/include/pt2c/rocm_code_objects.h).
#ifndef PT2C_COMPILER_CODEGEN_ROCM_CODEOBJECTTABLE_H_
#define PT2C_COMPILER_CODEGEN_ROCM_CODEOBJECTTABLE_H_

#include <string>
#include <vector>

#include "llvm/Support/Error.h"

namespace pt2c {

struct CodeObject {
  std::string arch; // "gfx90a"
  unsigned waveSize = 64;
  std::string elf; // the linked code object
};

llvm::Expected<std::string> packCodeObjects(const std::vector<CodeObject> &objects);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_ROCM_CODEOBJECTTABLE_H_
