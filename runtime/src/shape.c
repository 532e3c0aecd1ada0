#include "shape.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

int pt2c_shape_nbytes(size_t element_size, uint32_t rank, const int64_t *dims,
                      uint64_t *out_nbytes) {
  uint64_t nbytes = element_size;
  for (uint32_t i = 0; i < rank; ++i) {
    if (dims[i] < 0)
      return 0;
    if (__builtin_mul_overflow(nbytes, (uint64_t)dims[i], &nbytes))
      return 0;
  }
  *out_nbytes = nbytes;
  return 1;
}

/* Appends to text[*used..capacity); stops quietly once the text is full. */
__attribute__((format(printf, 4, 5))) static void append(char *text, size_t capacity, size_t *used,
                                                         const char *format, ...) {
  if (*used >= capacity)
    return;
  va_list args;
  va_start(args, format);
  int written = vsnprintf(text + *used, capacity - *used, format, args);
  va_end(args);
  if (written > 0)
    *used += (size_t)written;
}

void pt2c_shape_format(char *text, size_t capacity, uint32_t rank, const int64_t *dims) {
  if (capacity == 0)
    return;
  size_t used = 0;
  text[0] = '\0';
  append(text, capacity, &used, "[");
  for (uint32_t i = 0; i < rank; ++i)
    append(text, capacity, &used, "%s%" PRId64, i == 0 ? "" : ", ", dims[i]);
  append(text, capacity, &used, "]");
}
