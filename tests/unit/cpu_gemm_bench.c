/* GFLOP/s of the CPU GEMM and convolution kernels (runtime/src/cpu) against this
 * machine's measured f32 FMA peak, with 1 and all threads, for every ISA the CPU has.
 * Standalone; from the repository root:
 *
 *   S=runtime/src/cpu
 *   gcc -std=c11 -O3 -mavx2 -mfma -c $S/gemm_kernel_avx2.c -o /tmp/k_avx2.o
 *   for k in avx512 avx512_bf16; do gcc -std=c11 -O3 -mavx512f -mavx512bw -mavx512vl \
 *     -mavx512dq -mavx512bf16 -mfma -c $S/gemm_kernel_$k.c -o /tmp/k_$k.o; done
 *   gcc -std=c11 -O3 -I. -Iruntime/include -o /tmp/cpu_gemm_bench tests/unit/cpu_gemm_bench.c \
 *     $S/{thread_pool,scratch,cpu_isa,gemm_pack,cpu_gemm,cpu_conv,conv_im2col,conv_transpose}.c \
 *     $S/{conv_depthwise,conv_depthwise_blocked,conv_direct,gemm_kernel_generic,activation}.c \
 *     runtime/src/cpu_host_features.c \
 *     /tmp/k_avx2.o /tmp/k_avx512.o /tmp/k_avx512_bf16.o -lpthread -lm
 *   /tmp/cpu_gemm_bench [linear|conv]  # GEMMs only | convolutions on the best ISA only;
 *                                      # PT2C_NUM_THREADS caps the threads
 *
 * The kernels are compiled with their ISA's flags only, the rest for baseline x86-64, and
 * dispatched at run time, as in the runtime's Bazel targets.
 */
#define _POSIX_C_SOURCE 200112L
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/src/cpu/cpu_conv.h"
#include "runtime/src/cpu/cpu_gemm.h"
#include "runtime/src/cpu/thread_pool.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 12 independent FMA chains: more than latency x throughput (4 x 2 on Zen4), so the
 * loop runs at the FMA pipes' throughput. */
enum { kPeakIters = 5000000 };
__attribute__((target("avx512f"))) static void fma_zmm(void *out, int64_t task, int thread) {
  __m512 acc[12], m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(1e-7f);
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm512_set1_ps((float)i);
  for (int it = 0; it < kPeakIters; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm512_fmadd_ps(acc[i], m, a);
  __m512 s = acc[0];
  for (int i = 1; i < 12; ++i)
    s = _mm512_add_ps(s, acc[i]);
  ((float *)out)[task] = _mm512_reduce_add_ps(s);
}
__attribute__((target("avx2,fma"))) static void fma_ymm(void *out, int64_t task, int thread) {
  __m256 acc[12], m = _mm256_set1_ps(0.999999f), a = _mm256_set1_ps(1e-7f);
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm256_set1_ps((float)i);
  for (int it = 0; it < kPeakIters; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm256_fmadd_ps(acc[i], m, a);
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i)
    s = _mm256_add_ps(s, acc[i]);
  float tmp[8];
  _mm256_storeu_ps(tmp, s);
  ((float *)out)[task] = tmp[0];
}

/* GFLOP/s of `threads` threads each running the FMA loop at once. */
static double peak(pt2c_pool_task_fn loop, int lanes, int threads) {
  float sink[64];
  pt2c_pool_set_num_threads(threads);
  double best = 1e30; /* best of 5: the machine may be shared */
  for (int rep = 0; rep < 5; ++rep) {
    double t0 = now();
    pt2c_pool_parallel_for(threads, loop, sink);
    double t = now() - t0;
    if (t < best)
      best = t;
  }
  return 2.0 * lanes * 12.0 * kPeakIters * threads / best * 1e-9;
}

static float *random_floats(size_t n) {
  float *p = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i)
    p[i] = (float)rand() / RAND_MAX - 0.5f;
  return p;
}

/* Best of several timed runs after a warm-up, in seconds. */
#define TIME_BEST(seconds, stmt)                                                                   \
  do {                                                                                             \
    stmt;                                                                                          \
    seconds = 1e30;                                                                                \
    for (int rep_ = 0; rep_ < 7; ++rep_) {                                                         \
      double t0_ = now();                                                                          \
      int n_ = 0;                                                                                  \
      do {                                                                                         \
        stmt;                                                                                      \
        ++n_;                                                                                      \
      } while (now() - t0_ < 0.05);                                                                \
      double t_ = (now() - t0_) / n_;                                                              \
      if (t_ < seconds)                                                                            \
        seconds = t_;                                                                              \
    }                                                                                              \
  } while (0)

