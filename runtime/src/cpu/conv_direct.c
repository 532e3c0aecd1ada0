/* The direct convolution's input layout: the GEMM reads its B operand in place from a
 * zero-padded copy of the input instead of packed im2col panels (cpu_gemm.h's b_rows).
 *
 * Output pixel (oh, ow) and kernel tap (r, s) read input row ih = oh * sh + r * dh - ph.
 * Write r * dh - ph = o_r * sh + q_r (0 <= q_r < sh): then ih = (oh + o_r) * sh + q_r,
 * row oh + o_r of input row phase q_r; columns likewise. So if each channel's input is
 * stored as stride_h x stride_w phase planes (those some tap reads), zero padded so that rows o_min
 * .. and columns oc_min .. exist, tap (c, r, s) reads every output pixel at one fixed offset plus
 * oh * cols + ow. Numbering output pixels on that padded grid ("virtual" pixels, n = oh * cols +
 * ow, ow < cols) makes B(tap, n) = plane[offset(tap) + n]: one contiguous window per tap. The
 * columns ow >= out_w are junk, computed and dropped (pt2c_conv_direct_copy_out): 2 of 58 for a 3x3
 * kernel on 56 x 56. */
#include "conv_internal.h"

#include <string.h>

#include "activation.h"
#include "gemm_kernel.h"

static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* The phase and phase-plane offset of kernel position `tap` along one dim. */
static int64_t phase_of(int64_t tap, int64_t dilation, int64_t pad, int64_t stride) {
  int64_t a = tap * dilation - pad;
  return a - floor_div(a, stride) * stride;
}
static int64_t offset_of(int64_t tap, int64_t dilation, int64_t pad, int64_t stride) {
  return floor_div(tap * dilation - pad, stride);
}

/* Whether some kernel position along a dim lands on phase `phase`. */
static int phase_used(int64_t kernel, int64_t dilation, int64_t pad, int64_t stride,
                      int64_t phase) {
  for (int64_t t = 0; t < kernel; ++t)
    if (phase_of(t, dilation, pad, stride) == phase)
      return 1;
  return 0;
}

/* The number of phases some kernel position lands on, below `phase` (all: stride). Only
 * those are stored: a 1x1 kernel of stride 2 reads 1 of 4. */
static int64_t used_phases_below(int64_t kernel, int64_t dilation, int64_t pad, int64_t stride,
                                 int64_t phase) {
  int64_t n = 0;
  for (int64_t q = 0; q < phase; ++q)
    n += phase_used(kernel, dilation, pad, stride, q);
  return n;
}

void pt2c_conv_direct_layout_of(const pt2c_conv_geometry *g, pt2c_conv_direct_layout *l) {
  int64_t lo = offset_of(0, g->dilation_h, g->pad_h, g->stride_h);
  int64_t hi = offset_of(g->kernel_h - 1, g->dilation_h, g->pad_h, g->stride_h);
  l->row_min = lo;
  l->rows = g->out_h + hi - lo;
  lo = offset_of(0, g->dilation_w, g->pad_w, g->stride_w);
  hi = offset_of(g->kernel_w - 1, g->dilation_w, g->pad_w, g->stride_w);
  l->col_min = lo;
  l->cols = g->out_w + hi - lo;
  l->plane = l->rows * l->cols;
  l->row_phases = used_phases_below(g->kernel_h, g->dilation_h, g->pad_h, g->stride_h, g->stride_h);
  l->col_phases = used_phases_below(g->kernel_w, g->dilation_w, g->pad_w, g->stride_w, g->stride_w);
  l->channel_floats = l->row_phases * l->col_phases * l->plane;
  l->tail = 0; /* pt2c_conv_direct_rows */
}

void pt2c_conv_direct_rows(const pt2c_conv_geometry *g, pt2c_conv_direct_layout *l, int64_t *rows) {
  int64_t sh = g->stride_h, sw = g->stride_w;
  int64_t panels = (g->out_h * l->cols + PT2C_GEMM_NR - 1) / PT2C_GEMM_NR;
  int64_t end = 0; /* one past the last float any row's windows read, whole panels */
  for (int64_t c = 0; c < g->group_channels; ++c)
    for (int64_t r = 0; r < g->kernel_h; ++r)
      for (int64_t s = 0; s < g->kernel_w; ++s) {
        int64_t q = phase_of(r, g->dilation_h, g->pad_h, sh);
        int64_t p = phase_of(s, g->dilation_w, g->pad_w, sw);
        int64_t y = offset_of(r, g->dilation_h, g->pad_h, sh) - l->row_min;
        int64_t x = offset_of(s, g->dilation_w, g->pad_w, sw) - l->col_min;
        int64_t phase =
            used_phases_below(g->kernel_h, g->dilation_h, g->pad_h, sh, q) * l->col_phases +
            used_phases_below(g->kernel_w, g->dilation_w, g->pad_w, sw, p);
        int64_t row = c * l->channel_floats + phase * l->plane + y * l->cols + x;
        *rows++ = row;
        if (row + panels * PT2C_GEMM_NR > end)
          end = row + panels * PT2C_GEMM_NR;
      }
  /* past the group's planes: the next group's or image's, or for the last the tail */
  int64_t group = g->group_channels * l->channel_floats;
  l->tail = end > group ? end - group : 0;
}

