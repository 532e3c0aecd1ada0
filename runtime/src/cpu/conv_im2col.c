/* im2col into packed panels: the pixel-major GEMMs' A panels of MR output pixels,
 * k-major (channel-major GEMMs read their input in place, conv_direct.c). A panel's pixels fall
 * into runs along output rows, and for each (channel, kernel row, kernel column) a run reads one
 * input row at a fixed stride: with the rows split into stride phases first, a plain
 * copy, zeros where it leaves the padded input. */
#include "conv_internal.h"
#include "gemm_kernel.h"

enum { NR = PT2C_GEMM_NR };

typedef struct pixel_run {
  int start, len; /* columns of the panel */
  int64_t oh, ow; /* the output pixel of the first one */
} pixel_run;

int pt2c_conv_splits_phases(const pt2c_conv_geometry *g) {
  return g->stride_w > 1 && g->kernel_w > 1;
}

int64_t pt2c_conv_phase_width(const pt2c_conv_geometry *g) {
  return (g->in_w + g->stride_w - 1) / g->stride_w;
}

/* Whether some kernel column reads phase p: s * dilation_w - pad_w = p (mod stride_w).
 * A 1x1 kernel reads one phase of stride_w. */
static int phase_read(const pt2c_conv_geometry *g, int64_t p) {
  int64_t sw = g->stride_w;
  for (int64_t s = 0; s < g->kernel_w; ++s)
    if ((((s * g->dilation_w - g->pad_w) % sw) + sw) % sw == p)
      return 1;
  return 0;
}

void pt2c_conv_split_phases(const pt2c_conv_geometry *g, const float *x, int64_t row0, int64_t rows,
                            float *phased) {
  int64_t sw = g->stride_w, width = pt2c_conv_phase_width(g);
  if (sw == 2) { /* both phases in one pass (a 1x1 kernel never splits) */
    for (int64_t row = row0; row < row0 + rows; ++row) {
      const float *src = x + row * g->in_w;
      float *dst = phased + row * 2 * width;
      pt2c_deinterleave2(src, g->in_w / 2, dst, dst + width);
      if (g->in_w & 1)
        dst[g->in_w / 2] = src[g->in_w - 1];
    }
    return;
  }
  for (int64_t p = 0; p < sw; ++p) {
    if (!phase_read(g, p))
      continue;
    for (int64_t row = row0; row < row0 + rows; ++row) {
      const float *src = x + row * g->in_w;
      float *dst = phased + (row * sw + p) * width;
      for (int64_t j = 0, iw = p; iw < g->in_w; ++j, iw += sw)
        dst[j] = src[iw];
    }
  }
}

/* Where one run reads for one kernel tap, the same for every channel: columns [t0, t1)
 * copy from `src` (an offset into the channel's plane) on, the rest are padding. */
typedef struct tap_run {
  int64_t src;
  int t0, t1;
} tap_run;

/* Taps whose runs are worked out at once: enough for a 7x7 kernel's two runs, and the
 * table stays in L1. */
enum { MAX_TAP_RUNS = 128 };

void pt2c_conv_im2col_panel(const pt2c_conv_geometry *g, const float *x, int64_t first,
                            int panel_width, int64_t row0, int64_t row1, float *dst) {
  int64_t pixels = g->out_h * g->out_w;
  int cols = pixels - first < panel_width ? (int)(pixels - first) : panel_width;
  pixel_run runs[NR]; /* panel_width <= NR */
  int num_runs = 0;
  for (int j = 0; j < cols;) {
    int64_t oh = (first + j) / g->out_w, ow = (first + j) % g->out_w;
    int len = g->out_w - ow < cols - j ? (int)(g->out_w - ow) : cols - j;
    runs[num_runs++] = (pixel_run){j, len, oh, ow};
    j += len;
  }
  int64_t taps = g->kernel_h * g->kernel_w, sw = g->stride_w;
  int split = pt2c_conv_splits_phases(g);
  int64_t width = split ? pt2c_conv_phase_width(g) : g->in_w;
  int64_t plane = g->in_h * (split ? sw : 1) * width;
  int contiguous = split || sw == 1; /* else a run reads every sw-th column of x */
  int64_t chunk = MAX_TAP_RUNS / num_runs;
  tap_run table[MAX_TAP_RUNS];
  for (int64_t tap0 = 0; tap0 < taps; tap0 += chunk) {
    int64_t tap1 = tap0 + chunk < taps ? tap0 + chunk : taps;
    for (int64_t tap = tap0; tap < tap1; ++tap) {
      int64_t r = tap / g->kernel_w, s = tap % g->kernel_w;
      for (int q = 0; q < num_runs; ++q) {
        const pixel_run *run = &runs[q];
        tap_run *e = &table[(tap - tap0) * num_runs + q];
        int64_t ih = run->oh * g->stride_h - g->pad_h + r * g->dilation_h;
        int64_t iw0 = run->ow * sw - g->pad_w + s * g->dilation_w;
        /* [t0, t1): the columns whose input column is inside the row */
        int64_t t0 = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;
        int64_t t1 = g->in_w - iw0 <= 0 ? 0 : (g->in_w - iw0 + sw - 1) / sw;
        if (t1 > run->len)
          t1 = run->len;
        if (t0 >= t1 || ih < 0 || ih >= g->in_h)
          t0 = t1 = 0; /* all padding */
        int64_t iw = iw0 + t0 * sw;
        e->t0 = (int)t0;
        e->t1 = (int)t1;
        e->src = t0 == t1 ? 0 : split ? (ih * sw + iw % sw) * width + iw / sw : ih * width + iw;
      }
    }
    for (int64_t c = row0 / taps; c * taps < row1; ++c) {
      const float *channel = x + c * plane;
      int64_t from = row0 - c * taps > tap0 ? row0 - c * taps : tap0;
      int64_t to = row1 - c * taps < tap1 ? row1 - c * taps : tap1;
      for (int64_t tap = from; tap < to; ++tap) {
        float *row = dst + (c * taps + tap - row0) * panel_width;
        for (int j = cols; j < panel_width; ++j)
          row[j] = 0.0f;
        for (int q = 0; q < num_runs; ++q) {
          const tap_run *e = &table[(tap - tap0) * num_runs + q];
          float *d = row + runs[q].start;
          int len = runs[q].len;
          for (int t = 0; t < e->t0; ++t)
            d[t] = 0.0f;
          if (e->t1 > e->t0) {
            const float *src = channel + e->src; /* column t0's */
            float *out = d + e->t0;
            int n = e->t1 - e->t0;
            if (contiguous)
              for (int u = 0; u < n; ++u)
                out[u] = src[u];
            else
              for (int u = 0; u < n; ++u)
                out[u] = src[u * sw];
          }
          for (int t = e->t1; t < len; ++t)
            d[t] = 0.0f;
        }
      }
    }
  }
}
