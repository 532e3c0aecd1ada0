/* Shape helpers: byte sizes with overflow checks and "[8, 64]" formatting. Internal. */
#ifndef PT2C_RUNTIME_SHAPE_H_
#define PT2C_RUNTIME_SHAPE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sets *out_nbytes = element_size * prod(dims). Returns 0 if a dim is negative or the
 * product overflows uint64_t. */
int pt2c_shape_nbytes(size_t element_size, uint32_t rank, const int64_t *dims,
                      uint64_t *out_nbytes);

/* Writes "[d0, d1, ...]" into text (always NUL-terminated, truncated to fit). */
void pt2c_shape_format(char *text, size_t capacity, uint32_t rank, const int64_t *dims);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_SHAPE_H_ */
