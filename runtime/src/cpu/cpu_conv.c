/* Convolution: picks a method at prepack and runs it.
 *   depthwise (G == C == K), small planes: conv_depthwise_blocked.c, one task per block
 *                             of 16 channels;
 *   depthwise, wide planes:   conv_depthwise.c, one task per output channel plane;
 *   1x1, stride 1, unpadded:  one GEMM per image, y[K, HW] = W[K, C] x[C, HW];
 *   anything else:            im2col straight into packed-B panels (conv_im2col.c), then
 *                             one GEMM per image and group.
 * Weights are packed as GEMM A operands once, one pack per group; bias, residual and relu
 * ride on the GEMM's epilogue (bias per row = per output channel). */
#include "cpu_conv.h"

#include <stdlib.h>
#include <string.h>

#include "conv_internal.h"
#include "cpu_gemm.h"
#include "gemm_kernel.h"
#include "scratch.h"
#include "thread_pool.h"

typedef enum { CONV_DEPTHWISE, CONV_DEPTHWISE_BLOCKED, CONV_POINTWISE, CONV_IM2COL } conv_method;

struct pt2c_conv_prepacked {
  pt2c_conv_geometry g;
  conv_method method;
  int64_t group_weights; /* floats per group in `weights` */
  float* weights;        /* depthwise: [K, kh * kw]; blocked: [K / 16][kh * kw][16]
                          * (zero padded); else one packed A per group */
};

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Blocks of channels beat planes when a row fills at most half a vector: then the plane
 * method wastes lanes and pays its per-plane set-up on little work (measured on 5x5
 * depthwise convolutions: 2.3x faster on 7x7 planes, even on 14x14, slower on 28x28). */
static int depthwise_blocked(const pt2c_conv_geometry* g) { return g->out_w <= 8; }

static int geometry_from(const pt2c_plan_conv* conv, pt2c_conv_geometry* g) {
  if (conv->dtype != PT2C_F32 || conv->spatial_rank < 1 || conv->spatial_rank > 2 ||
      conv->groups < 1 || conv->in_channels % conv->groups || conv->out_channels % conv->groups)
    return 0;
  int h = conv->spatial_rank == 2 ? 0 : -1, w = conv->spatial_rank == 2 ? 1 : 0;
  g->batch = (int64_t)conv->batch;
  g->channels = (int64_t)conv->in_channels;
  g->out_channels = (int64_t)conv->out_channels;
  g->groups = conv->groups;
  g->group_channels = g->channels / g->groups;
  g->group_out_channels = g->out_channels / g->groups;
  g->in_h = h < 0 ? 1 : (int64_t)conv->input[h];
  g->out_h = h < 0 ? 1 : (int64_t)conv->output[h];
  g->kernel_h = h < 0 ? 1 : (int64_t)conv->kernel[h];
  g->stride_h = h < 0 ? 1 : (int64_t)conv->stride[h];
  g->pad_h = h < 0 ? 0 : (int64_t)conv->padding[h];
  g->dilation_h = h < 0 ? 1 : (int64_t)conv->dilation[h];
  g->in_w = (int64_t)conv->input[w];
  g->out_w = (int64_t)conv->output[w];
  g->kernel_w = (int64_t)conv->kernel[w];
  g->stride_w = (int64_t)conv->stride[w];
  g->pad_w = (int64_t)conv->padding[w];
  g->dilation_w = (int64_t)conv->dilation[w];
  return g->stride_h >= 1 && g->stride_w >= 1 && g->dilation_h >= 1 && g->dilation_w >= 1;
}

