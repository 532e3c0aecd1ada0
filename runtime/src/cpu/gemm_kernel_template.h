/* The body of every GEMM microkernel (gemm_kernel.h); each ISA file defines its vector
 * type and operations, then includes this once:
 *   VEC, VLEN (floats per vector), NVR (vectors per tile row held in registers),
 *   V_ZERO(), V_LOAD(p), V_STORE(p, v), V_BCAST(p) (splat *p), V_FMA(a, b, acc) (a*b+acc),
 *   V_ADD(a, b), V_RELU(v), V_LOAD_N(p, n), V_STORE_N(p, v, n) (first n < VLEN lanes),
 *   KERNEL_NAME.
 * A kernel whose packed operands are not f32 (bf16 pairs) also defines the operand
 * vector types and loads the K loop uses: AVEC, V_BCAST_A(p) (splat the slot at p), BVEC,
 * V_LOAD_B(p) (VLEN slots), and V_FMA(a, b, acc) on them; by default they are the f32
 * ones.
 * The MR x (VLEN * NVR) accumulators must fit the register file: the tile is covered in
 * NR / (VLEN * NVR) passes over the same A panel (which stays in L1). */
#include "gemm_kernel.h"

#define COLS_PER_PASS (VLEN * NVR)
#ifndef AVEC
#define AVEC VEC
#define V_BCAST_A(p) V_BCAST(p)
#endif
#ifndef BVEC
#define BVEC VEC
#define V_LOAD_B(p) V_LOAD(p)
#endif

static inline VEC load_part(const float *p, int n) {
  return n >= VLEN ? V_LOAD(p) : V_LOAD_N(p, n);
}

/* acc -> C with the epilogue; i is a compile-time constant after unrolling, so the
 * accumulators stay in registers (a run-time row index would force them to memory). */
static inline void store_row(const pt2c_gemm_tile *t, int i, int col0, VEC *acc) {
  float *c = t->c + i * t->ldc;
#pragma GCC unroll 4
  for (int v = 0; v < NVR; ++v) {
    int col = col0 + v * VLEN, n = t->nr - col;
    if (n <= 0)
      return;
    VEC r = acc[v];
    if (t->accumulate)
      r = V_ADD(r, load_part(c + col, n));
    if (t->last) {
      if (t->bias)
        r = V_ADD(r, t->bias_per_row ? V_BCAST(t->bias + i) : load_part(t->bias + col, n));
      if (t->residual)
        r = V_ADD(r, load_part(t->residual + i * t->ldc + col, n));
      if (t->relu)
        r = V_RELU(r);
    }
    if (n >= VLEN)
      V_STORE(c + col, r);
    else
      V_STORE_N(c + col, r, n);
  }
}

/* One pass of COLS_PER_PASS columns from col0, over the K block. rows == NULL: B is a
 * packed panel; else B(kk, j) = t->b[rows[kk] + j] (gemm_kernel.h). Inlined into two
 * copies, so that each K loop is free of the test. */
static inline __attribute__((always_inline)) void tile_pass(const pt2c_gemm_tile *t, int col0,
                                                            const int64_t *rows) {
  VEC acc[PT2C_GEMM_MR][NVR];
#pragma GCC unroll 8
  for (int i = 0; i < PT2C_GEMM_MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NVR; ++v)
      acc[i][v] = V_ZERO();
  const float *a = t->a;
  const float *b = t->b + col0;
#pragma GCC unroll 2
  for (int64_t kk = 0; kk < t->kc; ++kk, a += PT2C_GEMM_MR, b += PT2C_GEMM_NR) {
    const float *bk = rows ? t->b + col0 + rows[kk] : b;
    BVEC bv[NVR];
    if (kk < t->prefetch_lines) /* one line per step, spread under the FMAs */
      __builtin_prefetch(t->prefetch + kk * PT2C_GEMM_LINE_FLOATS, 0, 2);
#pragma GCC unroll 4
    for (int v = 0; v < NVR; ++v)
      bv[v] = V_LOAD_B(bk + v * VLEN);
#pragma GCC unroll 8
    for (int i = 0; i < PT2C_GEMM_MR; ++i) {
      AVEC ai = V_BCAST_A(a + i);
#pragma GCC unroll 4
      for (int v = 0; v < NVR; ++v)
        acc[i][v] = V_FMA(ai, bv[v], acc[i][v]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < PT2C_GEMM_MR; ++i) {
    if (i >= t->mr)
      break;
    store_row(t, i, col0, acc[i]);
  }
}

void KERNEL_NAME(const pt2c_gemm_tile *t) {
  for (int col0 = 0; col0 < t->nr; col0 += COLS_PER_PASS) {
    if (t->b_rows)
      tile_pass(t, col0, t->b_rows);
    else
      tile_pass(t, col0, NULL);
  }
}
