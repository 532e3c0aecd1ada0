/* SiLU over runs of f32 (activation.h): v / (1 + exp(-v)), with exp(t) = 2^k * exp(r),
 * k = round(t / ln 2), |r| <= ln(2) / 2, exp(r) from a degree-6 polynomial (Cephes'
 * expf coefficients). The AVX-512 and AVX2 loops are written with intrinsics: GCC's
 * vector extensions left the polynomial unfused (no FMA contraction in ISO C mode) and
 * took twice as long as the generated kernel this epilogue replaces. */
#include "activation.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu_gemm.h" /* pt2c_cpu_best_isa */

/* -v is clamped to [kLow, kHigh] so that 2^k stays a normal float; there the result is
 * already 0 or v to f32 precision. A NaN v stays NaN through the final division. */
static const float kLow = -87.0f, kHigh = 88.0f;
static const float kLog2e = 1.44269504088896341f;
static const float kLn2High = 0.693359375f, kLn2Low = -2.12194440e-4f; /* k * high exact */
static const float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f,
                   kP3 = 4.1665795894e-2f, kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;

static float silu_scalar(float v) {
  float t = -v;
  t = t < kLow ? kLow : t > kHigh ? kHigh : t;
  float k = nearbyintf(t * kLog2e);
  float r = t - k * kLn2High;
  r = r - k * kLn2Low;
  float p = ((((kP0 * r + kP1) * r + kP2) * r + kP3) * r + kP4) * r + kP5;
  float e = ldexpf(p * r * r + r + 1.0f, (int)k);
  return v / (1.0f + e);
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) static __m512 silu16(__m512 x) {
  __m512 t = _mm512_max_ps(_mm512_min_ps(_mm512_sub_ps(_mm512_setzero_ps(), x),
                                         _mm512_set1_ps(kHigh)),
                           _mm512_set1_ps(kLow));
  __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(t, _mm512_set1_ps(kLog2e)),
                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2High), t);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2Low), r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kP0), r, _mm512_set1_ps(kP1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP5));
  __m512 e = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
  e = _mm512_scalef_ps(e, k);
  return _mm512_div_ps(x, _mm512_add_ps(e, _mm512_set1_ps(1.0f)));
}

__attribute__((target("avx512f"))) static void silu_avx512(float* v, int64_t count) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) _mm512_storeu_ps(v + i, silu16(_mm512_loadu_ps(v + i)));
  if (i < count) {
    __mmask16 tail = (__mmask16)((1u << (count - i)) - 1);
    _mm512_mask_storeu_ps(v + i, tail, silu16(_mm512_maskz_loadu_ps(tail, v + i)));
  }
}

__attribute__((target("avx2,fma"))) static __m256 silu8(__m256 x) {
  __m256 t = _mm256_max_ps(_mm256_min_ps(_mm256_sub_ps(_mm256_setzero_ps(), x),
                                         _mm256_set1_ps(kHigh)),
                           _mm256_set1_ps(kLow));
  __m256 k = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(kLog2e)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2High), t);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2Low), r);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kP0), r, _mm256_set1_ps(kP1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP5));
  __m256 e = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
  /* 2^k from k's bits: k + 127 in the exponent field (k is in [-126, 127]) */
  __m256i scale = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
  e = _mm256_mul_ps(e, _mm256_castsi256_ps(scale));
  return _mm256_div_ps(x, _mm256_add_ps(e, _mm256_set1_ps(1.0f)));
}

__attribute__((target("avx2,fma"))) static void silu_avx2(float* v, int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) _mm256_storeu_ps(v + i, silu8(_mm256_loadu_ps(v + i)));
  for (; i < count; ++i) v[i] = silu_scalar(v[i]);
}
#endif

void pt2c_silu_inplace(float* v, int64_t count) {
#if defined(__x86_64__)
  switch (pt2c_cpu_best_isa()) {
    case PT2C_CPU_ISA_AVX512_BF16:
    case PT2C_CPU_ISA_AVX512:
      silu_avx512(v, count);
      return;
    case PT2C_CPU_ISA_AVX2:
      silu_avx2(v, count);
      return;
    default:
      break;
  }
#endif
  for (int64_t i = 0; i < count; ++i) v[i] = silu_scalar(v[i]);
}
