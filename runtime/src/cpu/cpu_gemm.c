/* The GEMM driver: packs what is not prepacked, then runs the microkernel over blocks of
 * C, both phases as parallel regions of the thread pool. f32 and bf16 operands share it:
 * a packed panel is a run of 4-byte slots either way (one float, or a pair of bf16 along
 * K), so blocking and addressing count slots and only the packers and kernel differ.
 *
 * Blocking (Goto/BLIS): per task, a block of up to MC_PANELS x NC_PANELS tiles; K in
 * blocks of KC. For one K block the kernel sweeps the block's B panels (KC x NR each,
 * NC_PANELS of them: 512 KiB, in L2) once per A panel (MR x KC: 6 KiB, in L1). */
#include "cpu_gemm.h"

#include <string.h>

#include "gemm_kernel.h"
#include "gemm_pack.h"
#include "scratch.h"
#include "thread_pool.h"

#ifndef PT2C_GEMM_KC /* -D for tuning experiments */
#define PT2C_GEMM_KC 256
#endif

enum {
  MR = PT2C_GEMM_MR,
  NR = PT2C_GEMM_NR,
  KC = PT2C_GEMM_KC,
  MC_PANELS = 16,       /* 96 rows */
  NC_PANELS = 16,       /* 512 columns */
  TASKS_PER_THREAD = 4, /* enough to even out tasks of unequal cost */
};
/* Below this many flops a parallel region costs more than it saves. */
static const double kSerialFlops = 1 << 17;

typedef struct gemm_job {
  const pt2c_sgemm_problem *problems;
  int64_t count, m, n, k;
  int bf16;      /* operands are bf16 pairs */
  int64_t depth; /* packed slots along K: k, or (k + 1) / 2 for bf16 */
  int64_t m_panels, n_panels;
  const float **a;  /* per problem: its packed A (prepacked or in scratch), in slots */
  const float **b;  /* NULL for a problem that reads B in place (b_rows) */
  float *a_scratch; /* packing destinations, one stretch per problem */
  float *b_scratch;
  int pack_a, pack_b;           /* some problem needs A (B) packed */
  int64_t mc_panels, nc_panels; /* panels per task block */
  int64_t tiles_m, tiles_n;
  int threads; /* that run the compute tasks */
  pt2c_gemm_kernel_fn kernel;
} gemm_job;

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static pt2c_gemm_kernel_fn kernel_for(pt2c_cpu_isa isa, int bf16) {
  if (bf16)
    return pt2c_gemm_kernel_avx512_bf16; /* the caller checked the ISA */
  switch (isa) {
  case PT2C_CPU_ISA_AVX512_BF16:
  case PT2C_CPU_ISA_AVX512:
    return pt2c_gemm_kernel_avx512;
  case PT2C_CPU_ISA_AVX2:
    return pt2c_gemm_kernel_avx2;
  default:
    return pt2c_gemm_kernel_generic;
  }
}

/* Pack task: panel t of problem t / panels, A panels first, then B panels. */
static void pack_task(void *ctx, int64_t task, int thread) {
  const gemm_job *job = ctx;
  int64_t a_tasks = job->pack_a ? job->count * job->m_panels : 0;
  if (task < a_tasks) {
    int64_t i = task / job->m_panels, panel = task % job->m_panels;
    const pt2c_sgemm_problem *p = &job->problems[i];
    if (p->a_packed)
      return;
    float *dst = job->a_scratch + (i * job->m_panels + panel) * MR * job->depth;
    (job->bf16 ? pt2c_gemm_pack_a_panel_bf16 : pt2c_gemm_pack_a_panel)(
        p->a, p->a_row_stride, p->a_col_stride, job->m, job->k, panel, dst);
  } else {
    task -= a_tasks;
    int64_t i = task / job->n_panels, panel = task % job->n_panels;
    const pt2c_sgemm_problem *p = &job->problems[i];
    if (p->b_packed || p->b_rows)
      return;
    float *dst = job->b_scratch + (i * job->n_panels + panel) * NR * job->depth;
    (job->bf16 ? pt2c_gemm_pack_b_panel_bf16 : pt2c_gemm_pack_b_panel)(
        p->b, p->b_row_stride, p->b_col_stride, job->k, job->n, panel, dst);
  }
}

/* Rows [row0, row1) and columns [col0, col1) of C, finished, through the epilogue's
 * activation and narrow steps (those it has). */
