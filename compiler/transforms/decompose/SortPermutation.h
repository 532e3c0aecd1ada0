// topk and sort through prim.argsort (SortPermutation.cpp): the form TopK.cpp falls
// back to where its static selection and rank table do not apply.
#ifndef PT2C_COMPILER_TRANSFORMS_DECOMPOSE_SORTPERMUTATION_H
#define PT2C_COMPILER_TRANSFORMS_DECOMPOSE_SORTPERMUTATION_H

#include "compiler/transforms/decompose/PrimBuilder.h"
#include "mlir/IR/OpDefinition.h"

namespace pt2c::decompose {

/// The values and the indices of `x` along `dim` in eager's sorted order (largest
/// first when `largest`; NaN larger than every number; ties by position), as topk and
/// sort return them: the first `count` of them (an IntegerAttr, or an index Value for a
/// count known at run time), or all of them where `count` is null. The sorted dim may
/// be dynamic, and any long.
llvm::SmallVector<mlir::Value> sortByPermutation(PrimBuilder &b, mlir::Value x, int64_t dim,
                                                 bool largest, mlir::OpFoldResult count = {});

} // namespace pt2c::decompose

#endif // PT2C_COMPILER_TRANSFORMS_DECOMPOSE_SORTPERMUTATION_H
