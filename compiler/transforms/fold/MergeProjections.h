// Part of pt2c-fold-weights, for the GPU (a module marked pt2c.fused_ops): sibling
// projections of one activation become one matrix product. Attention's q, k and v
// Linears (BERT, T5, Whisper; a cross-attention's k and v), a gated MLP's gate and up,
// each read the same x with their own constant weight: x W1^T (+ b1), x W2^T (+ b2), ...
// They become x [W1; W2; ...]^T (+ [b1; b2; ...]), and each result a slice of it. The
// joined weight is a concatenation of weights, which the evaluation step folds into one
// derived weight (the originals then have no reader left and leave the blob).
//
// Why it pays: one GEMM launch instead of P, on a wider N that fills more of the GPU at
// small batch, and the slices cost nothing where their readers read them in place:
//   - attention alone reads them (equal output sizes N): the product is reshaped to
//     [..., P, N] and prim.attention's `parts` read their part of it;
//   - elementwise kernels read them (SiLU(gate) * up; rotary embeddings of q and k, of
//     any sizes, grouped-query attention's too): each result's reshape, [lead..., H,
//     inner...], becomes a slice of the product viewed as [lead..., sum of H, inner...],
//     which the elementwise kernel reads in place (a reshape between the slice and its
//     reader would make the slice a copy and eat the saving).
// Projections read any other way stay apart. The CPU is left alone: there attention is
// decomposed and a slice a copy.
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
