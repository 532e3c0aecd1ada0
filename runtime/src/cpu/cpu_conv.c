/* Convolution: picks a method at prepack and runs it.
 *   depthwise (G == C == K), small planes: conv_depthwise_blocked.c, one task per block
 *                             of 16 channels;
 *   depthwise, wide planes:   conv_depthwise.c, one task per output channel plane;
 *   anything else:            one GEMM per image and group, on x itself when the kernel is
 *                             1x1, stride 1, unpadded, else (channel-major) on the input
 *                             padded and split into stride phases, read in place
 *                             (conv_direct.c), or (pixel-major) on im2col panels
 *                             (conv_im2col.c), in one of two orientations:
 *     channel-major: y[K/G, HW] = W[K/G, depth] x cols[depth, HW], C is y (or, direct,
 *                    the result on the padded grid, whose rows its compute tasks copy
 *                    into y while they are in cache);
 *     pixel-major:   y^T[HW, K/G] = cols^T[HW, depth] x W^T[depth, K/G] into scratch,
 *                    then transposed into y. Chosen when HW is small (late CNN stages):
 *                    vectors then run along the many channels, not the few pixels (7x7
 *                    = 49 pixels fill 49 of 64 lanes, 512 channels all of them).
 * Weights are packed once as the GEMM operand they are (A channel-major, B pixel-major),
 * one pack per group. Channel-major GEMMs fuse bias, residual and relu into their store;
 * pixel-major ones the bias, the transposing pass the rest. A SiLU runs over each task's
 * finished output while it is in cache (activation.h). */
#include "cpu_conv.h"

#include <stdlib.h>
#include <string.h>

#include "activation.h"
#include "conv_internal.h"
#include "cpu_gemm.h"
#include "gemm_kernel.h"
#include "scratch.h"
#include "thread_pool.h"

typedef enum { CONV_DEPTHWISE, CONV_DEPTHWISE_BLOCKED, CONV_GEMM } conv_method;

struct pt2c_conv_prepacked {
  pt2c_conv_geometry g;
  conv_method method;
  int windowed;                   /* CONV_GEMM: not on x itself (direct, or im2col panels) */
  int pixel_major;                /* CONV_GEMM: the pixel-major orientation */
  int direct;                     /* CONV_GEMM, windowed, channel-major: B read in place */
  pt2c_conv_direct_layout layout; /* direct */
  int64_t *direct_rows;           /* direct: B's rows (pt2c_conv_direct_rows) */
  int64_t group_weights;          /* floats per group in `weights` */
  float *weights;                 /* depthwise: [K, kh * kw]; blocked: [K / 16][kh * kw][16]
                                   * (zero padded); else one packed A (B when pixel_major) per group */
};

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Blocks of channels beat planes when a row fills at most half a vector: then the plane
 * method wastes lanes and pays its per-plane set-up on little work (measured on 5x5
 * depthwise convolutions: 2.3x faster on 7x7 planes, even on 14x14, slower on 28x28). */
static int depthwise_blocked(const pt2c_conv_geometry *g) { return g->out_w <= 8; }

static int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }
static size_t round_up_bytes(size_t bytes) { return (bytes + 63) / 64 * 64; } /* to lines */

/* The orientation whose tiles waste fewer lanes and rows on padding (each GEMM computes
 * whole MR x NR tiles, and a direct one the junk pixels of its padded grid too), by a
 * margin of 15% for the pixel-major one's im2col and transposing passes: measured on
 * resnet shapes, channel-major ran 3x3 convolutions at 28 x 28 1.6x faster (waste ratio
 * 1.13), at 14 x 14 1.09x (1.14), and a 1x1 on 14 x 14 1.05x (1.13); pixel-major won
 * by 10-12% at 7 x 7 from stride 2 (1.195) and tied at 7 x 7 stride 1 (1.195). */
