/* Depthwise convolution on blocks of 16 channels, for small planes: vectors run across
 * channels instead of along a row, so a 7-pixel row wastes no lanes and the work per
 * channel carries no per-plane set-up.
 *
 * The block's input planes are transposed, zero padded, into T[row][col][16]; the taps
 * then read T at their offsets, one vector of 16 channels each, multiplied by the tap's
 * 16 weights (packed [tap][16] at prepack). Four output columns share each weight load.
 * The products land in O[pixel][16] and are transposed back to the NCHW planes with the
 * epilogue (residual, relu). As in conv_depthwise.c the loops exist per ISA (GCC's target
 * attribute), from one macro. */
#include <string.h>

#include "conv_internal.h"
#include "cpu_gemm.h" /* pt2c_cpu_best_isa */
#include "scratch.h"

enum { LANES = PT2C_DEPTHWISE_BLOCK, COLS = 4 };

typedef float v16f __attribute__((vector_size(LANES * sizeof(float))));

/* An unaligned load of 16 floats: a macro, so that it takes each target's ISA. */
#define LOAD16(v, p) __builtin_memcpy(&(v), (p), sizeof(v16f))

/* O[oh * out_w + ow] = bias + sum over taps of w[tap] * T[...], for every output pixel. */
#define DEFINE_TAPS(name, target)                                                                  \
  target static void name(const pt2c_conv_geometry *g, const float *t, int64_t t_width,            \
                          const float *w, const float *bias, float *o) {                           \
    int64_t taps = g->kernel_h * g->kernel_w;                                                      \
    for (int64_t oh = 0; oh < g->out_h; ++oh) {                                                    \
      int64_t ow = 0;                                                                              \
      for (; ow + COLS <= g->out_w; ow += COLS) {                                                  \
        v16f acc[COLS];                                                                            \
        for (int c = 0; c < COLS; ++c)                                                             \
          LOAD16(acc[c], bias);                                                                    \
        for (int64_t tap = 0; tap < taps; ++tap) {                                                 \
          int64_t r = tap / g->kernel_w, s = tap % g->kernel_w;                                    \
          const float *in = t + ((oh * g->stride_h + r * g->dilation_h) * t_width +                \
                                 ow * g->stride_w + s * g->dilation_w) *                           \
                                    LANES;                                                         \
          v16f wt, x;                                                                              \
          LOAD16(wt, w + tap * LANES);                                                             \
          for (int c = 0; c < COLS; ++c) {                                                         \
            LOAD16(x, in + c * g->stride_w * LANES);                                               \
            acc[c] += wt * x;                                                                      \
          }                                                                                        \
        }                                                                                          \
        for (int c = 0; c < COLS; ++c)                                                             \
          __builtin_memcpy(o + (oh * g->out_w + ow + c) * LANES, &acc[c], sizeof(v16f));           \
      }                                                                                            \
      for (; ow < g->out_w; ++ow) {                                                                \
        v16f acc, wt, x;                                                                           \
        LOAD16(acc, bias);                                                                         \
        for (int64_t tap = 0; tap < taps; ++tap) {                                                 \
          int64_t r = tap / g->kernel_w, s = tap % g->kernel_w;                                    \
          const float *in = t + ((oh * g->stride_h + r * g->dilation_h) * t_width +                \
                                 ow * g->stride_w + s * g->dilation_w) *                           \
                                    LANES;                                                         \
          LOAD16(wt, w + tap * LANES);                                                             \
          LOAD16(x, in);                                                                           \
          acc += wt * x;                                                                           \
        }                                                                                          \
        __builtin_memcpy(o + (oh * g->out_w + ow) * LANES, &acc, sizeof(v16f));                    \
      }                                                                                            \
    }                                                                                              \
  }
DEFINE_TAPS(taps_avx512, __attribute__((target("avx512f"))))
DEFINE_TAPS(taps_avx2, __attribute__((target("avx2,fma"))))
DEFINE_TAPS(taps_generic, )

int64_t pt2c_conv_depthwise_block_scratch(const pt2c_conv_geometry *g) {
  int64_t padded = (g->in_h + 2 * g->pad_h) * (g->in_w + 2 * g->pad_w);
  return (padded + g->out_h * g->out_w) * LANES;
}

void pt2c_conv_depthwise_block(const pt2c_conv_geometry *g, const float *x, int channels,
                               const float *w, const float *bias, const float *z, int relu,
                               float *y) {
  int64_t t_height = g->in_h + 2 * g->pad_h, t_width = g->in_w + 2 * g->pad_w;
  int64_t in_plane = g->in_h * g->in_w, pixels = g->out_h * g->out_w;
  float *t = pt2c_cpu_scratch(PT2C_SCRATCH_DEPTHWISE,
                              sizeof(float) * (size_t)pt2c_conv_depthwise_block_scratch(g));
  if (t == NULL)
    return; /* out of memory: nothing sensible left to do */
  float *o = t + t_height * t_width * LANES;
  /* Lanes past `channels` stay zero: their weights are zero too. */
  memset(t, 0, sizeof(float) * (size_t)(t_height * t_width * LANES));
  for (int c = 0; c < channels; ++c)
    for (int64_t i = 0; i < g->in_h; ++i) {
      const float *src = x + c * in_plane + i * g->in_w;
      float *dst = t + ((i + g->pad_h) * t_width + g->pad_w) * LANES + c;
      for (int64_t j = 0; j < g->in_w; ++j)
        dst[j * LANES] = src[j];
    }
  float b[LANES] = {0};
  for (int c = 0; c < channels && bias; ++c)
    b[c] = bias[c];
  switch (pt2c_cpu_best_isa()) {
  case PT2C_CPU_ISA_AVX512_BF16:
  case PT2C_CPU_ISA_AVX512:
    taps_avx512(g, t, t_width, w, b, o);
    break;
  case PT2C_CPU_ISA_AVX2:
    taps_avx2(g, t, t_width, w, b, o);
    break;
  default:
    taps_generic(g, t, t_width, w, b, o);
  }
  for (int c = 0; c < channels; ++c) {
    float *out = y + c * pixels;
    const float *res = z ? z + c * pixels : NULL;
    for (int64_t p = 0; p < pixels; ++p) {
      float v = o[p * LANES + c] + (res ? res[p] : 0.0f);
      out[p] = relu && v < 0.0f ? 0.0f : v;
    }
  }
}
