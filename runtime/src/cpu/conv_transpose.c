/* The pixel-major convolution's last pass: its GEMM's result y^T [HW, K/G] back into
 * NCHW rows, with residual and relu. 4 x 4 blocks transposed in SSE registers (baseline
 * x86-64), so that y^T is read and y written four floats at a time. */
#include "conv_internal.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

static inline float finish(float v, const float *z, int64_t at, int relu) {
  if (z)
    v += z[at];
  return relu && v < 0.0f ? 0.0f : v;
}

void pt2c_conv_transpose_channels(const float *t, int64_t ld, int64_t pixels, int64_t c0,
                                  int64_t c1, const float *z, int relu, float *y) {
  int64_t c = c0;
#if defined(__SSE2__)
  int64_t q4 = pixels / 4 * 4;
  __m128 zero = _mm_setzero_ps();
  for (; c + 4 <= c1; c += 4) {
    for (int64_t q = 0; q < q4; q += 4) {
      __m128 r0 = _mm_loadu_ps(t + q * ld + c), r1 = _mm_loadu_ps(t + (q + 1) * ld + c);
      __m128 r2 = _mm_loadu_ps(t + (q + 2) * ld + c), r3 = _mm_loadu_ps(t + (q + 3) * ld + c);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3); /* r_i: channel c + i, pixels q .. q + 3 */
      __m128 rows[4] = {r0, r1, r2, r3};
      for (int i = 0; i < 4; ++i) {
        int64_t at = (c + i) * pixels + q;
        __m128 v = rows[i];
        if (z)
          v = _mm_add_ps(v, _mm_loadu_ps(z + at));
        if (relu)
          v = _mm_max_ps(v, zero);
        _mm_storeu_ps(y + at, v);
      }
    }
    for (int i = 0; i < 4; ++i)
      for (int64_t q = q4; q < pixels; ++q) {
        int64_t at = (c + i) * pixels + q;
        y[at] = finish(t[q * ld + c + i], z, at, relu);
      }
  }
#endif
  for (; c < c1; ++c)
    for (int64_t q = 0; q < pixels; ++q) {
      int64_t at = c * pixels + q;
      y[at] = finish(t[q * ld + c], z, at, relu);
    }
}
