/* The calling thread's last error message (pt2c_last_error). Internal. */
#ifndef PT2C_RUNTIME_ERROR_H_
#define PT2C_RUNTIME_ERROR_H_

#include "pt2c/pt2c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records a printf-style message for this thread and returns `status`, so that callers
 * can write `return pt2c_fail(PT2C_ERROR_DTYPE, "...", ...);`. */
pt2c_status pt2c_fail(pt2c_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_ERROR_H_ */
