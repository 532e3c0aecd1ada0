// The CUDA toolkit pieces pt2c runs at compile time (never at model run time): ptxas
// (PTX -> cubin per architecture), fatbinary (cubins + PTX -> one fatbin) and libdevice.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_CUDATOOLKIT_H_
#define PT2C_COMPILER_CODEGEN_CUDA_CUDATOOLKIT_H_

#include <map>
#include <string>

#include "llvm/Support/Error.h"

namespace pt2c {

struct CudaToolkit {
  std::string root; // e.g. /usr/local/cuda
  std::string ptxas, fatbinary, libdevice;
};

// $PT2C_CUDA_HOME, else $CUDA_HOME, else /usr/local/cuda, else the directory above the
// ptxas on PATH; an error names what is missing.
llvm::Expected<CudaToolkit> findCudaToolkit();

// Assembles `ptx` (per SM) into cubins with ptxas and packs them with the PTX of the
// newest SM (for GPUs newer than any cubin: the driver JIT-compiles it) into a fatbin.
// Returns the fatbin's bytes. ptxas and fatbinary messages are in the error.
llvm::Expected<std::string> buildFatbin(const CudaToolkit &toolkit,
                                        const std::map<unsigned, std::string> &ptx);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_CUDATOOLKIT_H_