pt2c_conv_prepacked* pt2c_conv_prepack(const pt2c_plan_conv* conv, const float* w) {
  pt2c_conv_geometry g;
  if (!geometry_from(conv, &g)) return NULL;
  pt2c_conv_prepacked* p = calloc(1, sizeof(*p));
  if (!p) return NULL;
  p->g = g;
  int64_t taps = g.kernel_h * g.kernel_w, depth = g.group_channels * taps;
  int64_t weight_groups = g.groups; /* group_weights floats each */
  if (g.groups > 1 && g.group_channels == 1 && g.group_out_channels == 1) {
    p->method = depthwise_blocked(&g) ? CONV_DEPTHWISE_BLOCKED : CONV_DEPTHWISE;
    p->group_weights = taps;
    if (p->method == CONV_DEPTHWISE_BLOCKED) /* whole blocks, zero padded */
      weight_groups = ceil_div(g.groups, PT2C_DEPTHWISE_BLOCK) * PT2C_DEPTHWISE_BLOCK;
  } else {
    p->method = taps == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_h == 0 &&
                        g.pad_w == 0 && g.groups == 1
                    ? CONV_POINTWISE
                    : CONV_IM2COL;
    p->group_weights = (int64_t)(pt2c_gemm_packed_a_bytes(PT2C_GEMM_F32, g.group_out_channels,
                                                          depth) /
                                 sizeof(float));
  }
  p->weights = calloc((size_t)(p->group_weights * weight_groups), sizeof(float));
  if (!p->weights) {
    free(p);
    return NULL;
  }
  if (p->method == CONV_DEPTHWISE) {
    memcpy(p->weights, w, sizeof(float) * (size_t)(taps * g.out_channels));
  } else if (p->method == CONV_DEPTHWISE_BLOCKED) {
    for (int64_t k = 0; k < g.out_channels; ++k)
      for (int64_t tap = 0; tap < taps; ++tap)
        p->weights[(k / PT2C_DEPTHWISE_BLOCK * taps + tap) * PT2C_DEPTHWISE_BLOCK +
                   k % PT2C_DEPTHWISE_BLOCK] = w[k * taps + tap];
  } else {
    for (int64_t grp = 0; grp < g.groups; ++grp) /* A = w as [K/G, C/G * taps] per group */
      pt2c_gemm_pack_a(PT2C_GEMM_F32, w + grp * g.group_out_channels * depth, depth, 1,
                       g.group_out_channels, depth, p->weights + grp * p->group_weights);
  }
  return p;
}

void pt2c_conv_prepacked_free(pt2c_conv_prepacked* p) {
  if (!p) return;
  free(p->weights);
  free(p);
}

typedef struct conv_job {
  const pt2c_conv_prepacked* p;
  const float *x, *bias, *z;
  int relu;
  float* y;
  float* cols;          /* im2col: packed B per (image, group) */
  float* phased;        /* im2col: x split into stride phases when
                         * pt2c_conv_splits_phases, else NULL (im2col reads x) */
  int64_t panels;       /* per (image, group) */
  int64_t panel_floats; /* NR * C/G * taps */
} conv_job;

static void depthwise_task(void* ctx, int64_t task, int thread) {
  const conv_job* job = ctx;
  const pt2c_conv_geometry* g = &job->p->g;
  int64_t channel = task % g->channels, in_plane = g->in_h * g->in_w, out_plane = g->out_h * g->out_w;
  pt2c_conv_depthwise_plane(g, job->x + task * in_plane, job->p->weights + channel * job->p->group_weights,
                            job->bias ? job->bias[channel] : 0.0f,
                            job->z ? job->z + task * out_plane : NULL, job->relu,
                            job->y + task * out_plane);
}

/* Task: block t % blocks of image t / blocks. */
static void depthwise_block_task(void* ctx, int64_t task, int thread) {
  const conv_job* job = ctx;
  const pt2c_conv_geometry* g = &job->p->g;
  int64_t blocks = ceil_div(g->channels, PT2C_DEPTHWISE_BLOCK);
  int64_t image = task / blocks, c0 = task % blocks * PT2C_DEPTHWISE_BLOCK;
  int64_t first = image * g->channels + c0; /* plane index */
  int channels = (int)(g->channels - c0 < PT2C_DEPTHWISE_BLOCK ? g->channels - c0
                                                                : PT2C_DEPTHWISE_BLOCK);
  int64_t in_plane = g->in_h * g->in_w, out_plane = g->out_h * g->out_w;
  pt2c_conv_depthwise_block(g, job->x + first * in_plane, channels,
                            job->p->weights + c0 * job->p->group_weights,
                            job->bias ? job->bias + c0 : NULL,
                            job->z ? job->z + first * out_plane : NULL, job->relu,
                            job->y + first * out_plane);
}

enum { PHASE_ROWS_PER_TASK = 64 };

/* Task: input rows [t * PHASE_ROWS_PER_TASK, +PHASE_ROWS_PER_TASK) into stride phases. */
static void phase_task(void* ctx, int64_t task, int thread) {
  const conv_job* job = ctx;
  const pt2c_conv_geometry* g = &job->p->g;
  int64_t rows = g->batch * g->channels * g->in_h, row0 = task * PHASE_ROWS_PER_TASK;
  int64_t n = rows - row0 < PHASE_ROWS_PER_TASK ? rows - row0 : PHASE_ROWS_PER_TASK;
  pt2c_conv_split_phases(g, job->x, row0, n, job->phased);
}

