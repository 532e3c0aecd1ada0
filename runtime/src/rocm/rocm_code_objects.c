/* Checking and listing the embedded code object table (rocm_code_objects.h). */
#include "rocm_code_objects.h"

#include <stdio.h>
#include <string.h>

int pt2c_rocm_code_objects_read(const void *data, uint64_t size, pt2c_rocm_code_objects *out) {
  memset(out, 0, sizeof(*out));
  const unsigned char *base = data;
  pt2c_rocm_code_objects_header header;
  if (base == NULL || size < sizeof(header) || ((uintptr_t)base & 7) != 0)
    return 0;
  memcpy(&header, base, sizeof(header));
  if (memcmp(header.magic, PT2C_ROCM_CODE_OBJECTS_MAGIC, sizeof(header.magic)) != 0 ||
      header.version != PT2C_ROCM_CODE_OBJECTS_VERSION || header.count == 0 ||
      header.count > PT2C_ROCM_MAX_CODE_OBJECTS ||
      sizeof(header) + (uint64_t)header.count * sizeof(pt2c_rocm_code_object_entry) > size)
    return 0;
  for (uint32_t i = 0; i < header.count; ++i) {
    pt2c_rocm_code_object_entry entry;
    memcpy(&entry, base + sizeof(header) + i * sizeof(entry), sizeof(entry));
    if (memchr(entry.arch, '\0', sizeof(entry.arch)) == NULL || entry.arch[0] == '\0' ||
        entry.offset > size || entry.size > size - entry.offset || entry.size < 4 ||
        (entry.offset & 7) != 0 || memcmp(base + entry.offset, "\177ELF", 4) != 0)
      return 0;
    memcpy(out->objects[i].arch, entry.arch, sizeof(entry.arch));
    out->objects[i].data = base + entry.offset;
    out->objects[i].size = entry.size;
  }
  out->count = header.count;
  return 1;
}

void pt2c_rocm_code_objects_describe(const pt2c_rocm_code_objects *objects, char *text,
                                     size_t capacity) {
  size_t used = 0;
  if (capacity == 0)
    return;
  text[0] = '\0';
  for (uint32_t i = 0; i < objects->count && used < capacity; ++i) {
    int n =
        snprintf(text + used, capacity - used, "%s%s", i > 0 ? ", " : "", objects->objects[i].arch);
    if (n < 0)
      break;
    used += (size_t)n;
  }
}
