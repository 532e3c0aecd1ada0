/* Depthwise convolution (one input channel per output channel) computed directly: a GEMM
 * of depth kernel_h * kernel_w would be all packing.
 *
 * The input plane is first copied, zero padded, into `stride_w` phase planes: phase p
 * holds the padded columns p, p + stride_w, p + 2 * stride_w, ... So every tap of every
 * output column is in bounds, and the taps of neighbouring output columns are neighbours
 * in one phase plane, also at stride 2: each output row is a few vectors of
 * accumulators, each tap one contiguous load and one multiply-add, with no edge cases.
 * The row loop exists three times, for AVX-512, AVX2 + FMA and baseline SSE2 (GCC's
 * target attribute, picked by pt2c_cpu_best_isa), from one macro. */
#include <stddef.h>
#include <string.h>

#include "conv_internal.h"
#include "cpu_gemm.h" /* pt2c_cpu_best_isa */
#include "scratch.h"

enum { VEC = 16 }; /* output columns per vector of accumulators */

typedef float v16f __attribute__((vector_size(VEC * sizeof(float))));

/* The padded input plane split into phases (see above): phase p, padded row r, column j
 * is data[(p * rows + r) * width + j]. */
typedef struct phase_planes {
  const float *data;
  int64_t rows, width;
} phase_planes;

/* Output rows [0, out_h) from the phase planes; acc + epilogue -> y. A block of ROWS x
 * VECS vectors of accumulators shares each tap's weight: with one vector at a time, each
 * tap's multiply-add waited on the previous one (4 cycles each); ROWS * VECS independent
 * chains keep the FMA pipes busy. The block's extra rows and columns past the output are
 * computed from the planes' zero padding and not stored. */
