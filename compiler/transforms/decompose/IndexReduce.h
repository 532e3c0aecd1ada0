// Helpers shared by the decompositions that return positions along a dim (argmax and
// max.dim in ArgReduce.cpp, topk and sort in TopK.cpp): prim has no variadic
// (value, index) reduction, so a position is found as the MIN of the candidate indices.
#ifndef PT2C_COMPILER_TRANSFORMS_DECOMPOSE_INDEXREDUCE_H
#define PT2C_COMPILER_TRANSFORMS_DECOMPOSE_INDEXREDUCE_H

#include "compiler/transforms/decompose/PrimBuilder.h"

namespace pt2c::decompose {

/// The position along `dim` of every element of a tensor shaped like `like`, as i64
/// (a 1-d prim.iota broadcast along the other dims, which may be dynamic). `dim` must
/// be static.
mlir::Value positionsAlong(PrimBuilder &b, mlir::Value like, int64_t dim);

/// The lowest `key` along `dim` among the elements where `hit` holds (reduced: `dim`
/// removed); `none` where no element hits. `key` is i64 (positions, or positions
/// shifted to rank some hits after others).
mlir::Value lowestKeyWhere(PrimBuilder &b, mlir::Value hit, mlir::Value key, int64_t dim,
                           int64_t none);

/// x != x: true at the NaNs of a float tensor.
mlir::Value isNan(PrimBuilder &b, mlir::Value x);

/// `a || b` of two i1 tensors of one shape (prim has selects, not boolean ops).
mlir::Value logicalOr(PrimBuilder &b, mlir::Value lhs, mlir::Value rhs);

} // namespace pt2c::decompose

#endif // PT2C_COMPILER_TRANSFORMS_DECOMPOSE_INDEXREDUCE_H
