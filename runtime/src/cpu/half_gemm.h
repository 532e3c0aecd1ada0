/* GEMM steps on f16/bf16 operands (plan_format.h's pt2c_plan_gemm with dtype or
 * input_dtype f16/bf16): bf16 operands on the bf16 microkernel where the CPU has
 * AVX512_BF16, else operands widened to f32 (exactly) for the f32 microkernels; either
 * way the product is accumulated in f32 with the bias added in f32, and the result
 * rounded once to nearest even, as PyTorch's CPU kernels for half types do. Weights are
 * packed once at create. Internal. */
#ifndef PT2C_RUNTIME_CPU_HALF_GEMM_H_
#define PT2C_RUNTIME_CPU_HALF_GEMM_H_

#include <stdint.h>

#include "cpu_gemm.h"
#include "pt2c/plan_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element `count` f16 (dtype PT2C_F16) or bf16 values as f32. */
void pt2c_widen_half(const uint16_t *src, uint32_t dtype, int64_t count, float *dst);

/* The operands' element type (A and B): g->input_dtype, else g->dtype. */
uint32_t pt2c_gemm_operand_dtype(const pt2c_plan_gemm *g);

/* How operands of `dtype` run on this CPU: PT2C_GEMM_BF16 for bf16 on AVX512_BF16, else
 * PT2C_GEMM_F32 (widened). */
pt2c_gemm_operands pt2c_half_gemm_operands(uint32_t dtype);

/* Runs the f32 problem `p` as record `g` says: once, or g->batch times at its strides. */
void pt2c_sgemm_record(const pt2c_plan_gemm *g, const pt2c_sgemm_problem *p);

/* Runs `p` (operands from pt2c_half_gemm_operands, strides and packed operands set up as
 * for f32; a and b point at the half operands, c at D, epilogue.bias at a half bias,
 * epilogue.residual at a half C) for
 * record `g`. Returns 0 when scratch
 * memory ran out (the caller runs the fallback steps). */
int pt2c_half_gemm_run(const pt2c_plan_gemm *g, const pt2c_sgemm_problem *p);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CPU_HALF_GEMM_H_ */
