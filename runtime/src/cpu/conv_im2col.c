/* im2col into packed-B panels. A panel's columns are output pixels; they fall into runs
 * along output rows, and for each (channel, kernel row, kernel column) a run reads one
 * input row at a fixed stride: with the rows split into stride phases first, a plain
 * copy, zeros where it leaves the padded input. */
#include <string.h>

#include "conv_internal.h"
#include "gemm_kernel.h"

enum { NR = PT2C_GEMM_NR };

typedef struct pixel_run {
  int start, len; /* columns of the panel */
  int64_t oh, ow; /* the output pixel of the first one */
} pixel_run;

int pt2c_conv_splits_phases(const pt2c_conv_geometry* g) {
  return g->stride_w > 1 && g->kernel_w > 1;
}

int64_t pt2c_conv_phase_width(const pt2c_conv_geometry* g) {
  return (g->in_w + g->stride_w - 1) / g->stride_w;
}

/* Whether some kernel column reads phase p: s * dilation_w - pad_w = p (mod stride_w).
 * A 1x1 kernel reads one phase of stride_w. */
static int phase_read(const pt2c_conv_geometry* g, int64_t p) {
  int64_t sw = g->stride_w;
  for (int64_t s = 0; s < g->kernel_w; ++s)
    if ((((s * g->dilation_w - g->pad_w) % sw) + sw) % sw == p) return 1;
  return 0;
}

void pt2c_conv_split_phases(const pt2c_conv_geometry* g, const float* x, int64_t row0,
                            int64_t rows, float* phased) {
  int64_t sw = g->stride_w, width = pt2c_conv_phase_width(g);
  if (sw == 2) { /* both phases in one pass (a 1x1 kernel never splits) */
    for (int64_t row = row0; row < row0 + rows; ++row) {
      const float* src = x + row * g->in_w;
      float* dst = phased + row * 2 * width;
      pt2c_deinterleave2(src, g->in_w / 2, dst, dst + width);
      if (g->in_w & 1) dst[g->in_w / 2] = src[g->in_w - 1];
    }
    return;
  }
  for (int64_t p = 0; p < sw; ++p) {
    if (!phase_read(g, p)) continue;
    for (int64_t row = row0; row < row0 + rows; ++row) {
      const float* src = x + row * g->in_w;
      float* dst = phased + (row * sw + p) * width;
      for (int64_t j = 0, iw = p; iw < g->in_w; ++j, iw += sw) dst[j] = src[iw];
    }
  }
}

void pt2c_conv_im2col_panel(const pt2c_conv_geometry* g, const float* x, int64_t panel,
                            float* dst) {
  int64_t pixels = g->out_h * g->out_w, first = panel * NR;
  int cols = pixels - first < NR ? (int)(pixels - first) : NR;
  pixel_run runs[NR];
  int num_runs = 0;
  for (int j = 0; j < cols;) {
    int64_t oh = (first + j) / g->out_w, ow = (first + j) % g->out_w;
    int len = g->out_w - ow < cols - j ? (int)(g->out_w - ow) : cols - j;
    runs[num_runs++] = (pixel_run){j, len, oh, ow};
    j += len;
  }
  int64_t rows = g->group_channels * g->kernel_h * g->kernel_w;
  for (int64_t kk = 0; kk < rows; ++kk, dst += NR) {
    int64_t c = kk / (g->kernel_h * g->kernel_w), rs = kk % (g->kernel_h * g->kernel_w);
    int64_t r = rs / g->kernel_w, s = rs % g->kernel_w;
    int64_t sw = g->stride_w, split = pt2c_conv_splits_phases(g);
    int64_t width = split ? pt2c_conv_phase_width(g) : g->in_w;
    const float* plane = x + c * g->in_h * (split ? sw : 1) * width;
    if (cols < NR) memset(dst + cols, 0, sizeof(float) * (NR - cols));
    for (int q = 0; q < num_runs; ++q) {
      const pixel_run* run = &runs[q];
      float* d = dst + run->start;
      int64_t ih = run->oh * g->stride_h - g->pad_h + r * g->dilation_h;
      if (ih < 0 || ih >= g->in_h) {
        memset(d, 0, sizeof(float) * run->len);
        continue;
      }
      int64_t iw0 = run->ow * sw - g->pad_w + s * g->dilation_w;
      /* [t0, t1): the columns whose input column is inside the row */
      int64_t t0 = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;
      int64_t t1 = g->in_w - iw0 <= 0 ? 0 : (g->in_w - iw0 + sw - 1) / sw;
      if (t1 > run->len) t1 = run->len;
      if (t0 > t1) t0 = t1;
      for (int64_t t = 0; t < t0; ++t) d[t] = 0.0f;
      int64_t iw = iw0 + t0 * sw; /* the run reads input columns iw, iw + sw, ... */
      if (split) { /* one phase, consecutive */
        const float* row = plane + (ih * sw + iw % sw) * width + iw / sw;
        memcpy(d + t0, row, sizeof(float) * (size_t)(t1 - t0));
      } else {
        const float* row = plane + ih * width + iw;
        for (int64_t t = 0; t < t1 - t0; ++t) d[t0 + t] = row[t * sw];
      }
      for (int64_t t = t1; t < run->len; ++t) d[t] = 0.0f;
    }
  }
}
