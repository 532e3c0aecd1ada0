/* f32 NCHW convolution for CPU plans, with bias, residual and relu or SiLU fused: 1-D and 2-D
 * convolutions (pt2c_plan_conv, plan_format.h) on the GEMM kernels (cpu_gemm.h) or, for
 * depthwise ones, a direct kernel; all split over the thread pool. Internal. */
#ifndef PT2C_RUNTIME_CPU_CPU_CONV_H_
#define PT2C_RUNTIME_CPU_CPU_CONV_H_

#include "pt2c/plan_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A convolution's geometry and its weights, packed once (at model create). */
typedef struct pt2c_conv_prepacked pt2c_conv_prepacked;

/* NULL when this conv is not served here (not f32, or spatial_rank 3: the caller runs its
 * fallback steps) or when out of memory. w is [K, C/G, kernel...]; it is copied. */
pt2c_conv_prepacked *pt2c_conv_prepack(const pt2c_plan_conv *conv, const float *w);
void pt2c_conv_prepacked_free(pt2c_conv_prepacked *p);

/* What the epilogue applies last. */
typedef enum {
  PT2C_CONV_ACT_NONE = 0,
  PT2C_CONV_ACT_RELU = 1, /* max(., 0) */
  PT2C_CONV_ACT_SILU = 2, /* . * sigmoid(.) (activation.h) */
} pt2c_conv_activation;

/* y = conv(x) (+ bias[k] per output channel, when bias) (+ z, same shape as y, when z)
 * (then the activation). z must not overlap y. */
void pt2c_conv_run(const pt2c_conv_prepacked *p, const float *x, const float *bias, const float *z,
                   pt2c_conv_activation activation, float *y);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CPU_CPU_CONV_H_ */
