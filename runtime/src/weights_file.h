/* Opening the external weights file of a model.so (pt2c/weights_format.h): mapped
 * read-only, its header checked against what the .so recorded, its data against the
 * recorded checksum. Internal. */
#ifndef PT2C_RUNTIME_WEIGHTS_FILE_H_
#define PT2C_RUNTIME_WEIGHTS_FILE_H_

#include <stddef.h>
#include <stdint.h>

#include "pt2c/pt2c.h"
#include "pt2c/weights_format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pt2c_weights_file {
  void* mapping;              /* NULL when nothing is mapped */
  size_t mapping_size;
  const unsigned char* blob;  /* mapping + header: 64-byte aligned */
  uint64_t blob_size;
} pt2c_weights_file;

/* Maps `path` and checks it: magic, version, fingerprint, checksum and blob size
 * against `expected`, the file's length against the header, and with `verify_data` the
 * checksum of the data itself. On failure nothing stays mapped, *out is zeroed and the
 * status (PT2C_ERROR_WEIGHTS_FILE, or OUT_OF_MEMORY) comes with a message naming the
 * file and the problem. */
pt2c_status pt2c_weights_file_open(const char* path, const pt2c_external_weights* expected,
                                   int verify_data, pt2c_weights_file* out);

/* Unmaps; a zeroed file is allowed. */
void pt2c_weights_file_close(pt2c_weights_file* file);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_WEIGHTS_FILE_H_ */
