/* Element type helpers. Internal. */
#ifndef PT2C_RUNTIME_DTYPE_H_
#define PT2C_RUNTIME_DTYPE_H_

#include <stddef.h>
#include <stdint.h>

#include "pt2c/pt2c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether `value` names a real dtype (not UNDEFINED, not out of range). */
int pt2c_dtype_is_valid(uint32_t value);

/* Short name used in messages ("f32", "i64", ...); "unknown" for unknown values. */
const char *pt2c_dtype_name(pt2c_dtype dtype);

/* Element size; 0 for unknown dtypes. Internal twin of the exported pt2c_dtype_size so
 * that runtime code never calls through an exported (interposable) symbol. */
size_t pt2c_dtype_element_size(pt2c_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_DTYPE_H_ */
