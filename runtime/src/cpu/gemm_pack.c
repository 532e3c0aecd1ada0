/* Packing into the microkernels' panels (gemm_kernel.h). Each f32 loop nest walks the
 * source along its unit stride, so transposed operands pack as fast as plain ones. */
#include "gemm_pack.h"

#include <string.h>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "cpu_gemm.h"
#include "gemm_kernel.h"

enum { MR = PT2C_GEMM_MR, NR = PT2C_GEMM_NR };

static int64_t panels(int64_t extent, int64_t width) { return (extent + width - 1) / width; }

#if defined(__SSE2__)
_Static_assert(MR == 6, "pack_a_6x4 packs panels of six rows");

/* Columns [kk, kk + 4) of six rows of a row-major A (row i at rows[i]) into the panel
 * (dst[j * MR + i] for j < 4): rows 0-3 by a 4 x 4 transpose, rows 4 and 5 interleaved in
 * pairs. One float at a time, the panel's 24-byte stride made each store wait (a third
 * of a BERT layer's GEMM time beside the kernel at sequence 512). */
static void pack_a_6x4(const float *const rows[MR], int64_t kk, float *dst) {
  __m128 r0 = _mm_loadu_ps(rows[0] + kk), r1 = _mm_loadu_ps(rows[1] + kk);
  __m128 r2 = _mm_loadu_ps(rows[2] + kk), r3 = _mm_loadu_ps(rows[3] + kk);
  __m128 r4 = _mm_loadu_ps(rows[4] + kk), r5 = _mm_loadu_ps(rows[5] + kk);
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3); /* r_j: rows 0-3 at column kk + j */
  __m128 low = _mm_unpacklo_ps(r4, r5), high = _mm_unpackhi_ps(r4, r5);
  _mm_storeu_ps(dst, r0);
  _mm_storel_pi((__m64 *)(void *)(dst + 4), low);
  _mm_storeu_ps(dst + 6, r1);
  _mm_storeh_pi((__m64 *)(void *)(dst + 10), low);
  _mm_storeu_ps(dst + 12, r2);
  _mm_storel_pi((__m64 *)(void *)(dst + 16), high);
  _mm_storeu_ps(dst + 18, r3);
  _mm_storeh_pi((__m64 *)(void *)(dst + 22), high);
}
#endif

void pt2c_gemm_pack_a_panel(const void *source, int64_t row_stride, int64_t col_stride, int64_t m,
                            int64_t k, int64_t panel, void *packed) {
  const float *a = source;
  float *dst = packed;
  int64_t row0 = panel * MR;
  int rows = m - row0 < MR ? (int)(m - row0) : MR;
  if (rows < MR)
    memset(dst, 0, sizeof(float) * MR * k);
#if defined(__SSE2__)
  if (col_stride == 1 && rows == MR) { /* a whole panel of row-major A */
    const float *src[MR];
    for (int i = 0; i < MR; ++i)
      src[i] = a + (row0 + i) * row_stride;
    int64_t kk = 0;
    for (; kk + 4 <= k; kk += 4)
      pack_a_6x4(src, kk, dst + kk * MR);
    for (; kk < k; ++kk)
      for (int i = 0; i < MR; ++i)
        dst[kk * MR + i] = src[i][kk];
    return;
  }
#endif
  if (col_stride == 1) { /* row-major A: each row is contiguous */
    for (int i = 0; i < rows; ++i) {
      const float *src = a + (row0 + i) * row_stride;
      for (int64_t kk = 0; kk < k; ++kk)
        dst[kk * MR + i] = src[kk];
    }
  } else {
    for (int64_t kk = 0; kk < k; ++kk) {
      const float *src = a + row0 * row_stride + kk * col_stride;
      for (int i = 0; i < rows; ++i)
        dst[kk * MR + i] = src[i * row_stride];
    }
  }
}

void pt2c_gemm_pack_b_panel(const void *source, int64_t row_stride, int64_t col_stride, int64_t k,
                            int64_t n, int64_t panel, void *packed) {
  const float *b = source;
  float *dst = packed;
  int64_t col0 = panel * NR;
  int cols = n - col0 < NR ? (int)(n - col0) : NR;
  if (cols < NR)
    memset(dst, 0, sizeof(float) * NR * k);
  if (col_stride == 1) { /* row-major B: each row of the panel is contiguous */
    for (int64_t kk = 0; kk < k; ++kk)
      memcpy(dst + kk * NR, b + kk * row_stride + col0, sizeof(float) * cols);
  } else {
    for (int j = 0; j < cols; ++j) {
      const float *src = b + (col0 + j) * col_stride;
      for (int64_t kk = 0; kk < k; ++kk)
        dst[kk * NR + j] = src[kk * row_stride];
    }
  }
}

/* The slot of two bf16 values: `low` first along K. */
static inline uint32_t pair(uint16_t low, uint16_t high) {
  return (uint32_t)low | (uint32_t)high << 16;
}

