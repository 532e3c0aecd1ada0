// Padding a tensor with a scalar: prim.pad itself, and the padded operands of
// prim.convolution and prim.reduce_window (which pad before their window loops, since
// an affine indexing map cannot skip out-of-bounds taps).
#ifndef PT2C_COMPILER_TRANSFORMS_LOWER_PADDING_H
#define PT2C_COMPILER_TRANSFORMS_LOWER_PADDING_H

#include "mlir/IR/Builders.h"

namespace pt2c::lower {

/// `input` with `low[d]`/`high[d]` elements of `scalar` (of the element type) before
/// and after it in each dim d; `input` itself when there is no padding. Built as a
/// filled destination whose interior a linalg.copy writes through a matching
/// extract_slice/insert_slice pair, which one-shot-bufferize turns into a copy into a
/// subview (no memref.copy: its strided form would need a runtime library).
mlir::Value padWithScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                          mlir::Value scalar, llvm::ArrayRef<int64_t> low,
                          llvm::ArrayRef<int64_t> high);

/// The scalar element of a rank-0 tensor (prim's init and padding values).
mlir::Value extractScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value rank0);

/// The size of the dim of a windowed result (reduce_window, convolution) over input dim
/// `dim` of `input`: floor((size + low + high - dilation * (window - 1) - 1) / stride)
/// + 1, as an index value computed at run time (only used for dynamic dims).
mlir::Value windowedSize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input, int64_t dim,
                         int64_t low, int64_t high, int64_t window, int64_t stride,
                         int64_t dilation);

/// One tap of a window read without a padded copy (inside a loop body, at output index
/// `index`): position index * stride + offset along a dim of `size` elements, where
/// offset = tap * dilation - padding_low. `clamped` is that position clamped into
/// [0, size), safe to read; `inside` whether it is in the input rather than padding.
struct WindowTap {
  mlir::Value clamped, inside;
};
WindowTap windowTap(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index, int64_t stride,
                    int64_t offset, int64_t size);

} // namespace pt2c::lower

#endif // PT2C_COMPILER_TRANSFORMS_LOWER_PADDING_H