/* f32 -> bf16 by truncation, in place (the upper halves): the values only feed timing. */
static void truncate_to_bf16(float *values, size_t count) {
  uint16_t *out = (uint16_t *)values;
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    memcpy(&bits, &values[i], sizeof(bits));
    out[i] = (uint16_t)(bits >> 16);
  }
}

/* Packed weights cycled through so that each call reads its weights from memory, as a
 * model's layers do (more than any L3 of this class of machine). */
enum { kColdWeightBytes = 96 << 20 };

/* y = x @ W^T for x [m, k], W [n, k] (a linear layer: W prepacked as B = W^T), with f32
 * or bf16 operands. cold: every call takes the next of enough weight copies to overflow
 * the caches (kColdWeightBytes); else one copy, which stays in cache. */
static double bench_linear(pt2c_gemm_operands operands, int64_t m, int64_t k, int64_t n, int cold) {
  float *x = random_floats((size_t)(m * k));
  float *w = random_floats((size_t)(n * k));
  float *bias = random_floats((size_t)n);
  float *y = malloc(sizeof(float) * (size_t)(m * n));
  if (operands == PT2C_GEMM_BF16) {
    truncate_to_bf16(x, (size_t)(m * k));
    truncate_to_bf16(w, (size_t)(n * k));
  }
  size_t packed_bytes = pt2c_gemm_packed_b_bytes(operands, k, n);
  int copies = cold ? (int)(kColdWeightBytes / packed_bytes) + 1 : 1;
  void **wp = malloc(sizeof(void *) * (size_t)copies);
  for (int c = 0; c < copies; ++c) {
    if (posix_memalign(&wp[c], 64, packed_bytes))
      abort();
    pt2c_gemm_pack_b(operands, w, 1, k, k, n, wp[c]);
  }
  pt2c_sgemm_problem p = {.m = m,
                          .n = n,
                          .k = k,
                          .operands = operands,
                          .a = x,
                          .a_row_stride = k,
                          .a_col_stride = 1,
                          .b_packed = wp[0],
                          .c = y,
                          .ldc = n};
  p.epilogue.bias = bias;
  p.epilogue.relu = 1;
  int next = 0;
  double s;
  TIME_BEST(s, (p.b_packed = wp[next], next = (next + 1) % copies, pt2c_sgemm(&p)));
  for (int c = 0; c < copies; ++c)
    free(wp[c]);
  free(wp), free(x), free(w), free(bias), free(y);
  return 2.0 * m * n * k / s * 1e-9;
}

/* One linear shape, weights in cache and from memory. */
static void print_linear(pt2c_gemm_operands operands, int64_t m, int64_t k, int64_t n) {
  printf("  %slinear %ldx%ld @ %ldx%ld (+bias, relu): %.1f, weights from memory %.1f\n",
         operands == PT2C_GEMM_BF16 ? "bf16 " : "", (long)m, (long)k, (long)k, (long)n,
         bench_linear(operands, m, k, n, 0), bench_linear(operands, m, k, n, 1));
}

typedef struct conv_shape {
  const char *name;
  uint64_t c, k, hw, r, stride, pad, groups;
} conv_shape;

static double bench_conv(const conv_shape *cs, int64_t batch, int cold) {
  pt2c_plan_conv conv;
  memset(&conv, 0, sizeof(conv));
  conv.dtype = PT2C_F32;
  conv.epilogue = PT2C_CONV_EPILOGUE_BIAS_RELU;
  conv.spatial_rank = 2;
  conv.groups = (uint32_t)cs->groups;
  conv.batch = batch;
  conv.in_channels = cs->c;
  conv.out_channels = cs->k;
  uint64_t out = (cs->hw + 2 * cs->pad - cs->r) / cs->stride + 1;
  for (int d = 0; d < PT2C_CONV_MAX_SPATIAL; ++d) {
    conv.input[d] = d < 2 ? cs->hw : 1;
    conv.kernel[d] = d < 2 ? cs->r : 1;
    conv.output[d] = d < 2 ? out : 1;
    conv.stride[d] = d < 2 ? cs->stride : 1;
    conv.padding[d] = d < 2 ? cs->pad : 0;
    conv.dilation[d] = 1;
  }
  size_t cg = cs->c / cs->groups;
  float *w = random_floats(cs->k * cg * cs->r * cs->r);
  float *x = random_floats(batch * cs->c * cs->hw * cs->hw);
  float *bias = random_floats(cs->k);
  float *y = malloc(sizeof(float) * batch * cs->k * out * out);
  /* as in bench_linear: with `cold`, enough packed copies to overflow the caches */
  size_t weight_bytes = sizeof(float) * cs->k * cg * cs->r * cs->r;
  int copies = cold ? (int)(kColdWeightBytes / weight_bytes) + 1 : 1;
  pt2c_conv_prepacked **pp = malloc(sizeof(*pp) * (size_t)copies);
  for (int c = 0; c < copies; ++c)
    if (!(pp[c] = pt2c_conv_prepack(&conv, w)))
      abort();
  int next = 0;
  double s;
  TIME_BEST(s, (pt2c_conv_run(pp[next], x, bias, NULL, PT2C_CONV_ACT_RELU, y),
                next = (next + 1) % copies));
  for (int c = 0; c < copies; ++c)
    pt2c_conv_prepacked_free(pp[c]);
  free(pp);
  free(w), free(x), free(bias), free(y);
  return 2.0 * batch * cs->k * out * out * cg * cs->r * cs->r / s * 1e-9;
}

