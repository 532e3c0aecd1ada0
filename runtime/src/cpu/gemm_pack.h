/* Packing one panel of A or B into the microkernels' layout (gemm_kernel.h). Internal. */
#ifndef PT2C_RUNTIME_CPU_GEMM_PACK_H_
#define PT2C_RUNTIME_CPU_GEMM_PACK_H_

#include <stdint.h>

/* Rows [panel * MR, +MR) of the m x k f32 matrix A into dst[kk * MR + i] (zeros past m). */
void pt2c_gemm_pack_a_panel(const void *a, int64_t row_stride, int64_t col_stride, int64_t m,
                            int64_t k, int64_t panel, void *dst);
/* Columns [panel * NR, +NR) of the k x n f32 matrix B into dst[kk * NR + j] (zeros past
 * n). */
void pt2c_gemm_pack_b_panel(const void *b, int64_t row_stride, int64_t col_stride, int64_t k,
                            int64_t n, int64_t panel, void *dst);

/* The same for bf16 matrices: slot dst[p * MR + i] holds A(i, 2p) in its low half and
 * A(i, 2p + 1) in its high half (zero past k); likewise dst[p * NR + j] for B(2p, j) and
 * B(2p + 1, j). A panel spans (k + 1) / 2 slots per row (column). */
void pt2c_gemm_pack_a_panel_bf16(const void *a, int64_t row_stride, int64_t col_stride, int64_t m,
                                 int64_t k, int64_t panel, void *dst);
void pt2c_gemm_pack_b_panel_bf16(const void *b, int64_t row_stride, int64_t col_stride, int64_t k,
                                 int64_t n, int64_t panel, void *dst);

/* The packed depth of a K of k: k slots for f32, (k + 1) / 2 for bf16 pairs. */
static inline int64_t pt2c_gemm_packed_depth(int bf16, int64_t k) { return bf16 ? (k + 1) / 2 : k; }

#endif /* PT2C_RUNTIME_CPU_GEMM_PACK_H_ */
