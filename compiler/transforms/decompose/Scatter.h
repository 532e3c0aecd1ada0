// Writes into a tensor at computed positions, shared by the decompositions of
// index_put, index_copy, index_fill and max_unpool2d (ScatterWrites.cpp,
// InPlaceForms.cpp) and by pt2c-functionalize's writes through strided views
// (functionalize/ViewScatter.cpp). prim has no scatter op: a write is a compare of
// every target position with every index (a one-hot [n, size] table), then a gather
// of the written element (or a masked sum, to accumulate) and a select.
#ifndef PT2C_COMPILER_TRANSFORMS_DECOMPOSE_SCATTER_H
#define PT2C_COMPILER_TRANSFORMS_DECOMPOSE_SCATTER_H

#include "compiler/transforms/decompose/PrimBuilder.h"

namespace pt2c::decompose {

/// The largest one-hot table (index count x positions, times the batch) a scatter
/// builds; beyond it the decomposition fails with its reason rather than build a
/// kernel that would take minutes.
constexpr int64_t kMaxScatterTable = int64_t(1) << 24;
/// The most terms an accumulating scatter sums (index count x tensor elements).
constexpr int64_t kMaxScatterSum = int64_t(1) << 28;

/// `self` with slice k of `source` along `dim` written at position index[..., k] of
/// `dim` (added to what is there when `accumulate`). `index` is i64 (or any integer)
/// of shape self.shape[:batchDims] ++ [n], with batchDims 0 (one index list for the
/// whole tensor) or `dim` (one list per position of the leading dims, as max_unpool's);
/// its entries lie in [0, size of dim). `source` has self's shape with `dim` of size n.
/// Without `accumulate` a position written twice keeps the last write, as eager's CPU
/// loops do. Static shapes, except that without `accumulate` the count n may be
/// dynamic, and so may `dim` itself where there are no batch dims.
mlir::Value scatterAlong(PrimBuilder &b, mlir::Value self, int64_t dim, mlir::Value index,
                         mlir::Value source, bool accumulate, int64_t batchDims = 0);

/// `parent` with elements start, start + step, ... of `dim` replaced by the slices of
/// `piece` (parent's shape with `dim` of the piece's length): the inverse of a strided
/// slice. Static shapes only.
mlir::Value replaceStrided(PrimBuilder &b, mlir::Value parent, int64_t dim, int64_t start,
                           int64_t step, mlir::Value piece);

/// The geometry of aten::diagonal(x, offset, dim1, dim2): x transposed so dim1, dim2
/// come last and those two flattened into one dim of n1 * n2 elements, where the
/// diagonal is the strided slice start, start + step, ... of `length` elements.
struct DiagonalLayout {
  llvm::SmallVector<int64_t> permutation; // x -> [others..., dim1, dim2]
  int64_t start = 0, step = 1, length = 0;
};
std::optional<DiagonalLayout> diagonalLayout(PrimBuilder &b, mlir::RankedTensorType type,
                                             int64_t offset, int64_t dim1, int64_t dim2);
/// `x` as the layout's flattened tensor [others..., n1 * n2].
mlir::Value diagonalFlattened(PrimBuilder &b, mlir::Value x, const DiagonalLayout &layout);

/// The row-major position of the indexed elements of `self` in its first k dims
/// (Indexing.cpp): k integer index tensors, broadcast together to `indexShape` (its
/// dynamic sizes in `indexSizes`), negative ones wrapped; sum(i_j * stride_j) as i64.
mlir::Value flatIndexPosition(PrimBuilder &b, mlir::Value self, mlir::ValueRange indices,
                              llvm::ArrayRef<int64_t> indexShape, mlir::ValueRange indexSizes);

} // namespace pt2c::decompose

#endif // PT2C_COMPILER_TRANSFORMS_DECOMPOSE_SCATTER_H
