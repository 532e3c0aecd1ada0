/* The f32 vector operations of the AVX-512 GEMM microkernels (gemm_kernel_template.h's
 * VEC ... V_STORE_N): the 6 x 32 tile in one pass of 12 zmm accumulators. Included by
 * gemm_kernel_avx512.c and gemm_kernel_avx512_bf16.c, which add the K loop's operations. */
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