#define DEFINE_ROWS(name, target, ROWS, VECS)                                                      \
  target static void name(const pt2c_conv_geometry *g, const phase_planes *pp, const float *w,     \
                          float bias, const float *z, int relu, float *y) {                        \
    int64_t stride = g->stride_w;                                                                  \
    for (int64_t oh0 = 0; oh0 < g->out_h; oh0 += ROWS) {                                           \
      for (int64_t o0 = 0; o0 < g->out_w; o0 += VECS * VEC) {                                      \
        v16f acc[ROWS][VECS];                                                                      \
        for (int i = 0; i < ROWS; ++i)                                                             \
          for (int u = 0; u < VECS; ++u)                                                           \
            for (int l = 0; l < VEC; ++l)                                                          \
              acc[i][u][l] = bias;                                                                 \
        for (int64_t r = 0; r < g->kernel_h; ++r) {                                                \
          for (int64_t s = 0; s < g->kernel_w; ++s) {                                              \
            int64_t t = s * g->dilation_w;                                                         \
            float wt = w[r * g->kernel_w + s];                                                     \
            const float *base = pp->data + (t % stride) * pp->rows * pp->width +                   \
                                r * g->dilation_h * pp->width + t / stride + o0;                   \
            for (int i = 0; i < ROWS; ++i) {                                                       \
              const float *in = base + (oh0 + i) * g->stride_h * pp->width;                        \
              for (int u = 0; u < VECS; ++u) {                                                     \
                v16f x;                                                                            \
                __builtin_memcpy(&x, in + u * VEC, sizeof(x));                                     \
                acc[i][u] += wt * x;                                                               \
              }                                                                                    \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
        for (int i = 0; i < ROWS && oh0 + i < g->out_h; ++i) {                                     \
          for (int u = 0; u < VECS && o0 + u * VEC < g->out_w; ++u) {                              \
            int64_t col = o0 + u * VEC;                                                            \
            int64_t n = g->out_w - col < VEC ? g->out_w - col : VEC;                               \
            float *out = y + (oh0 + i) * g->out_w + col;                                           \
            const float *res = z ? z + (oh0 + i) * g->out_w + col : NULL;                          \
            for (int64_t l = 0; l < n; ++l) {                                                      \
              float v = acc[i][u][l] + (res ? res[l] : 0.0f);                                      \
              out[l] = relu && v < 0.0f ? 0.0f : v;                                                \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }

/* Block shapes (ROWS x VECS) by output width: rows of 1 vector up to 16 columns, 2 x 2 up
 * to 32, 2 x 3 up to 48, then 4 vectors of one row (3 x 3 on 112 wide planes: 2 blocks a
 * row). One list, X(isa, target, ROWS, VECS) per shape, makes each ISA's kernels and the
 * table of sizes (kShapes) by which split_phases pads a plane for its shape. */
#define BLOCK_SHAPES(X, isa, target)                                                               \
  X(isa, target, 4, 1) X(isa, target, 2, 2) X(isa, target, 2, 3) X(isa, target, 1, 4)

typedef void (*rows_fn)(const pt2c_conv_geometry *, const phase_planes *, const float *, float,
                        const float *, int, float *);
#define DEFINE_SHAPE(isa, target, ROWS, VECS)                                                      \
  DEFINE_ROWS(rows##ROWS##x##VECS##_##isa, target, ROWS, VECS)
#define SHAPE_KERNEL(isa, target, ROWS, VECS) rows##ROWS##x##VECS##_##isa,
#define SHAPE_SIZE(isa, target, ROWS, VECS) {ROWS, VECS},
#define DEFINE_ISA(isa, target)                                                                    \
  BLOCK_SHAPES(DEFINE_SHAPE, isa, target)                                                          \
  static const rows_fn kRows_##isa[] = {BLOCK_SHAPES(SHAPE_KERNEL, isa, target)};

DEFINE_ISA(avx512, __attribute__((target("avx512f"))))
DEFINE_ISA(avx2, __attribute__((target("avx2,fma"))))
DEFINE_ISA(generic, )

typedef struct block_size {
  int rows, vecs;
} block_size;
static const block_size kShapes[] = {BLOCK_SHAPES(SHAPE_SIZE, , )};
_Static_assert(sizeof kShapes / sizeof kShapes[0] == 4, "block_shape picks among 4 shapes");

/* Which of kShapes (and of each kRows_* table) suits the plane. */
static int block_shape(const pt2c_conv_geometry *g) {
  return g->out_w <= VEC ? 0 : g->out_w <= 2 * VEC ? 1 : g->out_w <= 3 * VEC ? 2 : 3;
}

/* One row of phase plane p: padded columns p, p + stride, ... of input row `src` (NULL:
 * a padding row), zeros where they fall in the padding. */
static void phase_row(const pt2c_conv_geometry *g, const float *src, int64_t p, int64_t width,
                      float *dst) {
  int64_t stride = g->stride_w;
  /* Columns j with pad_w <= j * stride + p < pad_w + in_w hold input; the rest are 0. */
  int64_t lo = g->pad_w > p ? (g->pad_w - p + stride - 1) / stride : 0;
  int64_t hi = (g->pad_w + g->in_w - p + stride - 1) / stride;
  if (src == NULL || hi <= lo)
    lo = hi = 0;
  if (hi > width)
    hi = width;
  memset(dst, 0, sizeof(float) * (size_t)lo);
  const float *in = src ? src + lo * stride + p - g->pad_w : NULL;
  if (stride == 1) {
    memcpy(dst + lo, in, sizeof(float) * (size_t)(hi - lo));
  } else {
    for (int64_t j = lo; j < hi; ++j, in += stride)
      dst[j] = *in;
  }
  memset(dst + hi, 0, sizeof(float) * (size_t)(width - hi));
}

/* At stride 2, both phase rows of input row `src` in one pass: input column iw is padded
 * column iw + pad_w, so even input columns land in phase pad_w % 2 from index pad_w / 2
 * on, odd ones in the other phase from (pad_w + 1) / 2 on. */
static void phase_rows2(const pt2c_conv_geometry *g, const float *src, int64_t width, float *phase0,
                        float *phase1) {
  memset(phase0, 0, sizeof(float) * (size_t)width);
  memset(phase1, 0, sizeof(float) * (size_t)width);
  if (src == NULL)
    return;
  int odd_pad = (int)(g->pad_w & 1);
  float *even = (odd_pad ? phase1 : phase0) + g->pad_w / 2;
  float *odd = (odd_pad ? phase0 : phase1) + (g->pad_w + 1) / 2;
  pt2c_deinterleave2(src, g->in_w / 2, even, odd);
  if (g->in_w & 1)
    even[g->in_w / 2] = src[g->in_w - 1];
}

/* Copies plane x into phase planes in thread scratch; NULL data when out of memory. */
static phase_planes split_phases(const pt2c_conv_geometry *g, const float *x, block_size block) {
  int64_t stride = g->stride_w;
  int64_t padded_w = g->in_w + 2 * g->pad_w;
  phase_planes pp;
  int64_t input_rows = g->in_h + 2 * g->pad_h;
  /* Zero rows and columns for the last block's extra rows (block.rows - 1 output rows
   * past the last) and vectors (up to block.vecs * VEC - 1 columns past the last output
   * column): no more than its shape reads, since every row and column is zeroed. */
  pp.rows = input_rows + (block.rows - 1) * g->stride_h;
  pp.width = (padded_w + stride - 1) / stride + block.vecs * VEC;
  size_t floats = (size_t)(stride * pp.rows * pp.width);
  float *data = pt2c_cpu_scratch(PT2C_SCRATCH_DEPTHWISE, floats * sizeof(float));
  pp.data = data;
  if (data == NULL)
    return pp;
  for (int64_t row = 0; row < pp.rows; ++row) {
    int64_t ih = row - g->pad_h;
    const float *src = ih >= 0 && ih < g->in_h && row < input_rows ? x + ih * g->in_w : NULL;
    if (stride == 2) {
      phase_rows2(g, src, pp.width, data + row * pp.width, data + (pp.rows + row) * pp.width);
      continue;
    }
    for (int64_t p = 0; p < stride; ++p)
      phase_row(g, src, p, pp.width, data + (p * pp.rows + row) * pp.width);
  }
  return pp;
}

void pt2c_conv_depthwise_plane(const pt2c_conv_geometry *g, const float *x, const float *w,
                               float bias, const float *z, int relu, float *y) {
  int shape = block_shape(g);
  phase_planes pp = split_phases(g, x, kShapes[shape]);
  if (pp.data == NULL)
    return; /* out of memory: nothing sensible left to do */
  switch (pt2c_cpu_best_isa()) {
  case PT2C_CPU_ISA_AVX512_BF16:
  case PT2C_CPU_ISA_AVX512:
    kRows_avx512[shape](g, &pp, w, bias, z, relu, y);
    break;
  case PT2C_CPU_ISA_AVX2:
    kRows_avx2[shape](g, &pp, w, bias, z, relu, y);
    break;
  default:
    kRows_generic[shape](g, &pp, w, bias, z, relu, y);
  }
}
