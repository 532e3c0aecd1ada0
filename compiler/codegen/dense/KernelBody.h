// Reading a prim-level kernel function (as pt2c-form-kernels outlined it) to decide
// whether a vendor library's GEMM or convolution step can serve it: the helpers that
// GemmKernels.cpp and ConvKernels.cpp both need, so that the two matchers read kernel
// bodies the same way.
#ifndef PT2C_COMPILER_CODEGEN_DENSE_KERNELBODY_H_
#define PT2C_COMPILER_CODEGEN_DENSE_KERNELBODY_H_

#include <optional>
#include <utility>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace pt2c::dense {

// The ops of a one-block, one-result kernel function before its return, and the
// returned value; nullopt for any other function.
std::optional<std::pair<llvm::SmallVector<mlir::Operation *>, mlir::Value>>
body(mlir::func::FuncOp func);

// The index of `value` among `func`'s arguments, or -1.
int argumentIndex(mlir::func::FuncOp func, mlir::Value value);

// An op's DenseI64ArrayAttr `name` (prim's dims, strides and paddings); empty if absent.
llvm::ArrayRef<int64_t> i64Array(mlir::Operation *op, llvm::StringRef name);

// The pt2c_dtype of an element type the GEMM libraries take: f32, f16 or bf16 (half
// types multiply with f32 accumulation, as the fallback kernels' lowering does).
std::optional<uint32_t> gemmDtype(mlir::Type elementType);

// A statically shaped tensor's shape, if its elements have a gemmDtype.
std::optional<llvm::ArrayRef<int64_t>> gemmShape(mlir::Value value);

// The product of `dims` (a static shape's element count).
uint64_t elementCount(llvm::ArrayRef<int64_t> dims);

// A prim.constant splat of float +0.0 (the 0 of max(x, 0), a ReLU).
bool isPositiveZeroFloatSplat(mlir::Value value);

// Whether `op` is an op named `name` (e.g. "prim.add"); false for null.
bool is(mlir::Operation *op, llvm::StringRef name);

// The operands of a binary op as (the one satisfying `pred`, the other), either order:
// the epilogues' commutative adds.
template <typename Predicate>
std::optional<std::pair<mlir::Value, mlir::Value>> split(mlir::Operation *op, Predicate pred) {
  if (!op || op->getNumOperands() != 2)
    return std::nullopt;
  if (pred(op->getOperand(0)))
    return std::make_pair(op->getOperand(0), op->getOperand(1));
  if (pred(op->getOperand(1)))
    return std::make_pair(op->getOperand(1), op->getOperand(0));
  return std::nullopt;
}

} // namespace pt2c::dense

#endif // PT2C_COMPILER_CODEGEN_DENSE_KERNELBODY_H_
