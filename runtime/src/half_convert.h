/* The f16/bf16 conversion functions LLVM calls on x86-64 when the CPU has no conversion
 * instructions (no F16C for half, no AVX512-BF16 for bfloat), under compiler-rt's and
 * libgcc's names. A model.so must not need libgcc_s, so the runtime carries them.
 * Internal: kernels in the same model.so resolve them at link time (-fvisibility=hidden
 * and the version script keep them out of the exported symbols).
 *
 * LLVM passes and returns half and bfloat in the low 16 bits of an XMM register, as the
 * x86-64 psABI does for _Float16; GCC 12 has no arithmetic __bf16, so the bf16 functions
 * are declared with _Float16 too: same register, the bits are bf16's. */
#ifndef PT2C_RUNTIME_HALF_CONVERT_H_
#define PT2C_RUNTIME_HALF_CONVERT_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* f32 -> bf16 bits, round to nearest even, NaN stays NaN (quiet): inline for loops over
 * whole rows (pt2c_f32_to_bf16_bits is this, out of line). */
static inline uint16_t pt2c_round_to_bf16_bits(uint32_t f32_bits) {
  if ((f32_bits & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((f32_bits >> 16) | 0x40u);
  return (uint16_t)((f32_bits + 0x7fffu + ((f32_bits >> 16) & 1u)) >> 16);
}

/* Bit-level conversions, round to nearest even; NaN stays NaN (quiet). */
uint16_t pt2c_f32_to_f16_bits(float value);
float pt2c_f16_bits_to_f32(uint16_t bits);
float pt2c_bf16_bits_to_f32(uint16_t bits); /* exact: bf16 is f32's upper half */
uint16_t pt2c_f32_to_bf16_bits(float value);
/* count f32 values to bf16 bits, each as pt2c_f32_to_bf16_bits gives, 8 at a time
 * with SSE2 where the target has it (every x86-64): the GEMM epilogue's narrow step. */
void pt2c_f32_to_bf16_row(const float *src, int64_t count, uint16_t *dst);
#if defined(__x86_64__)
/* The same 16 at a time with AVX-512F: call only where the CPU has it. */
void pt2c_f32_to_bf16_row_avx512(const float *src, int64_t count, uint16_t *dst);
#endif
uint16_t pt2c_f64_to_f16_bits(double value);
uint16_t pt2c_f64_to_bf16_bits(double value);

/* The libcalls (compiler-rt's signatures). */
float __extendhfsf2(_Float16 value);
double __extendhfdf2(_Float16 value);
_Float16 __truncsfhf2(float value);
_Float16 __truncdfhf2(double value);
_Float16 __truncsfbf2(float value);  /* returns bf16 bits */
_Float16 __truncdfbf2(double value); /* returns bf16 bits */

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_HALF_CONVERT_H_ */
