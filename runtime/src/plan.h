/* A validated view of an execution plan blob (pt2c/plan_format.h). Internal. */
#ifndef PT2C_RUNTIME_PLAN_H_
#define PT2C_RUNTIME_PLAN_H_

#include <stdint.h>

#include "pt2c/plan_format.h"
#include "pt2c/pt2c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pointers into the blob, one per section. Valid while the blob lives. */
typedef struct pt2c_plan {
  const pt2c_plan_header *header;
  const pt2c_plan_tensor *inputs;
  const pt2c_plan_tensor *outputs;
  const pt2c_plan_buffer *buffers;
  const pt2c_plan_step *steps;
  const pt2c_plan_guard *guards;
  const pt2c_plan_gpu_kernel *gpu_kernels; /* num_kernels entries in CUDA plans, else none */
  const pt2c_plan_gemm *gemms;             /* num_gemms entries */
  const pt2c_plan_conv *convs;             /* num_convs entries */
  const pt2c_plan_sym *syms;               /* num_syms entries */
  const pt2c_plan_tensor *states;          /* num_states entries */
  const uint32_t *step_args;
  const int64_t *dims;
  const int64_t *sym_code; /* num_sym_words entries */
  const char *strings;
  uint32_t max_step_args; /* the largest num_args of any step */
} pt2c_plan;

/* Checks every count, index and offset in the blob against the blob's own sizes (the
 * arena, weights and kernel table sizes come from the header; the caller checks those
 * against what it actually has). `blob` must be 8-byte aligned. On failure returns
 * PT2C_ERROR_CORRUPT_MODEL with a message; never reads outside [blob, blob + size). */
pt2c_status pt2c_plan_parse(const void *blob, uint64_t size, pt2c_plan *out_plan);

/* The NUL-terminated string at `offset` of a parsed plan's string table. */
const char *pt2c_plan_string(const pt2c_plan *plan, uint32_t offset);

/* Whether buffer `buffer` (a valid index) is an input or output with a dynamic dim: its
 * size is the caller's, up to the plan's nbytes. Code compiled for fixed sizes must not
 * touch it. */
int pt2c_plan_buffer_is_dynamic(const pt2c_plan *plan, uint32_t buffer);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_PLAN_H_ */
