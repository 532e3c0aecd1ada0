// The rewrites of pt2c-fold-weights that move per-channel constant math into the weight
// of the convolution or matrix product before it (batch norm folding), so that the
// evaluator can then fold it.
#ifndef PT2C_COMPILER_TRANSFORMS_FOLD_FOLDSCALES_H_
#define PT2C_COMPILER_TRANSFORMS_FOLD_FOLDSCALES_H_

#include "mlir/IR/PatternMatch.h"

namespace pt2c::fold {

// mul(conv(x, W), bcast(s)) -> conv(x, W * bcast(s)) when s varies only along the
// output channels (likewise dot_general and the free dims of its constant operand);
// mul(add(y, c1), c2) -> add(mul(y, c2), mul(c1, c2)) when the first mul can then fold;
// the same through the convert of an f16/bf16 product (FoldLowPrecision.h);
// add(add(y, c1), c2) -> add(y, add(c1, c2));
// add(add(y1, c1), add(y2, c2)) -> add(y1, add(y2, add(c1, c2)));
// op(bcast(a), bcast(b)) -> bcast(op(a, b))
// on constants. c, s: weight-only values (FoldWeights.h: isWeightOnly).
void populateScaleFoldingPatterns(mlir::RewritePatternSet &patterns);

} // namespace pt2c::fold

#endif // PT2C_COMPILER_TRANSFORMS_FOLD_FOLDSCALES_H_
