// The __ocml_* functions (ROCm's device math library) that convert-gpu-to-rocdl calls for
// the math ops pt2c leaves it (sqrt, rsqrt, floor, fabs, ...; the transcendental ones
// are polynomials by then, RocdlLowering.h), defined in the kernels' LLVM module as the
// LLVM intrinsics the AMDGPU backend selects. So no device library is linked; a call to
// any other library function stays undefined and ld.lld --no-undefined refuses it.
#ifndef PT2C_COMPILER_CODEGEN_ROCM_OCMLINTRINSICS_H_
#define PT2C_COMPILER_CODEGEN_ROCM_OCMLINTRINSICS_H_

#include "llvm/IR/Module.h"

namespace pt2c {

// Gives every declared __ocml_<name>_f16/_f32/_f64 of the table a body (internal, so it
// is inlined and dropped); returns the names of the __ocml_ functions it cannot define.
std::vector<std::string> defineOcmlAsIntrinsics(llvm::Module &m);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_ROCM_OCMLINTRINSICS_H_
