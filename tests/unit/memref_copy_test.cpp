// memrefCopy (runtime/src/memref_copy.c), the function MLIR's lowering calls for a
// memref.copy between non-contiguous views, against an element-by-element reference
// copy: ranks 0-4, strided and permuted layouts on either side, offsets, size-1 and
// zero-size dims, element sizes 1-8. Bytes of dst outside the view must stay untouched.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "runtime/src/memref_copy.h"

namespace {

// One strided view: MLIR's ranked descriptor laid out as {allocated, aligned, offset,
// sizes[rank], strides[rank]} in int64_t words.
struct View {
  std::vector<int64_t> words;
  pt2c_unranked_memref unranked;

  View(unsigned char *data, int64_t offset, const std::vector<int64_t> &sizes,
       const std::vector<int64_t> &strides) {
    words.resize(3 + 2 * sizes.size());
    std::memcpy(&words[0], &data, sizeof data);
    std::memcpy(&words[1], &data, sizeof data);
    words[2] = offset;
    std::copy(sizes.begin(), sizes.end(), words.begin() + 3);
    std::copy(strides.begin(), strides.end(), words.begin() + 3 + sizes.size());
    unranked = {static_cast<int64_t>(sizes.size()), words.data()};
  }
};

// Byte offset of every element of the view, in row-major index order.
std::vector<int64_t> elementOffsets(int64_t elemSize, int64_t offset,
                                    const std::vector<int64_t> &sizes,
                                    const std::vector<int64_t> &strides) {
  std::vector<int64_t> out{offset * elemSize};
  for (size_t d = 0; d < sizes.size(); ++d) {
    std::vector<int64_t> next;
    for (int64_t base : out)
      for (int64_t i = 0; i < sizes[d]; ++i)
        next.push_back(base + i * strides[d] * elemSize);
    out = next;
  }
  return out;
}

// Copies with memrefCopy and checks every byte of dst against the reference.
void checkCopy(int64_t elemSize, const std::vector<int64_t> &sizes, int64_t srcOffset,
               const std::vector<int64_t> &srcStrides, int64_t dstOffset,
               const std::vector<int64_t> &dstStrides, size_t bufferElems) {
  std::vector<unsigned char> src(bufferElems * elemSize), dst(bufferElems * elemSize, 0xAB);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<unsigned char>(i * 7 + 3);
  std::vector<unsigned char> expected = dst;
  auto from = elementOffsets(elemSize, srcOffset, sizes, srcStrides);
  auto to = elementOffsets(elemSize, dstOffset, sizes, dstStrides);
  int64_t count = std::accumulate(sizes.begin(), sizes.end(), int64_t{1},
                                  [](int64_t a, int64_t b) { return a * b; });
  if (count > 0)
    for (size_t e = 0; e < from.size(); ++e)
      std::memcpy(&expected[to[e]], &src[from[e]], elemSize);

  View s(src.data(), srcOffset, sizes, srcStrides), d(dst.data(), dstOffset, sizes, dstStrides);
  memrefCopy(elemSize, &s.unranked, &d.unranked);
  CHECK(dst == expected);
}

} // namespace

TEST_CASE("memrefCopy copies contiguous views whole", "[memref_copy]") {
  checkCopy(4, {3, 5}, 0, {5, 1}, 2, {5, 1}, 20);
  checkCopy(8, {2, 3, 4}, 1, {12, 4, 1}, 0, {12, 4, 1}, 30);
}

TEST_CASE("memrefCopy of rank 0 copies one element", "[memref_copy]") {
  checkCopy(4, {}, 3, {}, 5, {}, 8);
  checkCopy(2, {}, 0, {}, 1, {}, 2);
}

TEST_CASE("memrefCopy handles strided views of rank 1 to 4", "[memref_copy]") {
  SECTION("rank 1: every other element into a contiguous dst") {
    checkCopy(4, {6}, 1, {2}, 0, {1}, 16);
    checkCopy(1, {5}, 0, {1}, 2, {3}, 20);
  }
  SECTION("rank 2: transposed src, column slice of dst") {
    checkCopy(4, {4, 3}, 0, {1, 4}, 1, {5, 1}, 24); // src is a 3x4 tensor transposed
    checkCopy(2, {3, 2}, 2, {6, 1}, 3, {4, 1}, 20); // inner runs of 2 in both
  }
  SECTION("rank 3: permuted src, window of a larger dst") {
    checkCopy(4, {2, 3, 4}, 0, {4, 8, 1}, 5, {40, 10, 1}, 96);
    checkCopy(8, {2, 2, 3}, 1, {1, 2, 4}, 0, {6, 3, 1}, 16);
  }
  SECTION("rank 4: swin-style window partition (B, H/w, W/w, w, w, C) reorder") {
    // A (1, 4, 4, 2) image read as 2x2 windows of 2x2: dims (wy, wx, y, x) of a C=1
    // plane, with the channel stride folded in.
    checkCopy(4, {2, 2, 2, 2}, 0, {16, 4, 8, 2}, 0, {8, 4, 2, 1}, 40);
    checkCopy(2, {2, 3, 2, 2}, 3, {48, 4, 16, 1}, 1, {24, 8, 4, 2}, 120);
  }
  SECTION("size-1 dims with odd strides do not break contiguous runs") {
    checkCopy(4, {3, 1, 4}, 0, {4, 99, 1}, 2, {4, 7, 1}, 20);
    checkCopy(4, {1, 5}, 1, {1000, 1}, 0, {3, 1}, 8);
  }
}

TEST_CASE("memrefCopy with a zero-size dim writes nothing", "[memref_copy]") {
  checkCopy(4, {0}, 0, {1}, 0, {1}, 4);
  checkCopy(4, {3, 0, 2}, 1, {2, 2, 1}, 0, {2, 2, 1}, 8);
  checkCopy(8, {2, 3, 0}, 0, {1, 2, 7}, 0, {3, 1, 5}, 8);
}
