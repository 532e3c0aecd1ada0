/* Per-thread scratch memory that grows and is kept for the next call, so that steady-state
 * runs never allocate. Internal. */
#ifndef PT2C_RUNTIME_CPU_SCRATCH_H_
#define PT2C_RUNTIME_CPU_SCRATCH_H_

#include <stddef.h>

/* One slot per user that may be live at the same time on one thread. */
typedef enum {
  PT2C_SCRATCH_GEMM_PACK = 0,     /* cpu_gemm.c: packed operands of one call */
  PT2C_SCRATCH_GEMM_PROBLEMS = 1, /* pt2c_sgemm_batched: its problem list */
  PT2C_SCRATCH_CONV = 2,          /* cpu_conv.c: im2col panels and problem lists */
  PT2C_SCRATCH_HALF_A = 3,        /* half_gemm.c: A widened to f32 */
  PT2C_SCRATCH_HALF_B = 4,        /* half_gemm.c: B widened to f32 */
  PT2C_SCRATCH_HALF_D = 5,        /* half_gemm.c: the f32 product and bias */
  PT2C_SCRATCH_DEPTHWISE = 6,     /* conv_depthwise*.c: a padded input plane (phase split)
                                   * or channel block and its products */
  PT2C_SCRATCH_NUM_SLOTS = 7,
} pt2c_scratch_slot;

/* At least `bytes` of 64-byte aligned memory owned by the calling thread, valid until its
 * next call for the same slot (whose contents it does not keep); NULL when out of
 * memory. Freed at thread exit. */
void *pt2c_cpu_scratch(pt2c_scratch_slot slot, size_t bytes);

#endif /* PT2C_RUNTIME_CPU_SCRATCH_H_ */
