// Part of pt2c-fold-weights, for the GPU (a module marked pt2c.fused_ops): sibling
// projections of one activation become one matrix product. Attention's q, k and v
// Linears (BERT, T5, Whisper; a cross-attention's k and v) each read the same x with
// their own constant weight: x W1^T (+ b1), x W2^T (+ b2), ... With equal output sizes N
// they become x [W1; W2; ...]^T (+ [b1; b2; ...]), reshaped to [..., P, N], and each
// result a slice of part i of it. The joined weight is a concatenation of weights, which
// the evaluation step folds into one derived weight (the originals then have no reader
// left and leave the blob).
//
// Why it pays: one GEMM launch instead of P, on a wider N that fills more of the GPU at
// small batch, and the slices cost nothing: attention reads its parts of the packed
// projection in place (prim.attention `parts`). Only projections read by attention
// alone merge: a slice read through a reshape by an elementwise kernel (a gated MLP's
// gate and up, rotary embeddings of q and k) is still a copy, which would eat the
// saving. The CPU is left alone: there attention is decomposed and a slice a copy.
#ifndef PT2C_COMPILER_TRANSFORMS_FOLD_MERGEPROJECTIONS_H_
#define PT2C_COMPILER_TRANSFORMS_FOLD_MERGEPROJECTIONS_H_

#include <functional>

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace pt2c::fold {

// Merges every group of such projections in `func` whose weights (and biases) satisfy
// `isFoldable` (their values are known at compile time, so the joined weight folds);
// true if anything changed.
bool mergeSiblingProjections(mlir::func::FuncOp func,
                             const std::function<bool(mlir::Value)> &isFoldable);

} // namespace pt2c::fold

#endif // PT2C_COMPILER_TRANSFORMS_FOLD_MERGEPROJECTIONS_H_
