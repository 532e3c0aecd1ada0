/* The AVX2 + FMA GEMM microkernel: the 6 x 32 tile as two passes of 6 x 16 (12 ymm
 * accumulators). Built with -mavx2 -mfma; called only when the CPU has both. */
#include <immintrin.h>

/* Lane i of the mask is set when i < n: masked loads and stores of a partial row. */
static inline __m256i first_lanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

#define VEC __m256
#define VLEN 8
#define NVR 2
#define V_ZERO() _mm256_setzero_ps()
#define V_LOAD(p) _mm256_loadu_ps(p)
#define V_STORE(p, v) _mm256_storeu_ps(p, v)
#define V_BCAST(p) _mm256_broadcast_ss(p)
#define V_FMA(a, b, acc) _mm256_fmadd_ps(a, b, acc)
#define V_ADD(a, b) _mm256_add_ps(a, b)
#define V_RELU(v) _mm256_max_ps(v, _mm256_setzero_ps())
#define V_LOAD_N(p, n) _mm256_maskload_ps(p, first_lanes(n))
#define V_STORE_N(p, v, n) _mm256_maskstore_ps(p, first_lanes(n), v)
#define KERNEL_NAME pt2c_gemm_kernel_avx2

#include "gemm_kernel_template.h"
