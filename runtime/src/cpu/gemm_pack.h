/* Packing one panel of A or B into the microkernels' layout (gemm_kernel.h). Internal. */
#ifndef PT2C_RUNTIME_CPU_GEMM_PACK_H_
#define PT2C_RUNTIME_CPU_GEMM_PACK_H_

#include <stdint.h>

/* Rows [panel * MR, +MR) of the m x k matrix A into dst[kk * MR + i] (zeros past m). */
void pt2c_gemm_pack_a_panel(const float* a, int64_t row_stride, int64_t col_stride,
                            int64_t m, int64_t k, int64_t panel, float* dst);
/* Columns [panel * NR, +NR) of the k x n matrix B into dst[kk * NR + j] (zeros past n). */
void pt2c_gemm_pack_b_panel(const float* b, int64_t row_stride, int64_t col_stride,
                            int64_t k, int64_t n, int64_t panel, float* dst);

#endif /* PT2C_RUNTIME_CPU_GEMM_PACK_H_ */
