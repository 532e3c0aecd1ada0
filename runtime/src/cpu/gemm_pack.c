/* Packing into the microkernels' panels (gemm_kernel.h). Each loop nest walks the source
 * along its unit stride, so transposed operands pack as fast as plain ones. */
#include "gemm_pack.h"

#include <string.h>

#include "cpu_gemm.h"
#include "gemm_kernel.h"

enum { MR = PT2C_GEMM_MR, NR = PT2C_GEMM_NR };

static int64_t panels(int64_t extent, int64_t width) { return (extent + width - 1) / width; }

void pt2c_gemm_pack_a_panel(const float* a, int64_t row_stride, int64_t col_stride,
                            int64_t m, int64_t k, int64_t panel, float* dst) {
  int64_t row0 = panel * MR;
  int rows = m - row0 < MR ? (int)(m - row0) : MR;
  if (rows < MR) memset(dst, 0, sizeof(float) * MR * k);
  if (col_stride == 1) { /* row-major A: each row is contiguous */
    for (int i = 0; i < rows; ++i) {
      const float* src = a + (row0 + i) * row_stride;
      for (int64_t kk = 0; kk < k; ++kk) dst[kk * MR + i] = src[kk];
    }
  } else {
    for (int64_t kk = 0; kk < k; ++kk) {
      const float* src = a + row0 * row_stride + kk * col_stride;
      for (int i = 0; i < rows; ++i) dst[kk * MR + i] = src[i * row_stride];
    }
  }
}

void pt2c_gemm_pack_b_panel(const float* b, int64_t row_stride, int64_t col_stride,
                            int64_t k, int64_t n, int64_t panel, float* dst) {
  int64_t col0 = panel * NR;
  int cols = n - col0 < NR ? (int)(n - col0) : NR;
  if (cols < NR) memset(dst, 0, sizeof(float) * NR * k);
  if (col_stride == 1) { /* row-major B: each row of the panel is contiguous */
    for (int64_t kk = 0; kk < k; ++kk)
      memcpy(dst + kk * NR, b + kk * row_stride + col0, sizeof(float) * cols);
  } else {
    for (int j = 0; j < cols; ++j) {
      const float* src = b + (col0 + j) * col_stride;
      for (int64_t kk = 0; kk < k; ++kk) dst[kk * NR + j] = src[kk * row_stride];
    }
  }
}

size_t pt2c_sgemm_packed_a_bytes(int64_t m, int64_t k) {
  return sizeof(float) * (size_t)(panels(m, MR) * MR * k);
}

size_t pt2c_sgemm_packed_b_bytes(int64_t k, int64_t n) {
  return sizeof(float) * (size_t)(panels(n, NR) * NR * k);
}

void pt2c_sgemm_pack_a(const float* a, int64_t row_stride, int64_t col_stride, int64_t m,
                       int64_t k, void* packed) {
  for (int64_t p = 0; p < panels(m, MR); ++p)
    pt2c_gemm_pack_a_panel(a, row_stride, col_stride, m, k, p, (float*)packed + p * MR * k);
}

void pt2c_sgemm_pack_b(const float* b, int64_t row_stride, int64_t col_stride, int64_t k,
                       int64_t n, void* packed) {
  for (int64_t p = 0; p < panels(n, NR); ++p)
    pt2c_gemm_pack_b_panel(b, row_stride, col_stride, k, n, p, (float*)packed + p * NR * k);
}
