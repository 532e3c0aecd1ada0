// Part of pt2c-fold-weights: an attention bias that no model input reaches and that
// holds exactly the causal mask (0 where key j <= query i, -inf elsewhere, the same for
// every batch and head) becomes prim.attention's `causal` flag. transformers builds a
// decoder's mask from positions rather than asking sdpa for is_causal; as a flag, the
// fused kernels skip the masked half of the scores instead of loading a bias for it.
#ifndef PT2C_COMPILER_TRANSFORMS_FOLD_CAUSALMASK_H_
#define PT2C_COMPILER_TRANSFORMS_FOLD_CAUSALMASK_H_

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace pt2c::fold {

// Rewrites every such prim.attention of `func`; the mask's ops are left dead.
void foldCausalMasks(mlir::func::FuncOp func);

} // namespace pt2c::fold

#endif // PT2C_COMPILER_TRANSFORMS_FOLD_CAUSALMASK_H_
