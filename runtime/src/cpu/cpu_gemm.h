/* GEMM for CPU plans: packed panels, register-blocked microkernels (AVX-512, AVX2 + FMA
 * or portable C for f32 operands; AVX-512-BF16 dot products for bf16 operands; chosen at
 * run time), f32 accumulation, epilogues fused into the store, split over the thread
 * pool (thread_pool.h). Internal (hidden symbols). */
#ifndef PT2C_RUNTIME_CPU_CPU_GEMM_H_
#define PT2C_RUNTIME_CPU_CPU_GEMM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  PT2C_CPU_ISA_GENERIC = 0,
  PT2C_CPU_ISA_AVX2 = 1,        /* AVX2 + FMA */
  PT2C_CPU_ISA_AVX512 = 2,      /* AVX-512 F, BW, VL, DQ */
  PT2C_CPU_ISA_AVX512_BF16 = 3, /* and AVX512_BF16 (vdpbf16ps): bf16 operands natively */
} pt2c_cpu_isa;

/* The best ISA this CPU and OS support (cpuid + xgetbv), lowered by
 * $PT2C_CPU_ISA=generic|avx2|avx512|avx512bf16 (read once) or by
 * pt2c_cpu_set_isa_override; never raised above what the CPU has. */
pt2c_cpu_isa pt2c_cpu_best_isa(void);
/* What the CPU supports, ignoring the environment and the override. */
pt2c_cpu_isa pt2c_cpu_host_isa(void);
/* isa < 0: no override. For tests and benchmarks; not thread-safe against running GEMMs. */
void pt2c_cpu_set_isa_override(int isa);

typedef struct pt2c_sgemm_epilogue {
  const float *bias; /* NULL, or added to every element: bias[row] when bias_per_row,
                      * else bias[col] */
  int bias_per_row;
  const float *residual; /* NULL, or added after the bias: residual[row * ldc + col] (C's
                          * layout); must not overlap C */
  int relu;              /* 1: max(., 0), last */
  /* NULL, or applied in place to every finished row segment of C after the above (and
   * before narrow), on the thread that computed it: activations whose code is too large
   * for the microkernel's store (activation.h). */
  void (*activation)(float *row, int64_t count);
  /* NULL, or the step after the epilogue that turns C into the model's output: for every
   * finished block of C, narrow(row, count, out) on each of its row segments, where out
   * is narrow_out at the same (i, j) in C's layout with 2-byte elements. It rounds to
   * f16/bf16 while the block is in cache, on the thread that computed it. */
  void (*narrow)(const float *row, int64_t count, void *out);
  void *narrow_out;
  /* NULL, or called once for every finished block of C, rows [row0, row1) and columns
   * [col0, col1), after the above, on the thread that computed it: for a step that reads
   * C while it is in cache (a direct convolution copies its rows out, conv_direct.c). */
  void (*finish)(const void *ctx, int64_t row0, int64_t row1, int64_t col0, int64_t col1);
  const void *finish_ctx;
} pt2c_sgemm_epilogue;

/* The operands' element type. f32 runs on every ISA. bf16 needs PT2C_CPU_ISA_AVX512_BF16
 * (the caller checks pt2c_cpu_best_isa()): each product of two bf16 values is exact in
 * f32 and the sums are f32, as when widening first, except that the hardware flushes
 * f32 subnormals to zero. */
typedef enum {
  PT2C_GEMM_F32 = 0,
  PT2C_GEMM_BF16 = 1,
} pt2c_gemm_operands;

/* Packed operands: panels of PT2C_GEMM_MR rows of A (PT2C_GEMM_NR columns of B), k-major,
 * zero padded; the same layout for every ISA. bf16 panels hold pairs of consecutive K
 * (two bf16 in each 4-byte slot where f32 panels hold one float), K padded to even.
 * `packed` needs 4-byte alignment (64 is best); `a` and `b` point at f32 or bf16 (uint16_t)
 * elements as `operands` says. */
size_t pt2c_gemm_packed_a_bytes(pt2c_gemm_operands operands, int64_t m, int64_t k);
void pt2c_gemm_pack_a(pt2c_gemm_operands operands, const void *a, int64_t row_stride,
                      int64_t col_stride, int64_t m, int64_t k, void *packed);
size_t pt2c_gemm_packed_b_bytes(pt2c_gemm_operands operands, int64_t k, int64_t n);
void pt2c_gemm_pack_b(pt2c_gemm_operands operands, const void *b, int64_t row_stride,
                      int64_t col_stride, int64_t k, int64_t n, void *packed);

typedef struct pt2c_sgemm_problem {
  int64_t m, n, k;
  pt2c_gemm_operands operands; /* of A and B, packed or not; C is f32 */
  /* A(i, kk) = a[i * a_row_stride + kk * a_col_stride]; ignored when a_packed */
  const void *a;
  int64_t a_row_stride, a_col_stride;
  const void *a_packed; /* from pt2c_gemm_pack_a(operands, m, k), or NULL */
  /* B(kk, j) = b[kk * b_row_stride + j * b_col_stride]; ignored when b_packed */
  const void *b;
  int64_t b_row_stride, b_col_stride;
  const void *b_packed; /* from pt2c_gemm_pack_b(operands, k, n), or NULL */
  /* NULL, or B read in place (f32 only): B(kk, j) = b[b_rows[kk] + j], where each row
   * must be readable up to a whole PT2C_GEMM_NR panel past n (its values there are
   * unused). For operands that are shifted windows of one array (conv_direct.c). */
  const int64_t *b_rows;
  float *c; /* C(i, j) = c[i * ldc + j] */
  int64_t ldc;
  pt2c_sgemm_epilogue epilogue;
} pt2c_sgemm_problem;

/* C = A x B (+ epilogue), overwriting C; any m, n, k >= 1 (m or n 0: nothing). Operands
 * that are not prepacked are packed in the parallel region, into per-thread scratch
 * that is kept for the next call. */
void pt2c_sgemm(const pt2c_sgemm_problem *p);

/* `batch` independent problems in one parallel region: problem i is *p with a, b, c and
 * epilogue.residual advanced by i * a_stride, i * b_stride, i * c_stride elements (c,
 * residual and narrow_out all by c_stride). A prepacked operand advances by the same
 * stride counted in 4-byte slots of its packed buffer: 0 shares one pack across the
 * batch. The bias is shared. */
void pt2c_sgemm_batched(const pt2c_sgemm_problem *p, int64_t batch, int64_t a_stride,
                        int64_t b_stride, int64_t c_stride);

/* `count` problems of the same m, n and k (any pointers, strides and epilogues) in one
 * parallel region: what the batched call and the convolutions build on. */
void pt2c_sgemm_many(const pt2c_sgemm_problem *problems, int64_t count);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CPU_CPU_GEMM_H_ */
