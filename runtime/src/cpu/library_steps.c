/* GEMM and convolution steps of CPU plans on the runtime's microkernels. */
#include "library_steps.h"

#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "cpu_conv.h"
#include "cpu_gemm.h"
#include "half_gemm.h"

/* What create decided for one GEMM record: served or not, and its operands packed once
 * when they are weights (owned). */
typedef struct gemm_state {
  int served;
  pt2c_gemm_operands operands; /* bf16 where both the model and the CPU have it */
  void *packed_a;
  void *packed_b;
} gemm_state;

struct pt2c_cpu_library_steps {
  uint32_t num_gemms, num_convs;
  gemm_state *gemms;           /* by GEMM record */
  pt2c_conv_prepacked **convs; /* by convolution record; NULL: not served */
};

static int microkernels_disabled(void) {
  const char *value = getenv("PT2C_CPU_MICROKERNELS");
  return value != NULL && strcmp(value, "0") == 0;
}

/* The address of a step argument's buffer when it is a weight (constant across runs),
 * else NULL. */
static const void *weight_arg(const pt2c_plan *plan, void *const *buffer_data,
                              const pt2c_plan_step *step, uint32_t arg) {
  uint32_t buffer = plan->step_args[step->first_arg + arg];
  return plan->buffers[buffer].kind == PT2C_BUFFER_WEIGHT ? buffer_data[buffer] : NULL;
}

/* The element (row, col) of operand A is a[row * a_row + col * a_col]; likewise B. */
static void gemm_strides(const pt2c_plan_gemm *g, int64_t *a_row, int64_t *a_col, int64_t *b_row,
                         int64_t *b_col) {
  *a_row = g->transpose_a ? 1 : (int64_t)g->ld_a;
  *a_col = g->transpose_a ? (int64_t)g->ld_a : 1;
  *b_row = g->transpose_b ? 1 : (int64_t)g->ld_b;
  *b_col = g->transpose_b ? (int64_t)g->ld_b : 1;
}

/* A weight operand of `rows` x `cols` (element (r, c) at r * row + c * col) of `dtype`,
 * packed by `pack` as `operands` (f16, and bf16 on CPUs without bf16 dot products, widened
 * to f32 first) into memory of `bytes(operands, rows, cols)`; NULL when out of memory.
 * pt2c_gemm_pack_a and _pack_b share this shape. */
static void *pack_weight(const void *weight, uint32_t dtype, pt2c_gemm_operands operands,
                         int64_t rows, int64_t cols, int64_t row, int64_t col,
                         size_t (*bytes)(pt2c_gemm_operands, int64_t, int64_t),
                         void (*pack)(pt2c_gemm_operands, const void *, int64_t, int64_t, int64_t,
                                      int64_t, void *)) {
  float *wide = NULL;
  if (dtype != PT2C_F32 && operands == PT2C_GEMM_F32) {
    int64_t count = (rows - 1) * row + (cols - 1) * col + 1;
    if ((wide = malloc(sizeof(float) * (size_t)count)) == NULL)
      return NULL;
    pt2c_widen_half(weight, dtype, count, wide);
  }
  void *packed = malloc(bytes(operands, rows, cols));
  if (packed != NULL)
    pack(operands, wide ? (const void *)wide : weight, row, col, rows, cols, packed);
  free(wide);
  return packed;
}