/* One phase plane: row y is input row (y + row_min) * sh + q, column x input column
 * (x + col_min) * sw + p, zero outside the input. */
static void fill_plane(const pt2c_conv_geometry *g, const pt2c_conv_direct_layout *l,
                       const float *x, int64_t q, int64_t p, float *dst) {
  int64_t sh = g->stride_h, sw = g->stride_w;
  /* columns [x0, x1) are inside the input */
  int64_t first = l->col_min * sw + p; /* the input column of x = 0 */
  int64_t x0 = first >= 0 ? 0 : (-first + sw - 1) / sw;
  int64_t x1 = g->in_w - first <= 0 ? 0 : (g->in_w - first + sw - 1) / sw;
  if (x1 > l->cols)
    x1 = l->cols;
  if (x0 > x1)
    x0 = x1;
  for (int64_t y = 0; y < l->rows; ++y, dst += l->cols) {
    int64_t ih = (y + l->row_min) * sh + q;
    if (ih < 0 || ih >= g->in_h || x0 == x1) {
      memset(dst, 0, sizeof(float) * (size_t)l->cols);
      continue;
    }
    const float *src = x + ih * g->in_w + first + x0 * sw;
    memset(dst, 0, sizeof(float) * (size_t)x0);
    if (sw == 1)
      memcpy(dst + x0, src, sizeof(float) * (size_t)(x1 - x0));
    else
      for (int64_t j = 0; j < x1 - x0; ++j)
        dst[x0 + j] = src[j * sw];
    memset(dst + x1, 0, sizeof(float) * (size_t)(l->cols - x1));
  }
}

void pt2c_conv_direct_fill(const pt2c_conv_geometry *g, const pt2c_conv_direct_layout *l,
                           const float *x, int64_t plane0, int64_t planes, float *dst) {
  int64_t sh = g->stride_h, sw = g->stride_w;
  for (int64_t c = plane0; c < plane0 + planes; ++c) {
    float *plane = dst + c * l->channel_floats; /* the used phases in order */
    for (int64_t q = 0; q < sh; ++q) {
      if (!phase_used(g->kernel_h, g->dilation_h, g->pad_h, sh, q))
        continue;
      for (int64_t p = 0; p < sw; ++p) {
        if (!phase_used(g->kernel_w, g->dilation_w, g->pad_w, sw, p))
          continue;
        fill_plane(g, l, x + c * g->in_h * g->in_w, q, p, plane);
        plane += l->plane;
      }
    }
  }
}

void pt2c_conv_direct_copy_out(const pt2c_conv_geometry *g, const pt2c_conv_direct_layout *l,
                               const float *v, int64_t ldv, int64_t row0, int64_t row1,
                               int64_t col0, int64_t col1, const float *z, int relu, int silu,
                               float *y) {
  int64_t pixels = g->out_h * g->out_w;
  for (int64_t row = row0; row < row1; ++row) {
    const float *src = v + row * ldv;
    float *dst = y + row * pixels;
    const float *res = z ? z + row * pixels : NULL;
    for (int64_t oh = col0 / l->cols; oh * l->cols < col1; ++oh) {
      /* the real pixels of virtual row oh inside [col0, col1) */
      int64_t from = col0 - oh * l->cols > 0 ? col0 - oh * l->cols : 0;
      int64_t to = col1 - oh * l->cols < g->out_w ? col1 - oh * l->cols : g->out_w;
      if (from >= to)
        continue;
      const float *s = src + oh * l->cols;
      float *d = dst + oh * g->out_w;
      const float *r = res ? res + oh * g->out_w : NULL;
      for (int64_t j = from; j < to; ++j) {
        float t = s[j] + (r ? r[j] : 0.0f);
        d[j] = relu && t < 0.0f ? 0.0f : t;
      }
      if (silu)
        pt2c_silu_inplace(d + from, to - from);
    }
  }
}
