// Reading the window arguments of ATen's convolution and pooling schemas (int[2]
// kernel_size=3 means [3, 3]; stride=[] means the kernel size) and turning them into
// the per-dim attributes of prim.convolution and prim.reduce_window.
#ifndef PT2C_COMPILER_TRANSFORMS_DECOMPOSE_WINDOWARGS_H
#define PT2C_COMPILER_TRANSFORMS_DECOMPOSE_WINDOWARGS_H

#include <optional>

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace pt2c::decompose {

/// `values` as `n` entries: one entry stands for all n; absent or empty is `otherwise`
/// (which must then have 1 or n entries). An empty result means a length mismatch.
inline llvm::SmallVector<int64_t> windowArg(std::optional<llvm::ArrayRef<int64_t>> values, size_t n,
                                            llvm::ArrayRef<int64_t> otherwise) {
  llvm::ArrayRef<int64_t> v = values && !values->empty() ? *values : otherwise;
  if (v.size() == 1)
    return llvm::SmallVector<int64_t>(n, v[0]);
  if (v.size() != n)
    return {};
  return llvm::SmallVector<int64_t>(v.begin(), v.end());
}

/// The high padding that makes a window of `window` taps (`dilation` apart) sliding by
/// `stride` over `size` elements padded by `low` produce exactly `count` positions:
/// ATen's ceil_mode may need more than the symmetric padding, floor mode may leave
/// trailing elements unread (then no high padding is needed).
inline int64_t highPaddingFor(int64_t count, int64_t size, int64_t low, int64_t window,
                              int64_t stride, int64_t dilation) {
  int64_t needed = (count - 1) * stride + dilation * (window - 1) + 1 - size - low;
  return needed > 0 ? needed : 0;
}

} // namespace pt2c::decompose

#endif // PT2C_COMPILER_TRANSFORMS_DECOMPOSE_WINDOWARGS_H