static int pixel_major(const pt2c_conv_geometry *g, int64_t channel_major_pixels) {
  int64_t pixels = g->out_h * g->out_w, channels = g->group_out_channels;
  int64_t channel_major =
      round_up(channels, PT2C_GEMM_MR) * round_up(channel_major_pixels, PT2C_GEMM_NR);
  int64_t pixel_major = round_up(pixels, PT2C_GEMM_MR) * round_up(channels, PT2C_GEMM_NR);
  return pixel_major * 23 < channel_major * 20;
}

static int geometry_from(const pt2c_plan_conv *conv, pt2c_conv_geometry *g) {
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

pt2c_conv_prepacked *pt2c_conv_prepack(const pt2c_plan_conv *conv, const float *w) {
  pt2c_conv_geometry g;
  if (!geometry_from(conv, &g))
    return NULL;
  pt2c_conv_prepacked *p = calloc(1, sizeof(*p));
  if (!p)
    return NULL;
  p->g = g;
  int64_t taps = g.kernel_h * g.kernel_w, depth = g.group_channels * taps;
  int64_t weight_groups = g.groups; /* group_weights floats each */
  if (g.groups > 1 && g.group_channels == 1 && g.group_out_channels == 1) {
    p->method = depthwise_blocked(&g) ? CONV_DEPTHWISE_BLOCKED : CONV_DEPTHWISE;
    p->group_weights = taps;
    if (p->method == CONV_DEPTHWISE_BLOCKED) /* whole blocks, zero padded */
      weight_groups = ceil_div(g.groups, PT2C_DEPTHWISE_BLOCK) * PT2C_DEPTHWISE_BLOCK;
  } else {
    p->method = CONV_GEMM;
    p->windowed =
        !(taps == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_h == 0 && g.pad_w == 0);
    pt2c_conv_direct_layout_of(&g, &p->layout);
    p->pixel_major = pixel_major(&g, p->windowed ? g.out_h * p->layout.cols : g.out_h * g.out_w);
    p->direct = p->windowed && !p->pixel_major;
    size_t bytes = p->pixel_major
                       ? pt2c_gemm_packed_b_bytes(PT2C_GEMM_F32, depth, g.group_out_channels)
                       : pt2c_gemm_packed_a_bytes(PT2C_GEMM_F32, g.group_out_channels, depth);
    p->group_weights = (int64_t)(bytes / sizeof(float));
  }
  p->weights = calloc((size_t)(p->group_weights * weight_groups), sizeof(float));
  if (p->direct)
    p->direct_rows = malloc(sizeof(int64_t) * (size_t)depth);
  if (!p->weights || (p->direct && !p->direct_rows)) {
    pt2c_conv_prepacked_free(p);
    return NULL;
  }
  if (p->direct)
    pt2c_conv_direct_rows(&g, &p->layout, p->direct_rows);
  if (p->method == CONV_DEPTHWISE) {
    memcpy(p->weights, w, sizeof(float) * (size_t)(taps * g.out_channels));
  } else if (p->method == CONV_DEPTHWISE_BLOCKED) {
    for (int64_t k = 0; k < g.out_channels; ++k)
      for (int64_t tap = 0; tap < taps; ++tap)
        p->weights[(k / PT2C_DEPTHWISE_BLOCK * taps + tap) * PT2C_DEPTHWISE_BLOCK +
                   k % PT2C_DEPTHWISE_BLOCK] = w[k * taps + tap];
  } else {
    for (int64_t grp = 0; grp < g.groups; ++grp) { /* w as [K/G, C/G * taps] per group */
      const float *wg = w + grp * g.group_out_channels * depth;
      float *packed = p->weights + grp * p->group_weights;
      if (p->pixel_major) /* B = its transpose */
        pt2c_gemm_pack_b(PT2C_GEMM_F32, wg, 1, depth, depth, g.group_out_channels, packed);
      else
        pt2c_gemm_pack_a(PT2C_GEMM_F32, wg, depth, 1, g.group_out_channels, depth, packed);
    }
  }
  return p;
}

void pt2c_conv_prepacked_free(pt2c_conv_prepacked *p) {
  if (!p)
    return;
  free(p->weights);
  free(p->direct_rows);
  free(p);
}

typedef struct conv_job {
  const pt2c_conv_prepacked *p;
  const float *x, *bias, *z;
  int relu; /* applied by each path's store */
  int silu; /* applied in place to each task's finished output (activation.h) */
  float *y;
  float *cols;          /* pixel-major im2col: packed A per (image, group) */
  float *phased;        /* im2col: x split into stride phases when
                         * pt2c_conv_splits_phases, else NULL (im2col reads x) */
  int64_t panels;       /* cols: per (image, group), of MR pixels */
  int64_t panel_floats; /* MR * C/G * taps */
  float *transposed;    /* pixel-major: y^T [HW, K/G] per (image, group) */
  float *padded;        /* direct: the input's phase planes (conv_direct.c) */
  float *virtual_y;     /* direct, when the padded grid is wider than y: the GEMMs'
                         * results, [K/G, out_h * cols] per (image, group) */
} conv_job;

static void depthwise_task(void *ctx, int64_t task, int thread) {
  const conv_job *job = ctx;
  const pt2c_conv_geometry *g = &job->p->g;
  int64_t channel = task % g->channels, in_plane = g->in_h * g->in_w,
          out_plane = g->out_h * g->out_w;
  pt2c_conv_depthwise_plane(
      g, job->x + task * in_plane, job->p->weights + channel * job->p->group_weights,
      job->bias ? job->bias[channel] : 0.0f, job->z ? job->z + task * out_plane : NULL, job->relu,
      job->y + task * out_plane);
  if (job->silu)
    pt2c_silu_inplace(job->y + task * out_plane, out_plane);
}

/* Task: block t % blocks of image t / blocks. */
static void depthwise_block_task(void *ctx, int64_t task, int thread) {
  const conv_job *job = ctx;
  const pt2c_conv_geometry *g = &job->p->g;
  int64_t blocks = ceil_div(g->channels, PT2C_DEPTHWISE_BLOCK);
  int64_t image = task / blocks, c0 = task % blocks * PT2C_DEPTHWISE_BLOCK;
  int64_t first = image * g->channels + c0; /* plane index */
  int channels =
      (int)(g->channels - c0 < PT2C_DEPTHWISE_BLOCK ? g->channels - c0 : PT2C_DEPTHWISE_BLOCK);
  int64_t in_plane = g->in_h * g->in_w, out_plane = g->out_h * g->out_w;
  pt2c_conv_depthwise_block(
      g, job->x + first * in_plane, channels, job->p->weights + c0 * job->p->group_weights,
      job->bias ? job->bias + c0 : NULL, job->z ? job->z + first * out_plane : NULL, job->relu,
      job->y + first * out_plane);
  if (job->silu)
    pt2c_silu_inplace(job->y + first * out_plane, channels * out_plane);
}

enum { PHASE_ROWS_PER_TASK = 64 };

/* Task: input rows [t * PHASE_ROWS_PER_TASK, +PHASE_ROWS_PER_TASK) into stride phases. */
static void phase_task(void *ctx, int64_t task, int thread) {
  const conv_job *job = ctx;
  const pt2c_conv_geometry *g = &job->p->g;
  int64_t rows = g->batch * g->channels * g->in_h, row0 = task * PHASE_ROWS_PER_TASK;
  int64_t n = rows - row0 < PHASE_ROWS_PER_TASK ? rows - row0 : PHASE_ROWS_PER_TASK;
  pt2c_conv_split_phases(g, job->x, row0, n, job->phased);
}

enum { DIRECT_FILL_FLOATS = 16384 }; /* per fill task, at least */

static int64_t direct_fill_planes(const pt2c_conv_direct_layout *l) {
  int64_t planes = DIRECT_FILL_FLOATS / l->channel_floats;
  return planes > 1 ? planes : 1;
}

/* Task (direct): input channel planes [t * per_task, +per_task) into their phase planes. */
static void direct_fill_task(void *ctx, int64_t task, int thread) {
  const conv_job *job = ctx;
  const pt2c_conv_geometry *g = &job->p->g;
  int64_t per_task = direct_fill_planes(&job->p->layout), all = g->batch * g->channels;
  int64_t first = task * per_task, n = all - first < per_task ? all - first : per_task;
  pt2c_conv_direct_fill(g, &job->p->layout, job->x, first, n, job->padded);
}

/* The GEMM epilogue's finish (direct, on the virtual grid): a finished block into y. */
typedef struct direct_finisher {
  const conv_job *job;
  int64_t image_group;
} direct_finisher;

static void direct_finish(const void *ctx, int64_t row0, int64_t row1, int64_t col0, int64_t col1) {
  const direct_finisher *f = ctx;
  const conv_job *job = f->job;
  const pt2c_conv_geometry *g = &job->p->g;
  int64_t kg = g->group_out_channels, nv = g->out_h * job->p->layout.cols;
  int64_t offset = f->image_group * kg * g->out_h * g->out_w;
  pt2c_conv_direct_copy_out(g, &job->p->layout, job->virtual_y + f->image_group * kg * nv, nv, row0,
                            row1, col0, col1, job->z ? job->z + offset : NULL, job->relu, job->silu,
                            job->y + offset);
}

/* The input im2col reads for (image, group) i: its first channel of x, or of x's phase
 * split. */
static const float *group_input(const conv_job *job, int64_t i) {
  const pt2c_conv_geometry *g = &job->p->g;
  int64_t row_floats = job->phased ? g->stride_w * pt2c_conv_phase_width(g) : g->in_w;
  const float *input = job->phased ? job->phased : job->x;
  return input + i * g->group_channels * g->in_h * row_floats;
}

/* Task (pixel-major): A panel t % panels of (image, group) t / panels. */
static void im2col_task(void *ctx, int64_t task, int thread) {
  const conv_job *job = ctx;
  int64_t depth = job->p->g.group_channels * job->p->g.kernel_h * job->p->g.kernel_w;
  int64_t image_group = task / job->panels, panel = task % job->panels;
  pt2c_conv_im2col_panel(&job->p->g, group_input(job, image_group), panel * PT2C_GEMM_MR,
                         PT2C_GEMM_MR, 0, depth, job->cols + task * job->panel_floats);
}

enum { CHANNELS_PER_TRANSPOSE_TASK = 32 };

/* Row stride of y^T: K/G rounded up to whole cache lines, plus one, so that the rows a
 * transposing pass reads together do not all fall into one cache set (K/G = 1024 would
 * put them 4 KiB apart). */
static int64_t transposed_ld(const pt2c_conv_geometry *g) {
  return round_up(g->group_out_channels, 16) + 16;
}

/* Task: channels [c0, c0 + CHANNELS_PER_TRANSPOSE_TASK) of (image, group)
 * t / channel_blocks, from the pixel-major GEMM's result into y. */
static void transpose_task(void *ctx, int64_t task, int thread) {
  const conv_job *job = ctx;
  const pt2c_conv_geometry *g = &job->p->g;
  int64_t kg = g->group_out_channels, pixels = g->out_h * g->out_w, ld = transposed_ld(g);
  int64_t blocks = ceil_div(kg, CHANNELS_PER_TRANSPOSE_TASK);
  int64_t i = task / blocks, c0 = task % blocks * CHANNELS_PER_TRANSPOSE_TASK;
  int64_t c1 = c0 + CHANNELS_PER_TRANSPOSE_TASK < kg ? c0 + CHANNELS_PER_TRANSPOSE_TASK : kg;
  int64_t offset = i * kg * pixels; /* channel (image, group * K/G) of y */
  pt2c_conv_transpose_channels(job->transposed + i * pixels * ld, ld, pixels, c0, c1,
                               job->z ? job->z + offset : NULL, job->relu, job->y + offset);
  if (job->silu)
    pt2c_silu_inplace(job->y + offset + c0 * pixels, (c1 - c0) * pixels);
}

/* The GEMM of (image, group) i: channel-major or pixel-major (see the top); finisher for
 * direct ones on a grid wider than y. */
static void gemm_problem(const conv_job *job, int64_t i, const direct_finisher *finisher,
                         pt2c_sgemm_problem *q) {
  const pt2c_conv_prepacked *p = job->p;
  const pt2c_conv_geometry *g = &p->g;
  int64_t group = i % g->groups, pixels = g->out_h * g->out_w, kg = g->group_out_channels;
  int64_t depth = g->group_channels * g->kernel_h * g->kernel_w;
  int64_t y_offset = i * kg * pixels;
  /* the operand of the pixels: x of image i and group as [C/G, HW], its A panels
   * (pixel-major), or B panels made on demand (channel-major, maker) */
  const float *x = job->x + i * g->group_channels * pixels;
  const float *cols = job->cols ? job->cols + i * job->panels * job->panel_floats : NULL;
  const float *weights = p->weights + group * p->group_weights;
  memset(q, 0, sizeof(*q));
  q->k = depth;
  if (p->pixel_major) {
    q->m = pixels;
    q->n = kg;
    if (cols) {
      q->a_packed = cols;
    } else {
      q->a = x;
      q->a_row_stride = 1;
      q->a_col_stride = pixels;
    }
    q->b_packed = weights;
    q->ldc = transposed_ld(g);
    q->c = job->transposed + i * pixels * q->ldc;
    q->epilogue.bias = job->bias ? job->bias + group * kg : NULL;
    return; /* residual and activation: transpose_task */
  }
  q->m = kg;
  q->n = pixels;
  q->a_packed = weights;
  if (p->direct) {
    int64_t image = i / g->groups;
    q->b =
        job->padded + (image * g->channels + group * g->group_channels) * p->layout.channel_floats;
    q->b_rows = p->direct_rows;
    q->n = g->out_h * p->layout.cols;
  }
  if (finisher) {
    q->c = job->virtual_y + i * kg * q->n;
    q->ldc = q->n;
    q->epilogue.bias = job->bias ? job->bias + group * kg : NULL;
    q->epilogue.bias_per_row = 1;
    q->epilogue.finish = direct_finish;
    q->epilogue.finish_ctx = finisher;
    return; /* residual and activation: direct_finish */
  }
  if (!p->direct) { /* on x */
    q->b = x;
    q->b_row_stride = pixels;
    q->b_col_stride = 1;
  }
  q->c = job->y + y_offset;
  q->ldc = pixels;
  q->epilogue.bias = job->bias ? job->bias + group * kg : NULL;
  q->epilogue.bias_per_row = 1;
  q->epilogue.residual = job->z ? job->z + y_offset : NULL;
  q->epilogue.relu = job->relu;
  q->epilogue.activation = job->silu ? pt2c_silu_inplace : NULL;
}

void pt2c_conv_run(const pt2c_conv_prepacked *p, const float *x, const float *bias, const float *z,
                   pt2c_conv_activation activation, float *y) {
  const pt2c_conv_geometry *g = &p->g;
  conv_job job;
  memset(&job, 0, sizeof(job));
  job.p = p;
  job.x = x;
  job.bias = bias;
  job.z = z;
  job.relu = activation == PT2C_CONV_ACT_RELU;
  job.silu = activation == PT2C_CONV_ACT_SILU;
  job.y = y;
  if (p->method == CONV_DEPTHWISE) {
    pt2c_pool_parallel_for(g->batch * g->channels, depthwise_task, &job);
    return;
  }
  if (p->method == CONV_DEPTHWISE_BLOCKED) {
    pt2c_pool_parallel_for(g->batch * ceil_div(g->channels, PT2C_DEPTHWISE_BLOCK),
                           depthwise_block_task, &job);
    return;
  }
  int64_t count = g->batch * g->groups, pixels = g->out_h * g->out_w;
  int virtual_grid = p->direct && p->layout.cols != g->out_w; /* else the GEMM writes y */
  size_t list_bytes = round_up_bytes(sizeof(pt2c_sgemm_problem) * (size_t)count);
  size_t finisher_bytes =
      virtual_grid ? round_up_bytes(sizeof(direct_finisher) * (size_t)count) : 0;
  size_t cols_bytes = 0, phase_bytes = 0, transposed_bytes = 0, padded_bytes = 0;
  size_t virtual_bytes = 0;
  int64_t input_rows = g->batch * g->channels * g->in_h;
  if (p->windowed && p->pixel_major) {
    job.panels = ceil_div(pixels, PT2C_GEMM_MR);
    job.panel_floats = PT2C_GEMM_MR * g->group_channels * g->kernel_h * g->kernel_w;
    cols_bytes = round_up_bytes(sizeof(float) * (size_t)(count * job.panels * job.panel_floats));
  }
  if (p->direct) {
    int64_t floats = g->batch * g->channels * p->layout.channel_floats + p->layout.tail;
    padded_bytes = round_up_bytes(sizeof(float) * (size_t)floats);
  }
  if (virtual_grid)
    virtual_bytes =
        sizeof(float) * (size_t)(count * g->group_out_channels * g->out_h * p->layout.cols);
  if (p->windowed && !p->direct && pt2c_conv_splits_phases(g)) {
    int64_t floats = input_rows * g->stride_w * pt2c_conv_phase_width(g);
    phase_bytes = round_up_bytes(sizeof(float) * (size_t)floats);
  }
  if (p->pixel_major)
    transposed_bytes = sizeof(float) * (size_t)(count * pixels * transposed_ld(g));
  char *scratch =
      pt2c_cpu_scratch(PT2C_SCRATCH_CONV, list_bytes + finisher_bytes + cols_bytes + phase_bytes +
                                              transposed_bytes + padded_bytes + virtual_bytes);
  if (!scratch)
    return;
  pt2c_sgemm_problem *list = (pt2c_sgemm_problem *)scratch;
  direct_finisher *finishers = virtual_grid ? (direct_finisher *)(scratch + list_bytes) : NULL;
  char *rest = scratch + list_bytes + finisher_bytes;
  if (cols_bytes)
    job.cols = (float *)rest;
  if (phase_bytes) {
    job.phased = (float *)(rest + cols_bytes);
    pt2c_pool_parallel_for(ceil_div(input_rows, PHASE_ROWS_PER_TASK), phase_task, &job);
  }
  if (transposed_bytes)
    job.transposed = (float *)(rest + cols_bytes + phase_bytes);
  if (padded_bytes) {
    job.padded = (float *)(rest + cols_bytes + phase_bytes + transposed_bytes);
    int64_t planes = g->batch * g->channels;
    /* the tail: read by the last windows, never used; zero, not NaN or subnormal */
    memset(job.padded + planes * p->layout.channel_floats, 0,
           sizeof(float) * (size_t)p->layout.tail);
    pt2c_pool_parallel_for(ceil_div(planes, direct_fill_planes(&p->layout)), direct_fill_task,
                           &job);
  }
  if (virtual_bytes)
    job.virtual_y = (float *)(rest + cols_bytes + phase_bytes + transposed_bytes + padded_bytes);
  if (job.cols)
    pt2c_pool_parallel_for(count * job.panels, im2col_task, &job);
  for (int64_t i = 0; i < count; ++i) {
    if (finishers)
      finishers[i] = (direct_finisher){&job, i};
    gemm_problem(&job, i, finishers ? &finishers[i] : NULL, &list[i]);
  }
  pt2c_sgemm_many(list, count);
  if (p->pixel_major)
    pt2c_pool_parallel_for(count * ceil_div(g->group_out_channels, CHANNELS_PER_TRANSPOSE_TASK),
                           transpose_task, &job);
}
