/* Generated CPU kernels divided among the thread pool along their split loop
 * (plan_format.h, pt2c_kernel_split). Internal. */
#ifndef PT2C_RUNTIME_CPU_KERNEL_SPLIT_H_
#define PT2C_RUNTIME_CPU_KERNEL_SPLIT_H_

#include <stdint.h>

#include "pt2c/plan_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs kernel `whole` on `args`, or, when `split` (may be NULL) says the kernel divides
 * and its work pays for a parallel region, its range entry on pieces of the split loop
 * over the pool's threads. */
void pt2c_cpu_run_kernel(pt2c_kernel_fn whole, const pt2c_kernel_split *split, void *const *args,
                         const int64_t *sym_values);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CPU_KERNEL_SPLIT_H_ */
