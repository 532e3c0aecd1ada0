// `--target cuda[:sm_80,sm_90,...]`: which GPU architectures get a cubin.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_CUDATARGET_H_
#define PT2C_COMPILER_CODEGEN_CUDA_CUDATARGET_H_

#include <vector>

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace pt2c {

// "cuda" or "cuda:<list>".
bool isCudaTarget(llvm::StringRef target);

// The SMs of a CUDA target, sorted and unique: "cuda" means sm_80 (A100) and sm_90
// (H100/H200); the newest one's PTX also goes into the fatbin for newer GPUs.
llvm::Expected<std::vector<unsigned>> parseCudaTarget(llvm::StringRef target);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_CUDATARGET_H_
