/* The AVX-512-BF16 GEMM microkernel: the 6 x 32 tile in 12 zmm f32 accumulators, each
 * vdpbf16ps adding two products along K (a pair of bf16 per 4-byte slot, gemm_pack.h):
 * twice the f32 kernel's multiply-adds per instruction. Built with -mavx512bf16 (its own
 * Bazel target); called only when the CPU has it. */
#include <immintrin.h>

#define VEC __m512
#define VLEN 16
#define NVR 2
#define V_ZERO() _mm512_setzero_ps()
#define V_LOAD(p) _mm512_loadu_ps(p)
#define V_STORE(p, v) _mm512_storeu_ps(p, v)
#define V_BCAST(p) _mm512_set1_ps(*(p))
#define V_ADD(a, b) _mm512_add_ps(a, b)
#define V_RELU(v) _mm512_max_ps(v, _mm512_setzero_ps())
#define V_LOAD_N(p, n) _mm512_maskz_loadu_ps((__mmask16)((1u << (n)) - 1), p)
#define V_STORE_N(p, v, n) _mm512_mask_storeu_ps(p, (__mmask16)((1u << (n)) - 1), v)
/* The slot's bits, not its value as a float: a pair of bf16. */
#define AVEC __m512bh
#define V_BCAST_A(p) ((__m512bh)_mm512_set1_epi32(*(const int*)(const void*)(p)))
#define BVEC __m512bh
#define V_LOAD_B(p) ((__m512bh)_mm512_loadu_si512((const void*)(p)))
#define V_FMA(a, b, acc) _mm512_dpbf16_ps(acc, a, b)
#define KERNEL_NAME pt2c_gemm_kernel_avx512_bf16

#include "gemm_kernel_template.h"
