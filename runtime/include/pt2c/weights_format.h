/* The external weights file of a model.so compiled with `pt2c --external-weights`.
 *
 * Models too big to carry keep their weights blob (plan_format.h: 64-byte aligned pieces
 * the plan's WEIGHT and STATE buffers point into) out of the .so, in a file beside it
 * (`model.so.weights`) that the runtime reads into the model's own memory at
 * pt2c_model_create (after that the file is never read again). The file
 * is a 64-byte header followed by exactly the blob the .so would have embedded:
 *
 *   offset  size  field
 *        0     8  magic "PT2CWGT\0"
 *        8     4  format version (PT2C_WEIGHTS_FILE_VERSION), little-endian
 *       12     4  header size (64)
 *       16     8  blob size in bytes
 *       24     8  layout fingerprint: a hash of the blob's layout (each piece's offset,
 *                 size and source name), which the .so records too; another model's or
 *                 another compile's file has another one
 *       32     8  checksum of the blob's bytes (pt2c_content_hash), also in the .so
 *       40    24  zero
 *       64     -  the blob
 *
 * The compiler writes it (`pt2c --external-weights`), and so can the exporter from the
 * live model (`python -m pt2c_exporter weights`, from the compile's recipe JSON); both
 * give the same bytes. The runtime checks every header byte (magic with its NUL,
 * version, header size, blob size, fingerprint, checksum, the reserved bytes zero), the
 * file's size and (unless PT2C_WEIGHTS_VERIFY=0) the checksum of the data. */
#ifndef PT2C_WEIGHTS_FORMAT_H_
#define PT2C_WEIGHTS_FORMAT_H_

#include <stdint.h>

#define PT2C_WEIGHTS_FILE_MAGIC "PT2CWGT" /* 8 bytes with its NUL */
#define PT2C_WEIGHTS_FILE_VERSION 1u
#define PT2C_WEIGHTS_FILE_HEADER_SIZE 64u

typedef struct pt2c_weights_file_header {
  char magic[8];
  uint32_t version;
  uint32_t header_size;
  uint64_t blob_size;
  uint64_t fingerprint;
  uint64_t checksum;
  uint64_t reserved[3];
} pt2c_weights_file_header;

/* What a model.so with external weights records about its file (the hidden symbol
 * `const uint64_t __pt2c_external_weights[4]`): a model.so without it (or with
 * external == 0) embeds its weights in __pt2c_weights. */
typedef struct pt2c_external_weights {
  uint64_t external; /* 1 */
  uint64_t blob_size;
  uint64_t fingerprint;
  uint64_t checksum;
} pt2c_external_weights;

#endif /* PT2C_WEIGHTS_FORMAT_H_ */
