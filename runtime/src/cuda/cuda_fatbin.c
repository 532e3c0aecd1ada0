/* Fatbin table of contents. The layout (little endian) is the one `fatbinary` writes and
 * cuobjdump reads; NVIDIA does not document it, but it has been stable since CUDA 4:
 *
 *   header:  u32 magic 0xBA55ED50, u16 version, u16 header_size, u64 images_size
 *   then images_size bytes of images, each:
 *            u16 kind (1 PTX, 2 ELF cubin), u16 version, u32 header_size,
 *            u64 payload_size, ..., u32 sm at byte 28, ...; the payload follows the
 *            image header.
 */
#include "cuda_fatbin.h"

#include <stdio.h>
#include <string.h>

enum {
  kFatbinMagic = 0xBA55ED50u,
  kHeaderSize = 16,      /* the smallest fatbin header */
  kImageHeaderSize = 32, /* the bytes of an image header this reader needs */
};

static uint16_t read_u16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t read_u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t read_u64(const unsigned char *p) {
  return (uint64_t)read_u32(p) | (uint64_t)read_u32(p + 4) << 32;
}

int pt2c_fatbin_read(const void *data, uint64_t size, pt2c_fatbin_contents *out) {
  memset(out, 0, sizeof(*out));
  const unsigned char *bytes = data;
  if (bytes == NULL || size < kHeaderSize || read_u32(bytes) != kFatbinMagic)
    return 0;
  uint64_t header_size = read_u16(bytes + 6), images_size = read_u64(bytes + 8);
  if (header_size < kHeaderSize || header_size > size || images_size > size - header_size)
    return 0;
  uint64_t offset = header_size, end = header_size + images_size;
  while (offset < end) {
    if (end - offset < kImageHeaderSize)
      return 0;
    const unsigned char *image = bytes + offset;
    uint64_t image_header = read_u32(image + 4), payload = read_u64(image + 8);
    if (image_header < kImageHeaderSize || image_header > end - offset ||
        payload > end - offset - image_header)
      return 0;
    if (out->num_images < PT2C_FATBIN_MAX_IMAGES) {
      out->images[out->num_images].kind = read_u16(image);
      out->images[out->num_images].sm = read_u32(image + 28);
      ++out->num_images;
    }
    offset += image_header + payload;
  }
  return 1;
}

/* "sm_80, sm_90": the images of one kind, or "" if there are none. */
static void list_kind(const pt2c_fatbin_contents *contents, uint32_t kind, const char *prefix,
                      char *text, size_t capacity) {
  text[0] = '\0';
  for (uint32_t i = 0; i < contents->num_images; ++i) {
    if (contents->images[i].kind != kind)
      continue;
    size_t used = strlen(text);
    snprintf(text + used, capacity - used, "%s%s%u", used > 0 ? ", " : "", prefix,
             contents->images[i].sm);
  }
}

void pt2c_fatbin_describe(const pt2c_fatbin_contents *contents, char *text, size_t capacity) {
  char cubins[160], ptx[160];
  list_kind(contents, PT2C_FATBIN_CUBIN, "sm_", cubins, sizeof(cubins));
  list_kind(contents, PT2C_FATBIN_PTX, "compute_", ptx, sizeof(ptx));
  snprintf(text, capacity, "%s%s and %s%s", cubins[0] ? "cubins for " : "no cubins", cubins,
           ptx[0] ? "PTX for " : "no PTX", ptx);
}