int main(int argc, char **argv) {
  int linear_only = argc > 1 && strcmp(argv[1], "linear") == 0; /* skip the convs */
  int conv_only = argc > 1 && strcmp(argv[1], "conv") == 0;     /* skip the rest */
  static const char *const kIsaNames[] = {"generic", "avx2", "avx512", "avx512bf16"};
  int max_threads = pt2c_pool_num_threads();
  int host = pt2c_cpu_host_isa();
  printf("threads available: %d, best ISA: %s\n", max_threads, kIsaNames[host]);
  for (int threads = 1; threads <= max_threads; threads *= 2) {
    if (host >= PT2C_CPU_ISA_AVX2)
      printf("FMA peak, %d thread(s): ymm %.1f GFLOP/s", threads, peak(fma_ymm, 8, threads));
    if (host >= PT2C_CPU_ISA_AVX512)
      printf(", zmm %.1f GFLOP/s", peak(fma_zmm, 16, threads));
    printf("\n");
  }
  static const conv_shape kConvs[] = {
      {"conv1 7x7 s2 3->64 224", 3, 64, 224, 7, 2, 3, 1},
      {"layer1 3x3 64->64 56", 64, 64, 56, 3, 1, 1, 1},
      {"layer2 3x3 s2 64->128 56", 64, 128, 56, 3, 2, 1, 1},
      {"layer3 3x3 256->256 14", 256, 256, 14, 3, 1, 1, 1},
      {"layer4 1x1 s2 256->512 14", 256, 512, 14, 1, 2, 0, 1},
      {"layer4 3x3 512->512 7", 512, 512, 7, 3, 1, 1, 1},
      {"1x1 s1 256->1024 14", 256, 1024, 14, 1, 1, 0, 1},
      {"depthwise 3x3 s1 256 28", 256, 256, 28, 3, 1, 1, 256},
      {"depthwise 5x5 s1 672 14", 672, 672, 14, 5, 1, 2, 672},
      {"depthwise 5x5 s1 1152 7", 1152, 1152, 7, 5, 1, 2, 1152},
      {"depthwise 3x3 s2 96 112", 96, 96, 112, 3, 2, 1, 96},
      {"depthwise 3x3 s1 32 112", 32, 32, 112, 3, 1, 1, 32},
  };
  for (int isa = host; isa >= (conv_only ? host : 0); --isa) {
    pt2c_cpu_set_isa_override(isa);
    for (int threads = 1; threads <= max_threads; threads *= 2) {
      pt2c_pool_set_num_threads(threads);
      printf("[%s, %d thread(s)] GFLOP/s\n", kIsaNames[isa], threads);
      if (isa >= PT2C_CPU_ISA_AVX512_BF16 && !conv_only) {
        print_linear(PT2C_GEMM_BF16, 128, 768, 3072);
        print_linear(PT2C_GEMM_BF16, 128, 3072, 768);
        print_linear(PT2C_GEMM_BF16, 128, 768, 768);
      }
      if (!conv_only) {
        print_linear(PT2C_GEMM_F32, 64, 1024, 4096);
        print_linear(PT2C_GEMM_F32, 64, 4096, 1024);
      }
      if (linear_only || (isa == PT2C_CPU_ISA_GENERIC && threads > 1))
        continue;
      for (size_t i = 0; i < sizeof(kConvs) / sizeof(kConvs[0]); ++i)
        printf("  conv %-28s batch 1: %.1f, weights from memory %.1f\n", kConvs[i].name,
               bench_conv(&kConvs[i], 1, 0), bench_conv(&kConvs[i], 1, 1));
    }
  }
  return 0;
}
