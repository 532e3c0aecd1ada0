/* im2col into packed-B panels. A panel's columns are output pixels; they fall into runs
 * along output rows, and for each (channel, kernel row, kernel column) a run reads one
 * input row at a fixed stride: a plain copy at stride 1, zeros where it leaves the
 * padded input. */
#include <string.h>

#include "conv_internal.h"
#include "gemm_kernel.h"

enum { NR = PT2C_GEMM_NR };

typedef struct pixel_run {
  int start, len; /* columns of the panel */
  int64_t oh, ow; /* the output pixel of the first one */
} pixel_run;

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
    const float* plane = x + c * g->in_h * g->in_w;
    if (cols < NR) memset(dst + cols, 0, sizeof(float) * (NR - cols));
    for (int q = 0; q < num_runs; ++q) {
      const pixel_run* run = &runs[q];
      float* d = dst + run->start;
      int64_t ih = run->oh * g->stride_h - g->pad_h + r * g->dilation_h;
      if (ih < 0 || ih >= g->in_h) {
        memset(d, 0, sizeof(float) * run->len);
        continue;
      }
      const float* row = plane + ih * g->in_w;
      int64_t iw0 = run->ow * g->stride_w - g->pad_w + s * g->dilation_w;
      /* [t0, t1): the columns whose input column is inside the row */
      int64_t sw = g->stride_w;
      int64_t t0 = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;
      int64_t t1 = g->in_w - iw0 <= 0 ? 0 : (g->in_w - iw0 + sw - 1) / sw;
      if (t1 > run->len) t1 = run->len;
      if (t0 > t1) t0 = t1;
      for (int64_t t = 0; t < t0; ++t) d[t] = 0.0f;
      if (sw == 1) {
        memcpy(d + t0, row + iw0 + t0, sizeof(float) * (size_t)(t1 - t0));
      } else {
        for (int64_t t = t0; t < t1; ++t) d[t] = row[iw0 + t * sw];
      }
      for (int64_t t = t1; t < run->len; ++t) d[t] = 0.0f;
    }
  }
}
