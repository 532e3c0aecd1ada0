// pt2c-channels-last-convolutions (CUDA targets, before kernel formation): each f16 or
// bf16 2-d convolution of static shapes with a weight as its filter becomes a
// channels-last prim.convolution between a transpose of its input to [N, H, W, C] and one
// of its result back to [N, C, H, W]; the canonicalizer (transpose sinking) then cancels
// the transposes between neighbouring convolutions. Why: ChannelsLastConvolutions.cpp.
#ifndef PT2C_COMPILER_TRANSFORMS_KERNELS_CHANNELSLASTCONVOLUTIONS_H_
#define PT2C_COMPILER_TRANSFORMS_KERNELS_CHANNELSLASTCONVOLUTIONS_H_

#include <memory>

#include "mlir/Pass/Pass.h"

namespace pt2c {

#define GEN_PASS_DECL_CHANNELSLASTCONVOLUTIONSPASS
#include "compiler/transforms/Passes.h.inc"

} // namespace pt2c

#endif // PT2C_COMPILER_TRANSFORMS_KERNELS_CHANNELSLASTCONVOLUTIONS_H_
