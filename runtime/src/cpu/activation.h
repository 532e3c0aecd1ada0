/* Activations that convolution and GEMM epilogues apply in place to finished blocks of
 * their result while the block is in cache (cpu_gemm.h's epilogue.activation). Internal. */
#ifndef PT2C_RUNTIME_CPU_ACTIVATION_H_
#define PT2C_RUNTIME_CPU_ACTIVATION_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* v[i] = silu(v[i]) = v[i] / (1 + exp(-v[i])) for i < count, vectorized per ISA.
 * Relative error below 1e-6 against the exact value on every ISA; NaN stays NaN; below
 * -88 the result is a tiny negative number where the exact one underflows to -0. */
void pt2c_silu_inplace(float *v, int64_t count);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CPU_ACTIVATION_H_ */
