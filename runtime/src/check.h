/* Checks the caller's tensors against the plan before any kernel runs. Internal. */
#ifndef PT2C_RUNTIME_CHECK_H_
#define PT2C_RUNTIME_CHECK_H_

#include <stdint.h>

#include "plan.h"
#include "pt2c/pt2c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks count, dtype, rank, sizes and data pointers of `given` against `expected`.
 * `role` ("input" or "output") names the tensors in messages, e.g.
 * "input 0 ('x'): expected dtype f32, got i64". Symbolic sizes take `sym_values`
 * (symbolic.h: pt2c_sym_bind). */
pt2c_status pt2c_check_tensors(const pt2c_plan *plan, const char *role,
                               const pt2c_plan_tensor *expected, uint32_t expected_count,
                               const pt2c_tensor *given, int32_t given_count,
                               const int64_t *sym_values);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CHECK_H_ */
