/* f16/bf16 GEMM steps over the f32 or bf16 microkernels. */
#include "half_gemm.h"

#include <string.h>

#include "../half_convert.h"
#include "scratch.h"

void pt2c_widen_half(const uint16_t *src, uint32_t dtype, int64_t count, float *dst) {
  if (dtype == PT2C_BF16) {
    for (int64_t i = 0; i < count; ++i)
      dst[i] = pt2c_bf16_bits_to_f32(src[i]);
  } else {
    for (int64_t i = 0; i < count; ++i)
      dst[i] = pt2c_f16_bits_to_f32(src[i]);
  }
}

uint32_t pt2c_gemm_operand_dtype(const pt2c_plan_gemm *g) {
  return g->input_dtype != 0 ? g->input_dtype : g->dtype;
}

pt2c_gemm_operands pt2c_half_gemm_operands(uint32_t dtype) {
  return dtype == PT2C_BF16 && pt2c_cpu_best_isa() >= PT2C_CPU_ISA_AVX512_BF16 ? PT2C_GEMM_BF16
                                                                               : PT2C_GEMM_F32;
}

/* Elements an operand of `batch` matrices spans: (batch - 1) * stride + (rows - 1) * ld +
 * cols (plan.c checked that it fits its buffer). */
static int64_t span(uint64_t batch, uint64_t stride, uint64_t rows, uint64_t cols, uint64_t ld) {
  return (int64_t)((batch - 1) * stride + (rows - 1) * ld + cols);
}

/* The epilogue's narrow steps (cpu_gemm.h): f32 rows to the model's output type. */
static void narrow_to_bf16(const float *row, int64_t count, void *out) {
  pt2c_f32_to_bf16_row(row, count, out);
}

#if defined(__x86_64__)
static void narrow_to_bf16_avx512(const float *row, int64_t count, void *out) {
  pt2c_f32_to_bf16_row_avx512(row, count, out);
}
#endif

static void narrow_to_f16(const float *row, int64_t count, void *out) {
  uint16_t *d = out;
  for (int64_t i = 0; i < count; ++i)
    d[i] = pt2c_f32_to_f16_bits(row[i]);
}

/* A widened copy of an operand with the same layout, in scratch `slot`. */
static const float *widened(const void *src, uint32_t dtype, int64_t count,
                            pt2c_scratch_slot slot) {
  float *dst = pt2c_cpu_scratch(slot, sizeof(float) * (size_t)count);
  if (dst != NULL)
    pt2c_widen_half(src, dtype, count, dst);
  return dst;
}

int pt2c_half_gemm_run(const pt2c_plan_gemm *g, const pt2c_sgemm_problem *half) {
  uint32_t in = pt2c_gemm_operand_dtype(g);
  pt2c_sgemm_problem p = *half;
  /* bf16 operands on bf16 kernels are packed as they are; others widen first. */
  int widen = p.operands == PT2C_GEMM_F32;
  if (widen && p.a_packed == NULL) {
    int64_t n = span(g->batch, g->stride_a, g->transpose_a ? g->k : g->m,
                     g->transpose_a ? g->m : g->k, g->ld_a);
    if ((p.a = widened(half->a, in, n, PT2C_SCRATCH_HALF_A)) == NULL)
      return 0;
  }
  if (widen && p.b_packed == NULL) {
    int64_t n = span(g->batch, g->stride_b, g->transpose_b ? g->n : g->k,
                     g->transpose_b ? g->k : g->n, g->ld_b);
    if ((p.b = widened(half->b, in, n, PT2C_SCRATCH_HALF_B)) == NULL)
      return 0;
  }
  /* The f32 product (then the f32 bias and the f32 residual C) when D is half; D itself
   * when f32. The residual widens whole, like the bias, so that the microkernel adds it in
   * f32 before the one rounding to D's type. */
  int64_t d_count = span(g->batch, g->stride_d, g->m, g->n, g->ld_d);
  int64_t c_count = half->epilogue.residual != NULL ? d_count : 0;
  int narrow = g->dtype != PT2C_F32;
  if (narrow) {
    float *d =
        pt2c_cpu_scratch(PT2C_SCRATCH_HALF_D, sizeof(float) * (size_t)(d_count + g->n + c_count));
    if (d == NULL)
      return 0;
    p.c = d;
    p.epilogue.narrow = g->dtype == PT2C_BF16 ? narrow_to_bf16 : narrow_to_f16;
#if defined(__x86_64__)
    if (g->dtype == PT2C_BF16 && pt2c_cpu_best_isa() >= PT2C_CPU_ISA_AVX512)
      p.epilogue.narrow = narrow_to_bf16_avx512;
#endif
    p.epilogue.narrow_out = half->c;
    if (half->epilogue.bias != NULL) {
      pt2c_widen_half((const uint16_t *)half->epilogue.bias, g->dtype, (int64_t)g->n, d + d_count);
      p.epilogue.bias = d + d_count;
    }
    if (c_count > 0) {
      float *residual = d + d_count + g->n;
      pt2c_widen_half((const uint16_t *)half->epilogue.residual, g->dtype, c_count, residual);
      p.epilogue.residual = residual;
    }
  }
  pt2c_sgemm_record(g, &p);
  return 1;
}

void pt2c_sgemm_record(const pt2c_plan_gemm *g, const pt2c_sgemm_problem *p) {
  if (g->batch == 1)
    pt2c_sgemm(p);
  else
    pt2c_sgemm_batched(p, (int64_t)g->batch, (int64_t)g->stride_a, (int64_t)g->stride_b,
                       (int64_t)g->stride_d);
}
