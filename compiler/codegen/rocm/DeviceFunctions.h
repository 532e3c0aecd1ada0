// The few functions of ROCm's device libraries that convert-gpu-to-rocdl calls, defined
// in the kernels' LLVM module so that no device library is linked: the __ocml_* math
// functions for the math ops pt2c leaves it (sqrt, rsqrt, floor, fabs, ...; the
// transcendental ones are polynomials by then, RocdlLowering.h) as the LLVM intrinsics
// the AMDGPU backend selects, and ockl's __ockl_get_local_size / __ockl_get_num_groups
// (gpu.block_dim and gpu.grid_dim of kernels without a known block size) from the HSA
// dispatch packet. A call to any other library function stays undefined, and ld.lld
// --no-undefined refuses it.
#ifndef PT2C_COMPILER_CODEGEN_ROCM_DEVICEFUNCTIONS_H_
#define PT2C_COMPILER_CODEGEN_ROCM_DEVICEFUNCTIONS_H_

#include "llvm/IR/Module.h"

namespace pt2c {

// Gives every declared function of those a body (internal, so that it is inlined and
// dropped); returns the names of the __ocml_/__ockl_ functions it cannot define.
std::vector<std::string> defineDeviceFunctions(llvm::Module &m);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_ROCM_DEVICEFUNCTIONS_H_
