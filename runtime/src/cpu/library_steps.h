/* GEMM and convolution steps of CPU plans (plan_format.h, PT2C_STEP_GEMM / PT2C_STEP_CONV)
 * on the runtime's own microkernels (cpu_gemm.h, cpu_conv.h). At create, each step is
 * either served (its constant operand packed once into the kernel's panel layout; f16 and
 * bf16 GEMMs through half_gemm.h) or left to its fallback steps, the compiler's generated
 * kernels for the same result: f16/bf16 convolutions, convolutions of more than two
 * spatial dims, convolution weights computed at run time, and every step when
 * $PT2C_CPU_MICROKERNELS=0 (for comparisons and tests). Internal. */
#ifndef PT2C_RUNTIME_CPU_LIBRARY_STEPS_H_
#define PT2C_RUNTIME_CPU_LIBRARY_STEPS_H_

#include "../plan.h"
#include "pt2c/pt2c.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pt2c_cpu_library_steps pt2c_cpu_library_steps;

/* `buffer_data` holds every WEIGHT buffer's address (model.c's allocate_memory). *out is
 * NULL when the plan has no library steps. */
pt2c_status pt2c_cpu_library_steps_create(const pt2c_plan *plan, void *const *buffer_data,
                                          pt2c_cpu_library_steps **out);
void pt2c_cpu_library_steps_destroy(pt2c_cpu_library_steps *steps);

/* Runs library step `step` (a GEMM or convolution step) on `args`, its buffers' addresses
 * in the step's order. Returns 1 when it ran, 0 when the caller must run the fallback
 * steps instead. */
int pt2c_cpu_library_step_run(const pt2c_cpu_library_steps *steps, const pt2c_plan *plan,
                              const pt2c_plan_step *step, void *const *args);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CPU_LIBRARY_STEPS_H_ */
