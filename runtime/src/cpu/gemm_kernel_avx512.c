/* The AVX-512 GEMM microkernel: the 6 x 32 tile in one pass of 12 zmm accumulators.
 * Built with -mavx512f (its own Bazel target); called only when the CPU has AVX-512. */
#include "gemm_kernel_avx512_vec.h"

#define V_FMA(a, b, acc) _mm512_fmadd_ps(a, b, acc)
#define KERNEL_NAME pt2c_gemm_kernel_avx512

#include "gemm_kernel_template.h"
