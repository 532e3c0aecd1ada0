#include "half_convert.h"

#include <string.h>

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
  if (magnitude > 0x7f800000u) return sign | 0x7e00u; /* NaN */
  if (magnitude >= 0x47800000u) return sign | 0x7c00u; /* >= 2^16: infinity */
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
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) { /* zero or subnormal: mantissa * 2^-24, exact in f32 */
    float magnitude = (float)mantissa * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

float pt2c_bf16_bits_to_f32(uint16_t bits) { return bits_float((uint32_t)bits << 16); }

uint16_t pt2c_f32_to_bf16_bits(float value) {
  return pt2c_round_to_bf16_bits(float_bits(value));
}

/* f64 -> f32 rounded to odd: truncated toward zero, with the last mantissa bit set when
 * anything was dropped. Rounding that to a format at least 2 bits narrower (f16, bf16)
 * to nearest even gives the correctly rounded f64 result (no double rounding). */
static float f64_to_f32_round_to_odd(double value) {
  float nearest = (float)value;
  if ((double)nearest == value || value != value) return nearest;
  uint32_t bits = float_bits(nearest);
  /* Rounded away from zero (or to infinity): step one ulp back toward zero. */
  if (__builtin_fabs((double)nearest) > __builtin_fabs(value)) bits -= 1;
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
