// prim -> linalg/tensor/arith/math lowering patterns, one file per group of prim ops,
// and the helpers they share. Results are destination-passing-style tensor code whose
// destinations are tensor.empty ops, ready for one-shot-bufferize.
#ifndef PT2C_COMPILER_TRANSFORMS_LOWER_LOWERINGPATTERNS_H
#define PT2C_COMPILER_TRANSFORMS_LOWER_LOWERINGPATTERNS_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

namespace pt2c::lower {

void populateElementwiseLowering(mlir::RewritePatternSet &patterns);
void populateDataMovementLowering(mlir::RewritePatternSet &patterns);
void populateDotGeneralLowering(mlir::RewritePatternSet &patterns);
void populateConvolutionLowering(mlir::RewritePatternSet &patterns);
void populateReduceWindowLowering(mlir::RewritePatternSet &patterns);
void populatePadLowering(mlir::RewritePatternSet &patterns);
void populateReduceLowering(mlir::RewritePatternSet &patterns);
void populateIndexingLowering(mlir::RewritePatternSet &patterns);
void populateDataDependentLowering(mlir::RewritePatternSet &patterns);
/// prim.nms_keep (NonMaxSuppression.cpp).
void populateNonMaxSuppressionLowering(mlir::RewritePatternSet &patterns);
/// prim.argsort (Sort.cpp).
void populateSortLowering(mlir::RewritePatternSet &patterns);

/// A tensor.empty of `type`; `dynamicSizes` has one index per dynamic dim.
inline mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                               mlir::ValueRange dynamicSizes) {
  return b.create<mlir::tensor::EmptyOp>(loc, type.getShape(), type.getElementType(), dynamicSizes);
}

/// The dynamic sizes of a result of `type` whose dim i has the size of dim
/// `sources[i].second` of `sources[i].first`: one tensor.dim per dynamic dim of `type`.
inline llvm::SmallVector<mlir::Value>
dynamicSizesFrom(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                 llvm::ArrayRef<std::pair<mlir::Value, int64_t>> sources) {
  llvm::SmallVector<mlir::Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(b.create<mlir::tensor::DimOp>(loc, sources[d].first, sources[d].second));
  return sizes;
}

/// The dynamic sizes of `value`'s type, for a result of the same shape.
inline llvm::SmallVector<mlir::Value> dynamicSizesOf(mlir::OpBuilder &b, mlir::Location loc,
                                                     mlir::Value value) {
  auto type = mlir::cast<mlir::RankedTensorType>(value.getType());
  llvm::SmallVector<std::pair<mlir::Value, int64_t>> sources;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sources.push_back({value, d});
  return dynamicSizesFrom(b, loc, type, sources);
}

} // namespace pt2c::lower

#endif // PT2C_COMPILER_TRANSFORMS_LOWER_LOWERINGPATTERNS_H
