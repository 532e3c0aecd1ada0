// pt2c-pointwise-convolution-products (CUDA targets, before kernel formation): a 1x1
// convolution (stride 1, no padding, one group, static shapes) becomes a prim.dot_general
// that the GEMM library runs. Why and which forms: PointwiseConvolutions.cpp.
#ifndef PT2C_COMPILER_TRANSFORMS_KERNELS_POINTWISECONVOLUTIONS_H_
#define PT2C_COMPILER_TRANSFORMS_KERNELS_POINTWISECONVOLUTIONS_H_

#include <memory>

#include "mlir/Pass/Pass.h"

namespace pt2c {

#define GEN_PASS_DECL_POINTWISECONVOLUTIONPRODUCTSPASS
#include "compiler/transforms/Passes.h.inc"

} // namespace pt2c

#endif // PT2C_COMPILER_TRANSFORMS_KERNELS_POINTWISECONVOLUTIONS_H_
