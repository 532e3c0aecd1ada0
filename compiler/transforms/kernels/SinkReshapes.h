// pt2c-sink-reshapes (GPU targets, just before kernel formation): reshapes move below the
// elementwise ops that read them, so that those join their producer's kernel
// (ir/prim/LayoutSinking.h says which).
#ifndef PT2C_COMPILER_TRANSFORMS_KERNELS_SINKRESHAPES_H_
#define PT2C_COMPILER_TRANSFORMS_KERNELS_SINKRESHAPES_H_

#include <memory>

#include "mlir/Pass/Pass.h"

namespace pt2c {

#define GEN_PASS_DECL_SINKRESHAPESPASS
#include "compiler/transforms/Passes.h.inc"

} // namespace pt2c

#endif // PT2C_COMPILER_TRANSFORMS_KERNELS_SINKRESHAPES_H_
