/* Loading the external weights file of a model.so (pt2c/weights_format.h): checked
 * against what the .so recorded, then copied into private memory. Internal.
 *
 * Why a copy rather than a mapping of the file: a model lives long, and the file under
 * it can change. A mapped file that someone truncates makes the next read of a weight
 * fault with SIGBUS (MAP_PRIVATE does not help: unmodified private pages still read
 * through to the file), and one overwritten in place changes the weights under a model
 * that was verified at create, so runs return OK with wrong values. Leases
 * (F_SETLEASE) need the file's owner or CAP_LEASE and only give notice, and a check
 * before every run costs a pass over the data and still races with a writer. Reading
 * the data once, at create, into anonymous memory makes the model independent of the
 * file from then on, and the checksum is computed over exactly the bytes the model
 * uses. The cost: the weights count in the process's resident memory (anonymous,
 * swap-backed) instead of being page-cache pages shared with other processes, each
 * model created holds its own copy, and create always reads the whole file (a CUDA
 * model frees its copy once the weights are on the device). */
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
  void *mapping; /* anonymous private memory holding the blob; NULL: none */
  size_t mapping_size;
  const unsigned char *blob; /* == mapping: page aligned, read-only */
  uint64_t blob_size;
} pt2c_weights_file;

/* Reads `path` into private memory and checks it: a regular file (anything else is
 * refused before it is opened for reading, and it is opened non-blocking, so a FIFO or
 * device at the path can never block create), every header byte (magic with its NUL,
 * version, header size, blob size, fingerprint and checksum against `expected`, the
 * reserved bytes zero), the file's length against the header, and with `verify_data`
 * the checksum of the bytes read. On failure nothing stays allocated, *out is zeroed
 * and the status (PT2C_ERROR_WEIGHTS_FILE, or OUT_OF_MEMORY) comes with a message
 * naming the file and the problem. */
pt2c_status pt2c_weights_file_open(const char *path, const pt2c_external_weights *expected,
                                   int verify_data, pt2c_weights_file *out);

/* Frees the copy; a zeroed file is allowed. */
void pt2c_weights_file_close(pt2c_weights_file *file);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_WEIGHTS_FILE_H_ */