static void finish_block(const pt2c_sgemm_problem *p, int64_t row0, int64_t row1, int64_t col0,
                         int64_t col1) {
  const pt2c_sgemm_epilogue *ep = &p->epilogue;
  for (int64_t i = row0; i < row1; ++i) {
    int64_t at = i * p->ldc + col0;
    if (ep->activation)
      ep->activation(p->c + at, col1 - col0);
    if (ep->narrow)
      ep->narrow(p->c + at, col1 - col0, (uint16_t *)ep->narrow_out + at);
  }
  if (ep->finish)
    ep->finish(ep->finish_ctx, row0, row1, col0, col1);
}

/* The next K block's B panels of a task, a slice per kernel call: a K block's panels
 * come from memory (weights, or packs evicted since), and without this the first sweep
 * over them waits on each line, since the kernel reads B faster than one core streams
 * from memory. Spread over the block's calls, the stream is a few bytes per cycle. */
typedef struct b_prefetch {
  const float *first;   /* the next block's slice of the first panel */
  int64_t panel_stride; /* slots between panels */
  int64_t panel_lines;  /* cache lines per panel slice */
  int64_t lines, next;  /* all lines, the first one not yet handed out */
  int64_t per_call;
} b_prefetch;

static void plan_prefetch(b_prefetch *f, const float *b, int64_t depth, int64_t next_k0,
                          int64_t jp0, int64_t jp1, int64_t calls) {
  int64_t next_kc = min64(KC, depth - next_k0);
  memset(f, 0, sizeof(*f));
  if (next_kc <= 0 || !b)
    return;
  f->first = b + jp0 * NR * depth + next_k0 * NR;
  f->panel_stride = NR * depth;
  f->panel_lines = next_kc * NR / PT2C_GEMM_LINE_FLOATS;
  f->lines = (jp1 - jp0) * f->panel_lines;
  f->per_call = ceil_div(f->lines, calls);
}

/* The next slice (within one panel) into the tile, or none. */
static void hand_out_prefetch(b_prefetch *f, pt2c_gemm_tile *t) {
  t->prefetch_lines = 0;
  if (f->next >= f->lines)
    return;
  int64_t panel = f->next / f->panel_lines, line = f->next % f->panel_lines;
  t->prefetch = f->first + panel * f->panel_stride + line * PT2C_GEMM_LINE_FLOATS;
  t->prefetch_lines = min64(min64(f->per_call, f->panel_lines - line), t->kc);
  f->next += t->prefetch_lines;
}

/* A compute task's block: problem *i, A panels [ip0, ip1), B panels [jp0, jp1). */
typedef struct task_block {
  int64_t i, ip0, ip1, jp0, jp1;
} task_block;

static task_block block_of(const gemm_job *job, int64_t task) {
  int64_t per_problem = job->tiles_m * job->tiles_n, tile = task % per_problem;
  task_block t;
  t.i = task / per_problem;
  t.ip0 = tile / job->tiles_n * job->mc_panels;
  t.jp0 = tile % job->tiles_n * job->nc_panels;
  t.ip1 = min64(t.ip0 + job->mc_panels, job->m_panels);
  t.jp1 = min64(t.jp0 + job->nc_panels, job->n_panels);
  return t;
}

