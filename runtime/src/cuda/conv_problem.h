/* A plan convolution as the convolution libraries describe it (cuDNN in cuda_conv.c, MIOpen
 * in ../rocm/miopen_conv.c): int dims and strides of packed tensors of rank 4 or 5, a
 * 1-d convolution as a 2-d one of height 1 (both libraries' descriptors take 4 or 5
 * dims), and the filter, padding, stride, dilation and groups. Internal. */
#ifndef PT2C_RUNTIME_CUDA_CONV_PROBLEM_H_
#define PT2C_RUNTIME_CUDA_CONV_PROBLEM_H_

#include "../plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PT2C_CONV_MAX_RANK = 2 + PT2C_CONV_MAX_SPATIAL };

typedef struct pt2c_conv_problem {
  int rank;                                         /* 2 + spatial: 4 or 5 */
  int spatial;                                      /* the library's spatial dims: at least 2 */
  int x[PT2C_CONV_MAX_RANK], y[PT2C_CONV_MAX_RANK]; /* [n, channels, sizes...] */
  int w[PT2C_CONV_MAX_RANK];                        /* [k, channels / groups, kernel...] */
  int bias[PT2C_CONV_MAX_RANK];                     /* [1, k, 1...] */
  int padding[PT2C_CONV_MAX_SPATIAL], stride[PT2C_CONV_MAX_SPATIAL],
      dilation[PT2C_CONV_MAX_SPATIAL];
  int groups;
} pt2c_conv_problem;

/* Describes `c`; returns 0 when a tensor's element count does not fit the libraries' int
 * strides (the plan's checks bound each size, not their products). */
int pt2c_conv_problem_make(const pt2c_plan_conv *c, pt2c_conv_problem *out);

/* The strides of a packed tensor of `dims`: NCHW order, or (`channels_last`) the channel
 * stride 1 and the others in [n, sizes..., channels] order. */
void pt2c_conv_packed_strides(const int *dims, int rank, int channels_last, int *strides);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CUDA_CONV_PROBLEM_H_ */
