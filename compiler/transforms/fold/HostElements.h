// The element-level helpers the host evaluator's files share (HostEvaluator.cpp for
// elementwise math, HostStructuredOps.cpp for data movement and reductions): rounding to
// an element type, integer wrapping, empty tensors, row-major strides.
#ifndef PT2C_COMPILER_TRANSFORMS_FOLD_HOSTELEMENTS_H_
#define PT2C_COMPILER_TRANSFORMS_FOLD_HOSTELEMENTS_H_

#include <cstdint>

#include "compiler/transforms/fold/HostEvaluator.h"
#include "llvm/ADT/SmallVector.h"

namespace pt2c::fold {

// Rounds a double to the float type `t` stands for (f16/bf16: to nearest, ties to even).
double roundFloat(double x, mlir::Type t);

// Wraps an integer to the width and signedness of `t` (two's complement, as the
// generated code does).
int64_t wrapInt(int64_t x, mlir::Type t);

// A zero-filled tensor of `type`.
HostTensor emptyTensor(mlir::RankedTensorType type);

// Row-major strides of `shape` (in elements).
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

// out[i] = in[j], for ops that move elements of either kind (same element type).
inline void copyElement(HostTensor &out, int64_t i, const HostTensor &in, int64_t j) {
  if (out.isFloat())
    out.floats[i] = in.floats[j];
  else
    out.ints[i] = in.ints[j];
}

} // namespace pt2c::fold

#endif // PT2C_COMPILER_TRANSFORMS_FOLD_HOSTELEMENTS_H_
