// p-norms of magnitudes over some dims, shared by the vector norms (Norms.cpp) and the
// distances (Distances.cpp).
#pragma once

#include "compiler/transforms/decompose/PrimBuilder.h"

namespace pt2c::decompose {

/// The p-norm over `dims` (which the result drops) of `magnitudes`, the absolute values
/// of a float tensor: p = inf the largest, -inf the smallest, 0 the count of non-zeros,
/// 1 the sum, 2 the square root of the sum of squares, any other p (sum |x|^p)^(1/p).
mlir::Value pNorm(PrimBuilder &b, mlir::Value magnitudes, double p, llvm::ArrayRef<int64_t> dims);

} // namespace pt2c::decompose
