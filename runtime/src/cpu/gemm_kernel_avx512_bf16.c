/* The AVX-512-BF16 GEMM microkernel: the 6 x 32 tile in 12 zmm f32 accumulators, each
 * vdpbf16ps adding two products along K (a pair of bf16 per 4-byte slot, gemm_pack.h):
 * twice the f32 kernel's multiply-adds per instruction. Built with -mavx512bf16 (its own
 * Bazel target); called only when the CPU has it. */
#include "gemm_kernel_avx512_vec.h"

/* The slot's bits, not its value as a float: a pair of bf16. */
#define AVEC __m512bh
#define V_BCAST_A(p) ((__m512bh)_mm512_set1_epi32(*(const int *)(const void *)(p)))
#define BVEC __m512bh
#define V_LOAD_B(p) ((__m512bh)_mm512_loadu_si512((const void *)(p)))
#define V_FMA(a, b, acc) _mm512_dpbf16_ps(acc, a, b)
#define KERNEL_NAME pt2c_gemm_kernel_avx512_bf16

#include "gemm_kernel_template.h"
