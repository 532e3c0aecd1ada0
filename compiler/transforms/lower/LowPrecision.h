// f16/bf16 contractions accumulate in f32, as PyTorch's CPU kernels and cuBLAS's f32
// compute type do: a half product summed in half loses about log2(K) bits. The
// contraction's destination is f32 and its result is rounded to the op's type once.
#ifndef PT2C_COMPILER_TRANSFORMS_LOWER_LOWPRECISION_H
#define PT2C_COMPILER_TRANSFORMS_LOWER_LOWPRECISION_H

#include "compiler/transforms/lower/LoweringPatterns.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace pt2c::lower {

/// The element type sums of `elementType` values accumulate in.
inline mlir::Type accumulatorType(mlir::Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return mlir::Float32Type::get(elementType.getContext());
  return elementType;
}

/// `value` as `type` (a float type at least as wide): arith.extf unless it already is.
inline mlir::Value extendTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                            mlir::Type type) {
  if (value.getType() == type)
    return value;
  return b.create<mlir::arith::ExtFOp>(loc, type, value);
}

/// The accumulator tensor `acc` rounded to `type` (same shape) by an elementwise
/// linalg.generic; `acc` itself when the types already agree.
inline mlir::Value roundAccumulator(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
                                    mlir::RankedTensorType type) {
  if (acc.getType() == type)
    return acc;
  mlir::Value empty = emptyTensor(b, loc, type, dynamicSizesOf(b, loc, acc));
  auto identity = b.getMultiDimIdentityMap(type.getRank());
  llvm::SmallVector<mlir::utils::IteratorType> iterators(type.getRank(),
                                                         mlir::utils::IteratorType::parallel);
  return b
      .create<mlir::linalg::GenericOp>(
          loc, mlir::TypeRange{type}, mlir::ValueRange{acc}, mlir::ValueRange{empty},
          llvm::ArrayRef<mlir::AffineMap>{identity, identity}, iterators,
          [&](mlir::OpBuilder &nested, mlir::Location l, mlir::ValueRange args) {
            mlir::Value rounded =
                nested.create<mlir::arith::TruncFOp>(l, type.getElementType(), args[0]);
            nested.create<mlir::linalg::YieldOp>(l, rounded);
          })
      ->getResult(0);
}

} // namespace pt2c::lower

#endif // PT2C_COMPILER_TRANSFORMS_LOWER_LOWPRECISION_H