void pt2c_gemm_pack_a_panel_bf16(const void *source, int64_t row_stride, int64_t col_stride,
                                 int64_t m, int64_t k, int64_t panel, void *packed) {
  const uint16_t *a = source;
  uint32_t *dst = packed;
  int64_t row0 = panel * MR, depth = pt2c_gemm_packed_depth(1, k), even = k & ~(int64_t)1;
  int rows = m - row0 < MR ? (int)(m - row0) : MR;
  if (rows < MR)
    memset(dst, 0, sizeof(uint32_t) * MR * depth);
  if (col_stride == 1) { /* row-major A: a slot is two neighbours of a row, as they are */
    for (int i = 0; i < rows; ++i) {
      const uint16_t *src = a + (row0 + i) * row_stride;
      for (int64_t p = 0; p < even / 2; ++p)
        memcpy(&dst[p * MR + i], src + 2 * p, 4);
      if (k & 1)
        dst[even / 2 * MR + i] = pair(src[even], 0);
    }
    return;
  }
  for (int i = 0; i < rows; ++i) {
    const uint16_t *src = a + (row0 + i) * row_stride;
    for (int64_t kk = 0; kk < even; kk += 2)
      dst[kk / 2 * MR + i] = pair(src[kk * col_stride], src[(kk + 1) * col_stride]);
    if (k & 1)
      dst[even / 2 * MR + i] = pair(src[even * col_stride], 0);
  }
}

void pt2c_gemm_pack_b_panel_bf16(const void *source, int64_t row_stride, int64_t col_stride,
                                 int64_t k, int64_t n, int64_t panel, void *packed) {
  const uint16_t *b = source;
  uint32_t *dst = packed;
  int64_t col0 = panel * NR, depth = pt2c_gemm_packed_depth(1, k), even = k & ~(int64_t)1;
  int cols = n - col0 < NR ? (int)(n - col0) : NR;
  if (cols < NR)
    memset(dst, 0, sizeof(uint32_t) * NR * depth);
  if (col_stride == 1) { /* row-major B: rows 2p and 2p + 1 of the panel are contiguous */
    for (int64_t kk = 0; kk < k; kk += 2) {
      const uint16_t *lo = b + kk * row_stride + col0;
      const uint16_t *hi = kk + 1 < k ? lo + row_stride : NULL;
      for (int j = 0; j < cols; ++j)
        dst[kk / 2 * NR + j] = pair(lo[j], hi ? hi[j] : 0);
    }
  } else { /* each column of the panel is contiguous (B transposed: a weight [n, k]) */
    for (int j = 0; j < cols; ++j) {
      const uint16_t *src = b + (col0 + j) * col_stride;
      for (int64_t kk = 0; kk < even; kk += 2)
        dst[kk / 2 * NR + j] = pair(src[kk * row_stride], src[(kk + 1) * row_stride]);
      if (k & 1)
        dst[even / 2 * NR + j] = pair(src[even * row_stride], 0);
    }
  }
}

size_t pt2c_gemm_packed_a_bytes(pt2c_gemm_operands operands, int64_t m, int64_t k) {
  return sizeof(uint32_t) *
         (size_t)(panels(m, MR) * MR * pt2c_gemm_packed_depth(operands == PT2C_GEMM_BF16, k));
}

size_t pt2c_gemm_packed_b_bytes(pt2c_gemm_operands operands, int64_t k, int64_t n) {
  return sizeof(uint32_t) *
         (size_t)(panels(n, NR) * NR * pt2c_gemm_packed_depth(operands == PT2C_GEMM_BF16, k));
}

/* Every panel of a matrix through `fn` (one of the four above). */
typedef void (*panel_fn)(const void *src, int64_t row_stride, int64_t col_stride, int64_t rows,
                         int64_t cols, int64_t panel, void *dst);

static void pack_panels(panel_fn fn, int64_t width, int bf16, const void *src, int64_t row_stride,
                        int64_t col_stride, int64_t rows, int64_t cols, int64_t extent,
                        int64_t depth, void *packed) {
  int64_t panel_slots = width * pt2c_gemm_packed_depth(bf16, depth);
  for (int64_t p = 0; p < panels(extent, width); ++p)
    fn(src, row_stride, col_stride, rows, cols, p, (uint32_t *)packed + p * panel_slots);
}

void pt2c_gemm_pack_a(pt2c_gemm_operands operands, const void *a, int64_t row_stride,
                      int64_t col_stride, int64_t m, int64_t k, void *packed) {
  int bf16 = operands == PT2C_GEMM_BF16;
  panel_fn fn = bf16 ? pt2c_gemm_pack_a_panel_bf16 : pt2c_gemm_pack_a_panel;
  pack_panels(fn, MR, bf16, a, row_stride, col_stride, m, k, m, k, packed);
}

void pt2c_gemm_pack_b(pt2c_gemm_operands operands, const void *b, int64_t row_stride,
                      int64_t col_stride, int64_t k, int64_t n, void *packed) {
  int bf16 = operands == PT2C_GEMM_BF16;
  panel_fn fn = bf16 ? pt2c_gemm_pack_b_panel_bf16 : pt2c_gemm_pack_b_panel;
  pack_panels(fn, NR, bf16, b, row_stride, col_stride, k, n, n, k, packed);
}
