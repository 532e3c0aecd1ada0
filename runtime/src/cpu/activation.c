/* SiLU over runs of f32 (activation.h): v / (1 + exp(-v)), with exp(t) = 2^k * exp(r),
 * k = round(t / ln 2), |r| <= ln(2) / 2, exp(r) from a degree-6 polynomial (Cephes'
 * expf coefficients). The AVX-512 and AVX2 loops are one body (silu_template.h) on each
 * ISA's intrinsics: GCC's vector extensions left the polynomial unfused (no FMA
 * contraction in ISO C mode) and took twice as long as the generated kernel this
 * epilogue replaces. */
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
#define TARGET __attribute__((target("avx512f")))
#define VEC __m512
#define LANES 16
#define SET1 _mm512_set1_ps
#define ADD _mm512_add_ps
#define SUB _mm512_sub_ps
#define MUL _mm512_mul_ps
#define DIV _mm512_div_ps
#define MIN _mm512_min_ps
#define MAX _mm512_max_ps
#define FMADD _mm512_fmadd_ps
#define FNMADD _mm512_fnmadd_ps
#define ROUND(v) _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define SCALE_POW2 _mm512_scalef_ps
#define LOAD _mm512_loadu_ps
#define STORE _mm512_storeu_ps
#define NAME silu_avx512
#include "silu_template.h"
#undef TARGET
#undef VEC
#undef LANES
#undef SET1
#undef ADD
#undef SUB
#undef MUL
#undef DIV
#undef MIN
#undef MAX
#undef FMADD
#undef FNMADD
#undef ROUND
#undef SCALE_POW2
#undef LOAD
#undef STORE
#undef NAME

/* 2^k from k's bits: k + 127 in the exponent field. */
__attribute__((target("avx2,fma"))) static __m256 scale_pow2_avx2(__m256 e, __m256 k) {
  __m256i bits =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(e, _mm256_castsi256_ps(bits));
}
#define TARGET __attribute__((target("avx2,fma")))
#define VEC __m256
#define LANES 8
#define SET1 _mm256_set1_ps
#define ADD _mm256_add_ps
#define SUB _mm256_sub_ps
#define MUL _mm256_mul_ps
#define DIV _mm256_div_ps
#define MIN _mm256_min_ps
#define MAX _mm256_max_ps
#define FMADD _mm256_fmadd_ps
#define FNMADD _mm256_fnmadd_ps
#define ROUND(v) _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define SCALE_POW2 scale_pow2_avx2
#define LOAD _mm256_loadu_ps
#define STORE _mm256_storeu_ps
#define NAME silu_avx2
#include "silu_template.h"
#endif

void pt2c_silu_inplace(float *v, int64_t count) {
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
  for (int64_t i = 0; i < count; ++i)
    v[i] = silu_scalar(v[i]);
}
