/* Reading the table of AMD GPU code objects a ROCm model embeds
 * (include/pt2c/rocm_code_objects.h). Internal.
 *
 * Like the CUDA fatbin's table of contents (../cuda/cuda_fatbin.h): the runtime checks the
 * table so that a damaged one is a corrupt model, hands each code object to HIP in turn
 * (HIP refuses one for another architecture) and names the architectures in the message
 * when the GPU has none. */
#ifndef PT2C_RUNTIME_ROCM_CODE_OBJECTS_READER_H_
#define PT2C_RUNTIME_ROCM_CODE_OBJECTS_READER_H_

#include <stddef.h>
#include <stdint.h>

#include "pt2c/rocm_code_objects.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PT2C_ROCM_MAX_CODE_OBJECTS = 32 };

typedef struct pt2c_rocm_code_objects {
  uint32_t count;
  struct {
    char arch[PT2C_ROCM_ARCH_NAME_BYTES]; /* NUL-terminated */
    const unsigned char *data;            /* an ELF image, 8-byte aligned */
    uint64_t size;
  } objects[PT2C_ROCM_MAX_CODE_OBJECTS];
} pt2c_rocm_code_objects;

/* Lists the code objects of the table in [data, data + size). Returns 0 if it is not a
 * well-formed table: bad magic or version, no entries or more than the maximum, an entry
 * outside the table, misaligned or not an ELF image, an architecture name without NUL. */
int pt2c_rocm_code_objects_read(const void *data, uint64_t size, pt2c_rocm_code_objects *out);

/* "gfx90a, gfx942, gfx1100" (truncated to fit `capacity`). */
void pt2c_rocm_code_objects_describe(const pt2c_rocm_code_objects *objects, char *text,
                                     size_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_ROCM_CODE_OBJECTS_READER_H_ */
