#include "half_convert.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

static uint32_t float_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static float bits_float(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static _Float16 as_register(uint16_t bits) {
  _Float16 value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static uint16_t from_register(_Float16 value) {
  uint16_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

uint16_t pt2c_f32_to_f16_bits(float value) {
  uint32_t bits = float_bits(value);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u)
    return sign | 0x7e00u; /* NaN */
  if (magnitude >= 0x47800000u)
    return sign | 0x7c00u; /* >= 2^16: infinity */
  if (magnitude < 0x38800000u) {
    /* Below f16's smallest normal (2^-14): adding 0.5 puts the f16 subnormal's bits at
     * the bottom of the f32 mantissa, and the f32 addition rounds to nearest even. */
    uint32_t magic = 0x3f000000u; /* 0.5f */
    return sign | (uint16_t)(float_bits(bits_float(magnitude) + bits_float(magic)) - magic);
  }
  /* Rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest even; a
   * carry out of the mantissa correctly bumps the exponent (up to infinity). */
  uint32_t odd = (magnitude >> 13) & 1u;
  magnitude += 0xc8000000u + 0xfffu + odd;
  return sign | (uint16_t)(magnitude >> 13);
}

float pt2c_f16_bits_to_f32(uint16_t bits) {
  uint32_t sign = (uint32_t)(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu, mantissa = bits & 0x3ffu;
  if (exponent == 0x1f)
    return bits_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) { /* zero or subnormal: mantissa * 2^-24, exact in f32 */
    float magnitude = (float)mantissa * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

float pt2c_bf16_bits_to_f32(uint16_t bits) { return bits_float((uint32_t)bits << 16); }

uint16_t pt2c_f32_to_bf16_bits(float value) { return pt2c_round_to_bf16_bits(float_bits(value)); }

#if defined(__SSE2__)
/* 4 lanes of pt2c_round_to_bf16_bits, each result in its lane's low 16 bits minus
 * 0x8000 (signed), so that a signed-saturating pack keeps all 16 bits. */
static __m128i round4_to_bf16(__m128i bits) {
  const __m128i lsb = _mm_and_si128(_mm_srli_epi32(bits, 16), _mm_set1_epi32(1));
  __m128i rounded =
      _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(bits, _mm_set1_epi32(0x7fff)), lsb), 16);
  /* NaN: magnitude above infinity's, compared as signed (both are non-negative) */
  __m128i magnitude = _mm_and_si128(bits, _mm_set1_epi32(0x7fffffff));
  __m128i nan = _mm_cmpgt_epi32(magnitude, _mm_set1_epi32(0x7f800000));
  __m128i quiet = _mm_or_si128(_mm_srli_epi32(bits, 16), _mm_set1_epi32(0x40));
  __m128i r = _mm_or_si128(_mm_and_si128(nan, quiet), _mm_andnot_si128(nan, rounded));
  return _mm_sub_epi32(r, _mm_set1_epi32(0x8000));
}
#endif

void pt2c_f32_to_bf16_row(const float *src, int64_t count, uint16_t *dst) {
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128i bias = _mm_set1_epi16((short)0x8000);
  for (; i + 8 <= count; i += 8) {
    __m128i lo = round4_to_bf16(_mm_loadu_si128((const __m128i *)(const void *)(src + i)));
    __m128i hi = round4_to_bf16(_mm_loadu_si128((const __m128i *)(const void *)(src + i + 4)));
    __m128i packed = _mm_xor_si128(_mm_packs_epi32(lo, hi), bias);
    _mm_storeu_si128((__m128i *)(void *)(dst + i), packed);
  }
#endif
  for (; i < count; ++i)
    dst[i] = pt2c_round_to_bf16_bits(float_bits(src[i]));
}

/* f64 -> f32 rounded to odd: truncated toward zero, with the last mantissa bit set when
 * anything was dropped. Rounding that to a format at least 2 bits narrower (f16, bf16)
 * to nearest even gives the correctly rounded f64 result (no double rounding). */
static float f64_to_f32_round_to_odd(double value) {
  float nearest = (float)value;
  if ((double)nearest == value || value != value)
    return nearest;
  uint32_t bits = float_bits(nearest);
  /* Rounded away from zero (or to infinity): step one ulp back toward zero. */
  if (__builtin_fabs((double)nearest) > __builtin_fabs(value))
    bits -= 1;
  return bits_float(bits | 1u);
}

uint16_t pt2c_f64_to_f16_bits(double value) {
  return pt2c_f32_to_f16_bits(f64_to_f32_round_to_odd(value));
}

uint16_t pt2c_f64_to_bf16_bits(double value) {
  return pt2c_f32_to_bf16_bits(f64_to_f32_round_to_odd(value));
}

float __extendhfsf2(_Float16 value) { return pt2c_f16_bits_to_f32(from_register(value)); }
double __extendhfdf2(_Float16 value) { return pt2c_f16_bits_to_f32(from_register(value)); }
_Float16 __truncsfhf2(float value) { return as_register(pt2c_f32_to_f16_bits(value)); }
_Float16 __truncdfhf2(double value) { return as_register(pt2c_f64_to_f16_bits(value)); }
_Float16 __truncsfbf2(float value) { return as_register(pt2c_f32_to_bf16_bits(value)); }
_Float16 __truncdfbf2(double value) { return as_register(pt2c_f64_to_bf16_bits(value)); }

#if defined(__x86_64__)
/* A third of a bf16 GEMM epilogue's time went to the SSE2 rounding (bf16 BERT). */
__attribute__((target("avx512f"))) void pt2c_f32_to_bf16_row_avx512(const float *src, int64_t count,
                                                                    uint16_t *dst) {
  int64_t i = 0;
  const __m512i one = _mm512_set1_epi32(1), half = _mm512_set1_epi32(0x7fff);
  for (; i + 16 <= count; i += 16) {
    __m512i bits = _mm512_loadu_si512((const void *)(src + i));
    __m512i high = _mm512_srli_epi32(bits, 16);
    __m512i rounded = _mm512_srli_epi32(
        _mm512_add_epi32(_mm512_add_epi32(bits, half), _mm512_and_si512(high, one)), 16);
    __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff)),
                                            _mm512_set1_epi32(0x7f800000));
    rounded = _mm512_mask_mov_epi32(rounded, nan, _mm512_or_si512(high, _mm512_set1_epi32(0x40)));
    _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm512_cvtepi32_epi16(rounded));
  }
  pt2c_f32_to_bf16_row(src + i, count - i, dst + i);
}
#endif
