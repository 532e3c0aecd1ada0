/* The GEMM microkernels: C[MR x NR tile] (+)= A panel x B panel, with the epilogue fused
 * into the store. One instance per ISA and operand type, all from gemm_kernel_template.h.
 * Internal. */
#ifndef PT2C_RUNTIME_CPU_GEMM_KERNEL_H_
#define PT2C_RUNTIME_CPU_GEMM_KERNEL_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The packed layout, the same for every ISA (packs are made once and may be run by
 * another ISA's kernel, e.g. in tests): A in panels of MR rows, B in panels of NR
 * columns, each k-major over the whole K and zero padded past M (N). AVX-512 holds the
 * 6 x 32 tile in 12 zmm accumulators; AVX2 runs it as two 6 x 16 halves (12 ymm). */
enum { PT2C_GEMM_MR = 6, PT2C_GEMM_NR = 32 };
enum { PT2C_GEMM_LINE_FLOATS = 16 }; /* 4-byte slots per 64-byte cache line */

typedef struct pt2c_gemm_tile {
  int64_t kc;     /* depth of this K block, in slots (gemm_pack.h) */
  const float *a; /* a[kk * MR + i], kk < kc (the bf16 kernel reads each slot as a pair) */
  const float *b; /* b[kk * NR + j], or b[b_rows[kk] + j] */
  /* NULL, or B read in place from rows of a larger array (a direct convolution's padded
   * input, conv_direct.c): every row's NR slots must be readable, past nr too. */
  const int64_t *b_rows;
  float *c; /* C(i, j) = c[i * ldc + j], i < mr, j < nr */
  int64_t ldc;
  int mr, nr;        /* the valid part of the tile */
  int accumulate;    /* add to C (every K block after the first) */
  int last;          /* the last K block: apply the epilogue */
  const float *bias; /* offset to the tile: bias[i] per row, else bias[j] */
  int bias_per_row;
  const float *residual; /* offset to the tile, stride ldc */
  int relu;
  /* prefetch_lines (<= kc) consecutive cache lines from here into L2, one per K step:
   * the driver's way to stream the next K block's B in while this one computes. */
  const float *prefetch;
  int64_t prefetch_lines;
} pt2c_gemm_tile;

typedef void (*pt2c_gemm_kernel_fn)(const pt2c_gemm_tile *tile);

void pt2c_gemm_kernel_generic(const pt2c_gemm_tile *tile);
void pt2c_gemm_kernel_avx2(const pt2c_gemm_tile *tile);
void pt2c_gemm_kernel_avx512(const pt2c_gemm_tile *tile);
/* bf16 panels (pairs along K); C and the epilogue stay f32. */
void pt2c_gemm_kernel_avx512_bf16(const pt2c_gemm_tile *tile);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CPU_GEMM_KERNEL_H_ */
