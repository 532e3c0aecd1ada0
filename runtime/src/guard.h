/* Checking the assumptions the graph computes (pt2c_plan_guard) after a run. Internal. */
#ifndef PT2C_RUNTIME_GUARD_H_
#define PT2C_RUNTIME_GUARD_H_

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PT2C_ERROR_GUARD naming the first guard whose value differs from the one seen at
 * export; PT2C_OK if all hold. Reads the model's bound buffers of the run just done. */
pt2c_status pt2c_check_guards(const pt2c_model *model);

/* Checks guard `index` of `plan` against `element`, a copy of its buffer's first element
 * (for buffers the host cannot read in place, such as GPU memory). */
pt2c_status pt2c_check_guard_value(const pt2c_plan *plan, uint32_t index, const void *element);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_GUARD_H_ */
