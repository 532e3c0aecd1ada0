/* Reading the table of contents of a CUDA fatbin (the container nvcc and `fatbinary`
 * write: cubins per SM architecture plus PTX). Internal.
 *
 * The runtime never interprets the images (the driver does); it reads the table of
 * contents to reject a damaged fatbin as a corrupt model, and to name the architectures
 * the model was built for when a GPU cannot run it. */
#ifndef PT2C_RUNTIME_CUDA_FATBIN_H_
#define PT2C_RUNTIME_CUDA_FATBIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { PT2C_FATBIN_MAX_IMAGES = 32 };

typedef enum pt2c_fatbin_kind { PT2C_FATBIN_PTX = 1, PT2C_FATBIN_CUBIN = 2 } pt2c_fatbin_kind;

typedef struct pt2c_fatbin_image {
  uint32_t kind; /* pt2c_fatbin_kind, or another value the driver may know */
  uint32_t sm;   /* architecture, e.g. 80 for sm_80 (cubin) or compute_80 (PTX) */
} pt2c_fatbin_image;

typedef struct pt2c_fatbin_contents {
  uint32_t num_images; /* at most PT2C_FATBIN_MAX_IMAGES are listed */
  pt2c_fatbin_image images[PT2C_FATBIN_MAX_IMAGES];
} pt2c_fatbin_contents;

/* Lists the images of the fatbin in [data, data + size). Returns 0 if it is not a
 * well-formed fatbin (bad magic, or a header or image that runs past `size`). */
int pt2c_fatbin_read(const void *data, uint64_t size, pt2c_fatbin_contents *out);

/* "cubins for sm_80, sm_90 and PTX for compute_90" (truncated to fit `capacity`). */
void pt2c_fatbin_describe(const pt2c_fatbin_contents *contents, char *text, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CUDA_FATBIN_H_ */
