// `--target rocm[:gfx90a,gfx942,gfx1100]`: which AMD GPU architectures get a code object.
#ifndef PT2C_COMPILER_CODEGEN_ROCM_ROCMTARGET_H_
#define PT2C_COMPILER_CODEGEN_ROCM_ROCMTARGET_H_

#include <string>
#include <vector>

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace pt2c {

// What the compiler and its test need to know of one architecture.
struct AmdGpuArch {
  const char *name;        // LLVM's processor name, e.g. "gfx90a"
  unsigned waveSize;       // lanes per wavefront LLVM compiles for by default (64 or 32)
  unsigned ldsBytes;       // local data share (shared memory) per workgroup
  const char *description; // for messages
};

// "rocm" or "rocm:<list>".
bool isRocmTarget(llvm::StringRef target);

// The architectures of a ROCm target, sorted and unique: "rocm" means gfx90a (MI200),
// gfx942 (MI300) and gfx1100 (RX 7900).
llvm::Expected<std::vector<AmdGpuArch>> parseRocmTarget(llvm::StringRef target);

// The architectures pt2c compiles for (LLVM 19's AMDGPU backend knows them all).
const std::vector<AmdGpuArch> &supportedAmdGpuArchs();

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_ROCM_ROCMTARGET_H_