static pt2c_status prepare_gemm(const pt2c_plan *plan, void *const *buffer_data,
                                const pt2c_plan_step *step, gemm_state *state) {
  const pt2c_plan_gemm *g = &plan->gemms[step->kernel];
  uint32_t dtype = pt2c_gemm_operand_dtype(g);
  state->served = 1;
  state->operands = pt2c_half_gemm_operands(dtype);
  if (g->batch != 1)
    return PT2C_OK; /* batched products multiply activations */
  int64_t m = (int64_t)g->m, n = (int64_t)g->n, k = (int64_t)g->k;
  int64_t a_row, a_col, b_row, b_col;
  gemm_strides(g, &a_row, &a_col, &b_row, &b_col);
  const void *a = weight_arg(plan, buffer_data, step, 0);
  const void *b = weight_arg(plan, buffer_data, step, 1);
  if (a != NULL &&
      (state->packed_a = pack_weight(a, dtype, state->operands, m, k, a_row, a_col,
                                     pt2c_gemm_packed_a_bytes, pt2c_gemm_pack_a)) == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a packed GEMM weight");
  if (b != NULL &&
      (state->packed_b = pack_weight(b, dtype, state->operands, k, n, b_row, b_col,
                                     pt2c_gemm_packed_b_bytes, pt2c_gemm_pack_b)) == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a packed GEMM weight");
  return PT2C_OK;
}

static pt2c_conv_prepacked *prepare_conv(const pt2c_plan *plan, void *const *buffer_data,
                                         const pt2c_plan_step *step) {
  const pt2c_plan_conv *c = &plan->convs[step->kernel];
  const float *w = weight_arg(plan, buffer_data, step, 1);
  if (c->dtype != PT2C_F32 || c->layout != PT2C_CONV_LAYOUT_NCHW || w == NULL)
    return NULL; /* fallback */
  return pt2c_conv_prepack(c, w);
}

pt2c_status pt2c_cpu_library_steps_create(const pt2c_plan *plan, void *const *buffer_data,
                                          pt2c_cpu_library_steps **out) {
  *out = NULL;
  const pt2c_plan_header *header = plan->header;
  if ((header->num_gemms == 0 && header->num_convs == 0) || microkernels_disabled())
    return PT2C_OK;
  pt2c_cpu_library_steps *steps = calloc(1, sizeof(*steps));
  if (steps == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a model");
  steps->num_gemms = header->num_gemms;
  steps->num_convs = header->num_convs;
  steps->gemms = calloc(header->num_gemms + 1, sizeof(gemm_state));
  steps->convs = calloc(header->num_convs + 1, sizeof(pt2c_conv_prepacked *));
  pt2c_status status = PT2C_OK;
  if (steps->gemms == NULL || steps->convs == NULL)
    status = pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a model");
  for (uint32_t s = 0; s < header->num_steps && status == PT2C_OK; ++s) {
    const pt2c_plan_step *step = &plan->steps[s];
    if (step->kind == PT2C_STEP_GEMM)
      status = prepare_gemm(plan, buffer_data, step, &steps->gemms[step->kernel]);
    else if (step->kind == PT2C_STEP_CONV)
      steps->convs[step->kernel] = prepare_conv(plan, buffer_data, step);
  }
  if (status != PT2C_OK) {
    pt2c_cpu_library_steps_destroy(steps);
    return status;
  }
  *out = steps;
  return PT2C_OK;
}

void pt2c_cpu_library_steps_destroy(pt2c_cpu_library_steps *steps) {
  if (steps == NULL)
    return;
  for (uint32_t i = 0; steps->gemms != NULL && i < steps->num_gemms; ++i) {
    free(steps->gemms[i].packed_a);
    free(steps->gemms[i].packed_b);
  }
  for (uint32_t i = 0; steps->convs != NULL && i < steps->num_convs; ++i)
    pt2c_conv_prepacked_free(steps->convs[i]);
  free(steps->gemms);
  free(steps->convs);
  free(steps);
}

static int run_gemm(const gemm_state *state, const pt2c_plan_gemm *g, uint32_t num_args,
                    void *const *args) {
  if (!state->served)
    return 0;
  pt2c_sgemm_problem p;
  memset(&p, 0, sizeof(p));
  p.m = (int64_t)g->m, p.n = (int64_t)g->n, p.k = (int64_t)g->k;
  p.operands = state->operands;
  gemm_strides(g, &p.a_row_stride, &p.a_col_stride, &p.b_row_stride, &p.b_col_stride);
  p.a = args[0], p.a_packed = state->packed_a;
  p.b = args[1], p.b_packed = state->packed_b;
  p.c = args[num_args - 1], p.ldc = (int64_t)g->ld_d;
  if (pt2c_gemm_epilogue_has_bias(g->epilogue))
    p.epilogue.bias = args[2];
  /* C has D's layout (ldc) and no byte of D (plan.c checks both). */
  if (pt2c_gemm_epilogue_has_c(g->epilogue))
    p.epilogue.residual = args[num_args - 2];
  p.epilogue.relu = pt2c_gemm_epilogue_has_relu(g->epilogue);
  if (pt2c_gemm_operand_dtype(g) != PT2C_F32 || g->dtype != PT2C_F32)
    return pt2c_half_gemm_run(g, &p);
  pt2c_sgemm_record(g, &p);
  return 1;
}

static int run_conv(const pt2c_conv_prepacked *packed, const pt2c_plan_conv *c, uint32_t num_args,
                    void *const *args) {
  if (packed == NULL)
    return 0;
  const float *bias = c->epilogue != PT2C_CONV_EPILOGUE_NONE ? args[2] : NULL;
  const float *z = c->epilogue == PT2C_CONV_EPILOGUE_BIAS_ADD_RELU ? args[3] : NULL;
  pt2c_conv_activation activation = c->epilogue == PT2C_CONV_EPILOGUE_BIAS_SILU ? PT2C_CONV_ACT_SILU
                                    : c->epilogue == PT2C_CONV_EPILOGUE_BIAS_RELU ||
                                            c->epilogue == PT2C_CONV_EPILOGUE_BIAS_ADD_RELU
                                        ? PT2C_CONV_ACT_RELU
                                        : PT2C_CONV_ACT_NONE;
  pt2c_conv_run(packed, args[0], bias, z, activation, args[num_args - 1]);
  return 1;
}

int pt2c_cpu_library_step_run(const pt2c_cpu_library_steps *steps, const pt2c_plan *plan,
                              const pt2c_plan_step *step, void *const *args) {
  if (steps == NULL)
    return 0;
  if (step->kind == PT2C_STEP_GEMM)
    return run_gemm(&steps->gemms[step->kernel], &plan->gemms[step->kernel], step->num_args, args);
  if (step->kind == PT2C_STEP_CONV)
    return run_conv(steps->convs[step->kernel], &plan->convs[step->kernel], step->num_args, args);
  return 0;
}