/* Task: panel t % panels of (image, group) t / panels. */
static void im2col_task(void* ctx, int64_t task, int thread) {
  const conv_job* job = ctx;
  const pt2c_conv_geometry* g = &job->p->g;
  int64_t image_group = task / job->panels, panel = task % job->panels;
  int64_t row_floats = job->phased ? g->stride_w * pt2c_conv_phase_width(g) : g->in_w;
  const float* input = job->phased ? job->phased : job->x;
  const float* x = input + image_group * g->group_channels * g->in_h * row_floats;
  pt2c_conv_im2col_panel(g, x, panel, job->cols + task * job->panel_floats);
}

/* The GEMM of (image, group) i: y[K/G, HW] = W_g [K/G, depth] x B_i [depth, HW]. */
static void gemm_problem(const conv_job* job, int64_t i, pt2c_sgemm_problem* q) {
  const pt2c_conv_prepacked* p = job->p;
  const pt2c_conv_geometry* g = &p->g;
  int64_t group = i % g->groups, pixels = g->out_h * g->out_w;
  int64_t depth = g->group_channels * g->kernel_h * g->kernel_w;
  int64_t y_offset = i * g->group_out_channels * pixels;
  memset(q, 0, sizeof(*q));
  q->m = g->group_out_channels;
  q->n = pixels;
  q->k = depth;
  q->a_packed = p->weights + group * p->group_weights;
  if (job->cols) {
    q->b_packed = job->cols + i * job->panels * job->panel_floats;
  } else { /* pointwise: x of image i as [C, HW] */
    q->b = job->x + i * g->channels * pixels;
    q->b_row_stride = pixels;
    q->b_col_stride = 1;
  }
  q->c = job->y + y_offset;
  q->ldc = pixels;
  q->epilogue.bias = job->bias ? job->bias + group * g->group_out_channels : NULL;
  q->epilogue.bias_per_row = 1;
  q->epilogue.residual = job->z ? job->z + y_offset : NULL;
  q->epilogue.relu = job->relu;
}

void pt2c_conv_run(const pt2c_conv_prepacked* p, const float* x, const float* bias,
                   const float* z, int relu, float* y) {
  const pt2c_conv_geometry* g = &p->g;
  conv_job job = {p, x, bias, z, relu, y, NULL, NULL, 0, 0};
  if (p->method == CONV_DEPTHWISE) {
    pt2c_pool_parallel_for(g->batch * g->channels, depthwise_task, &job);
    return;
  }
  if (p->method == CONV_DEPTHWISE_BLOCKED) {
    pt2c_pool_parallel_for(g->batch * ceil_div(g->channels, PT2C_DEPTHWISE_BLOCK),
                           depthwise_block_task, &job);
    return;
  }
  int64_t count = g->batch * g->groups;
  size_t list_bytes = (sizeof(pt2c_sgemm_problem) * (size_t)count + 63) / 64 * 64;
  size_t cols_bytes = 0, phase_bytes = 0;
  int64_t input_rows = g->batch * g->channels * g->in_h;
  if (p->method == CONV_IM2COL) {
    job.panels = ceil_div(g->out_h * g->out_w, PT2C_GEMM_NR);
    job.panel_floats = PT2C_GEMM_NR * g->group_channels * g->kernel_h * g->kernel_w;
    cols_bytes = sizeof(float) * (size_t)(count * job.panels * job.panel_floats);
    if (pt2c_conv_splits_phases(g)) {
      int64_t floats = input_rows * g->stride_w * pt2c_conv_phase_width(g);
      phase_bytes = sizeof(float) * (size_t)floats;
    }
  }
  char* scratch = pt2c_cpu_scratch(PT2C_SCRATCH_CONV, list_bytes + cols_bytes + phase_bytes);
  if (!scratch) return;
  pt2c_sgemm_problem* list = (pt2c_sgemm_problem*)scratch;
  if (p->method == CONV_IM2COL) {
    job.cols = (float*)(scratch + list_bytes);
    if (phase_bytes > 0) {
      job.phased = (float*)(scratch + list_bytes + cols_bytes);
      pt2c_pool_parallel_for(ceil_div(input_rows, PHASE_ROWS_PER_TASK), phase_task, &job);
    }
    pt2c_pool_parallel_for(count * job.panels, im2col_task, &job);
  }
  for (int64_t i = 0; i < count; ++i) gemm_problem(&job, i, &list[i]);
  pt2c_sgemm_many(list, count);
}
