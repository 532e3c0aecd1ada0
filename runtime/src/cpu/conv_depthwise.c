/* Depthwise convolution (one input channel per output channel) computed directly: a GEMM
 * of depth kernel_h * kernel_w would be all packing.
 *
 * Each output row goes in chunks of 8 (then 4) columns whose accumulators stay in vector
 * registers while every tap is added, so the row is stored once instead of once per tap.
 * Only columns whose taps all fall inside the input row (at stride 1) take that path; the
 * few at the edges, and strided rows, check each tap. */
#include "conv_internal.h"

#include <stddef.h>
#include <string.h>

enum { CHUNK = 8, LANES = 4 }; /* CHUNK: columns per edge_columns call */

/* GCC/Clang vectors (SSE2 on baseline x86-64): plain loops over a float array stayed
 * scalar, and in memory. */
typedef float v4f __attribute__((vector_size(16)));

static inline v4f load4(const float* p) {
  v4f v;
  memcpy(&v, p, sizeof(v));
  return v;
}

/* The first output column whose input column ow * stride + offset is >= 0, and one past
 * the last whose input column is < in_w. */
static void valid_span(int64_t offset, int64_t stride, int64_t in_w, int64_t out_w,
                       int64_t* lo, int64_t* hi) {
  *lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  *hi = in_w - offset <= 0 ? 0 : (in_w - offset + stride - 1) / stride;
  if (*hi > out_w) *hi = out_w;
  if (*lo > *hi) *lo = *hi;
}

/* Columns [o0, o0 + 4 * VECS) of output row oh, every tap inside the input row: the
 * accumulators are vector locals, so they stay in registers across all taps. */
#define DEFINE_INTERIOR(name, VECS)                                                        \
  static void name(const pt2c_conv_geometry* g, const float* x, const float* w, float bias, \
                   int64_t oh, int64_t o0, float* acc_out) {                               \
    v4f acc[VECS];                                                                         \
    for (int v = 0; v < VECS; ++v) acc[v] = (v4f){bias, bias, bias, bias};                 \
    for (int64_t r = 0; r < g->kernel_h; ++r) {                                            \
      int64_t ih = oh * g->stride_h - g->pad_h + r * g->dilation_h;                        \
      if (ih < 0 || ih >= g->in_h) continue;                                               \
      const float* row = x + ih * g->in_w + o0 - g->pad_w;                                 \
      for (int64_t s = 0; s < g->kernel_w; ++s) {                                          \
        float weight = w[r * g->kernel_w + s];                                             \
        v4f wv = {weight, weight, weight, weight};                                         \
        const float* in = row + s * g->dilation_w;                                         \
        for (int v = 0; v < VECS; ++v) acc[v] += wv * load4(in + LANES * v);               \
      }                                                                                    \
    }                                                                                      \
    memcpy(acc_out, acc, sizeof(acc));                                                     \
  }
DEFINE_INTERIOR(interior_8, 2)
DEFINE_INTERIOR(interior_4, 1)

/* Columns [o0, o1) of one output row (a few at an edge), checking each tap. */
static void edge_columns(const pt2c_conv_geometry* g, const float* x, const float* w,
                         float bias, int64_t oh, int64_t o0, int64_t o1, float* acc) {
  for (int64_t ow = o0; ow < o1; ++ow) {
    float sum = bias;
    for (int64_t r = 0; r < g->kernel_h; ++r) {
      int64_t ih = oh * g->stride_h - g->pad_h + r * g->dilation_h;
      if (ih < 0 || ih >= g->in_h) continue;
      for (int64_t s = 0; s < g->kernel_w; ++s) {
        int64_t iw = ow * g->stride_w - g->pad_w + s * g->dilation_w;
        if (iw >= 0 && iw < g->in_w) sum += w[r * g->kernel_w + s] * x[ih * g->in_w + iw];
      }
    }
    acc[ow - o0] = sum;
  }
}

/* acc (+ residual, relu) -> columns [o0, o1) of output row oh. */
static void store_columns(const pt2c_conv_geometry* g, const float* acc, const float* z,
                          int relu, int64_t oh, int64_t o0, int64_t o1, float* y) {
  for (int64_t ow = o0; ow < o1; ++ow) {
    float v = acc[ow - o0] + (z ? z[oh * g->out_w + ow] : 0.0f);
    y[oh * g->out_w + ow] = relu && v < 0.0f ? 0.0f : v;
  }
}

void pt2c_conv_depthwise_plane(const pt2c_conv_geometry* g, const float* x, const float* w,
                               float bias, const float* z, int relu, float* y) {
  /* Output columns whose every tap is inside the input row: [first, last). */
  int64_t reach = (g->kernel_w - 1) * g->dilation_w, first, last, unused;
  valid_span(-g->pad_w, g->stride_w, g->in_w, g->out_w, &first, &unused);
  valid_span(reach - g->pad_w, g->stride_w, g->in_w, g->out_w, &unused, &last);
  if (last < first) last = first;
  float acc[CHUNK];
  for (int64_t oh = 0; oh < g->out_h; ++oh) {
    for (int64_t o0 = 0; o0 < first; o0 += CHUNK) { /* left edge */
      int64_t o1 = o0 + CHUNK < first ? o0 + CHUNK : first;
      edge_columns(g, x, w, bias, oh, o0, o1, acc);
      store_columns(g, acc, z, relu, oh, o0, o1, y);
    }
    int64_t o0 = first;
    if (g->stride_w == 1) { /* strided rows gather: they take the checked path */
      for (; o0 + 8 <= last; o0 += 8) {
        interior_8(g, x, w, bias, oh, o0, acc);
        store_columns(g, acc, z, relu, oh, o0, o0 + 8, y);
      }
      for (; o0 + 4 <= last; o0 += 4) {
        interior_4(g, x, w, bias, oh, o0, acc);
        store_columns(g, acc, z, relu, oh, o0, o0 + 4, y);
      }
    }
    for (; o0 < g->out_w; o0 += CHUNK) { /* right edge */
      int64_t o1 = o0 + CHUNK < g->out_w ? o0 + CHUNK : g->out_w;
      edge_columns(g, x, w, bias, oh, o0, o1, acc);
      store_columns(g, acc, z, relu, oh, o0, o1, y);
    }
  }
}