/* Compute task: one block of C tiles of one problem, over all of K (in KC slots). */
static void compute_task(void *ctx, int64_t task, int thread) {
  const gemm_job *job = ctx;
  task_block blk = block_of(job, task);
  int64_t i = blk.i, ip0 = blk.ip0, ip1 = blk.ip1, jp0 = blk.jp0, jp1 = blk.jp1;
  /* the task this thread likely takes next: tasks are claimed in turn */
  int64_t next_task = task + job->threads;
  int64_t num_tasks = job->count * job->tiles_m * job->tiles_n;
  const pt2c_sgemm_problem *p = &job->problems[i];
  const pt2c_sgemm_epilogue *ep = &p->epilogue;
  const float *a = job->a[i];
  const float *b = job->b[i];
  int64_t k = job->depth;
  pt2c_gemm_tile t;
  t.b_rows = NULL;
  t.ldc = p->ldc;
  t.bias_per_row = ep->bias_per_row;
  t.relu = ep->relu;
  for (int64_t k0 = 0; k0 < k; k0 += KC) {
    t.kc = min64(KC, k - k0);
    t.accumulate = k0 > 0;
    t.last = k0 + t.kc == k;
    b_prefetch f = {0}; /* none: B is read in place, or nothing follows */
    int64_t calls = (ip1 - ip0) * (jp1 - jp0);
    if (!t.last) {
      plan_prefetch(&f, b, k, k0 + KC, jp0, jp1, calls);
    } else if (next_task < num_tasks) { /* that task's first K block */
      task_block next = block_of(job, next_task);
      plan_prefetch(&f, job->b[next.i], k, 0, next.jp0, next.jp1, calls);
    }
    for (int64_t ip = ip0; ip < ip1; ++ip) {
      int64_t row0 = ip * MR;
      t.a = a + ip * MR * k + k0 * MR;
      t.mr = (int)min64(MR, job->m - row0);
      for (int64_t jp = jp0; jp < jp1; ++jp) {
        int64_t col0 = jp * NR;
        if (p->b_rows) { /* read in place */
          t.b = (const float *)p->b + col0;
          t.b_rows = p->b_rows + k0;
        } else {
          t.b = b + jp * NR * k + k0 * NR;
        }
        t.nr = (int)min64(NR, job->n - col0);
        t.c = p->c + row0 * p->ldc + col0;
        t.bias = ep->bias ? ep->bias + (ep->bias_per_row ? row0 : col0) : NULL;
        t.residual = ep->residual ? ep->residual + row0 * p->ldc + col0 : NULL;
        hand_out_prefetch(&f, &t);
        job->kernel(&t);
      }
    }
  }
  if (ep->activation || ep->narrow || ep->finish)
    finish_block(p, ip0 * MR, min64(ip1 * MR, job->m), jp0 * NR, min64(jp1 * NR, job->n));
}

/* Task blocks: as large as the caches allow, but at least TASKS_PER_THREAD per thread
 * when the problem is big enough, splitting N first (M is often small: a batch). Blocks
 * are then evened out (43 panels in 3 blocks: 15 + 15 + 13, not 16 + 16 + 11), since the
 * largest block bounds the time. */
static void choose_blocks(gemm_job *job, int threads) {
  int64_t want = (int64_t)threads * TASKS_PER_THREAD;
  job->tiles_m = ceil_div(job->m_panels, MC_PANELS);
  int64_t want_n = max64(1, ceil_div(want, job->count * job->tiles_m));
  job->tiles_n = max64(ceil_div(job->n_panels, NC_PANELS), min64(want_n, job->n_panels));
  if (job->count * job->tiles_m * job->tiles_n < want) {
    int64_t want_m = ceil_div(want, job->count * job->tiles_n);
    job->tiles_m = max64(job->tiles_m, min64(want_m, job->m_panels));
  }
  job->mc_panels = ceil_div(job->m_panels, job->tiles_m);
  job->tiles_m = ceil_div(job->m_panels, job->mc_panels);
  job->nc_panels = ceil_div(job->n_panels, job->tiles_n);
  job->tiles_n = ceil_div(job->n_panels, job->nc_panels);
}

/* k == 0: C = epilogue(0). */
static void epilogue_only(const pt2c_sgemm_problem *p) {
  const pt2c_sgemm_epilogue *ep = &p->epilogue;
  for (int64_t i = 0; i < p->m; ++i)
    for (int64_t j = 0; j < p->n; ++j) {
      float v = ep->bias ? ep->bias[ep->bias_per_row ? i : j] : 0.0f;
      if (ep->residual)
        v += ep->residual[i * p->ldc + j];
      p->c[i * p->ldc + j] = ep->relu && v < 0.0f ? 0.0f : v;
    }
  if (ep->activation || ep->narrow || ep->finish)
    finish_block(p, 0, p->m, 0, p->n);
}

static void run(int64_t num_tasks, pt2c_pool_task_fn fn, gemm_job *job, int serial) {
  if (serial) {
    for (int64_t t = 0; t < num_tasks; ++t)
      fn(job, t, 0);
  } else {
    pt2c_pool_parallel_for(num_tasks, fn, job);
  }
}

