/* Plan convolutions as the libraries describe them (see conv_problem.h). */
#include "conv_problem.h"

#include <stdint.h>
#include <string.h>

/* Whether every tensor's element count fits an int. */
static int fits_int(const pt2c_plan_conv *c) {
  uint64_t x = c->batch * c->in_channels, w = c->out_channels * (c->in_channels / c->groups),
           y = c->batch * c->out_channels;
  for (int d = 0; d < PT2C_CONV_MAX_SPATIAL; ++d) {
    if (__builtin_mul_overflow(x, c->input[d], &x) || __builtin_mul_overflow(w, c->kernel[d], &w) ||
        __builtin_mul_overflow(y, c->output[d], &y))
      return 0;
  }
  return x <= INT32_MAX && w <= INT32_MAX && y <= INT32_MAX;
}

int pt2c_conv_problem_make(const pt2c_plan_conv *c, pt2c_conv_problem *out) {
  memset(out, 0, sizeof(*out));
  if (!fits_int(c))
    return 0;
  int spatial = c->spatial_rank < 2 ? 2 : (int)c->spatial_rank;
  int added = spatial - (int)c->spatial_rank; /* a leading height of 1 */
  out->spatial = spatial;
  out->rank = 2 + spatial;
  out->groups = (int)c->groups;
  out->x[0] = out->y[0] = (int)c->batch;
  out->x[1] = (int)c->in_channels;
  out->y[1] = out->w[0] = out->bias[1] = (int)c->out_channels;
  out->w[1] = (int)(c->in_channels / c->groups);
  out->bias[0] = 1;
  for (int d = 0; d < spatial; ++d) {
    int from = d - added, real = from >= 0;
    out->x[2 + d] = real ? (int)c->input[from] : 1;
    out->y[2 + d] = real ? (int)c->output[from] : 1;
    out->w[2 + d] = real ? (int)c->kernel[from] : 1;
    out->bias[2 + d] = 1;
    out->padding[d] = real ? (int)c->padding[from] : 0;
    out->stride[d] = real ? (int)c->stride[from] : 1;
    out->dilation[d] = real ? (int)c->dilation[from] : 1;
  }
  return 1;
}

void pt2c_conv_packed_strides(const int *dims, int rank, int channels_last, int *strides) {
  strides[rank - 1] = 1;
  for (int d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * dims[d + 1];
  if (!channels_last)
    return;
  strides[1] = 1;
  int stride = dims[1];
  for (int d = rank - 1; d >= 2; --d) {
    strides[d] = stride;
    stride *= dims[d];
  }
  strides[0] = stride;
}
