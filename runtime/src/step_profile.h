/* $PT2C_PROFILE=1: a CPU model times each of its steps over all its runs and prints the
 * slowest to stderr when it is destroyed (step, kind, shape, share of the total), to see
 * where a model's time goes without a profiler. Off by default: no timing calls. Internal. */
#ifndef PT2C_RUNTIME_STEP_PROFILE_H_
#define PT2C_RUNTIME_STEP_PROFILE_H_

#include <stdint.h>

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pt2c_step_profile pt2c_step_profile;

/* NULL unless $PT2C_PROFILE is set to something other than 0 (or on out of memory). */
pt2c_step_profile *pt2c_step_profile_create(const pt2c_plan *plan);
/* Nanoseconds on a monotonic clock. */
int64_t pt2c_step_profile_now(void);
void pt2c_step_profile_add(pt2c_step_profile *profile, uint32_t step, int64_t nanoseconds);
/* Prints the report (if any runs were timed) and frees it. `splits`: the model's kernel
 * split table (NULL if none), to say which generated kernels divide among threads. */
void pt2c_step_profile_finish(pt2c_step_profile *profile, const pt2c_plan *plan,
                              const pt2c_kernel_split *splits);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_STEP_PROFILE_H_ */