void pt2c_sgemm_many(const pt2c_sgemm_problem *problems, int64_t count) {
  if (count <= 0 || problems[0].m <= 0 || problems[0].n <= 0)
    return;
  gemm_job job;
  memset(&job, 0, sizeof(job));
  job.problems = problems;
  job.count = count;
  job.m = problems[0].m;
  job.n = problems[0].n;
  job.k = problems[0].k;
  job.bf16 = problems[0].operands == PT2C_GEMM_BF16;
  job.depth = pt2c_gemm_packed_depth(job.bf16, job.k);
  job.m_panels = ceil_div(job.m, MR);
  job.n_panels = ceil_div(job.n, NR);
  if (job.k <= 0) {
    for (int64_t i = 0; i < count; ++i)
      epilogue_only(&problems[i]);
    return;
  }
  job.kernel = kernel_for(pt2c_cpu_best_isa(), job.bf16);
  for (int64_t i = 0; i < count; ++i) {
    job.pack_a |= problems[i].a_packed == NULL;
    job.pack_b |= problems[i].b_packed == NULL && problems[i].b_rows == NULL;
  }
  size_t a_floats = job.pack_a ? (size_t)(count * job.m_panels * MR * job.depth) : 0;
  size_t b_floats = job.pack_b ? (size_t)(count * job.n_panels * NR * job.depth) : 0;
  size_t pointers = sizeof(float *) * 2 * (size_t)count;
  size_t pointer_bytes = (pointers + 63) / 64 * 64;
  char *scratch = pt2c_cpu_scratch(PT2C_SCRATCH_GEMM_PACK,
                                   pointer_bytes + sizeof(float) * (a_floats + b_floats));
  if (!scratch)
    return; /* out of memory: nothing sensible left to do */
  job.a = (const float **)scratch;
  job.b = job.a + count;
  job.a_scratch = (float *)(scratch + pointer_bytes);
  job.b_scratch = job.a_scratch + a_floats;
  for (int64_t i = 0; i < count; ++i) {
    job.a[i] = problems[i].a_packed ? problems[i].a_packed
                                    : job.a_scratch + i * job.m_panels * MR * job.depth;
    job.b[i] = problems[i].b_packed ? problems[i].b_packed
               : problems[i].b_rows ? NULL /* read in place: none to prefetch */
                                    : job.b_scratch + i * job.n_panels * NR * job.depth;
  }
  double flops = 2.0 * (double)job.m * (double)job.n * (double)job.k * (double)count;
  int serial = flops < kSerialFlops;
  int threads = serial ? 1 : pt2c_pool_num_threads();
  int64_t pack_tasks = count * ((job.pack_a ? job.m_panels : 0) + (job.pack_b ? job.n_panels : 0));
  if (pack_tasks)
    run(pack_tasks, pack_task, &job, serial);
  choose_blocks(&job, threads);
  job.threads = threads;
  run(count * job.tiles_m * job.tiles_n, compute_task, &job, serial);
}

void pt2c_sgemm(const pt2c_sgemm_problem *p) { pt2c_sgemm_many(p, 1); }

void pt2c_sgemm_batched(const pt2c_sgemm_problem *p, int64_t batch, int64_t a_stride,
                        int64_t b_stride, int64_t c_stride) {
  if (batch <= 0 || (uint64_t)batch > SIZE_MAX / sizeof(pt2c_sgemm_problem))
    return;
  pt2c_sgemm_problem *list =
      pt2c_cpu_scratch(PT2C_SCRATCH_GEMM_PROBLEMS, sizeof(*list) * (size_t)batch);
  if (!list)
    return;
  size_t element = p->operands == PT2C_GEMM_BF16 ? sizeof(uint16_t) : sizeof(float);
  for (int64_t i = 0; i < batch; ++i) {
    pt2c_sgemm_problem *q = &list[i];
    *q = *p;
    if (p->a)
      q->a = (const char *)p->a + (size_t)(i * a_stride) * element;
    if (p->a_packed)
      q->a_packed = (const float *)p->a_packed + i * a_stride;
    if (p->b)
      q->b = (const char *)p->b + (size_t)(i * b_stride) * element;
    if (p->b_packed)
      q->b_packed = (const float *)p->b_packed + i * b_stride;
    q->c = p->c + i * c_stride;
    if (p->epilogue.residual)
      q->epilogue.residual = p->epilogue.residual + i * c_stride;
    if (p->epilogue.narrow_out)
      q->epilogue.narrow_out = (uint16_t *)p->epilogue.narrow_out + i * c_stride;
  }
  pt2c_sgemm_many(list, batch);
}
