#include "cpu_features.h"

#include <string.h>

#include "error.h"

/* Appends "name" (comma-separated) to out, truncating instead of overflowing. */
static void append_name(char *out, size_t capacity, const char *name, size_t len) {
  size_t used = strlen(out);
  if (used > 0 && used + 1 < capacity)
    out[used++] = ',';
  if (len > capacity - 1 - used)
    len = capacity - 1 - used;
  memcpy(out + used, name, len);
  out[used + len] = '\0';
}

pt2c_status pt2c_cpu_features_check(const char *required, const char *cpu_name,
                                    pt2c_cpu_feature_set host) {
  char missing[512] = "";
  char unknown[256] = "";
  for (const char *p = required; *p != '\0';) {
    const char *end = strchr(p, ',');
    size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
    if (len > 0) {
      pt2c_cpu_feature_set bit = pt2c_cpu_feature_bit(p, len);
      if (bit == 0)
        append_name(unknown, sizeof unknown, p, len);
      else if (!(host & bit))
        append_name(missing, sizeof missing, p, len);
    }
    p += len + (end != NULL);
  }
  if (unknown[0] != '\0')
    return pt2c_fail(PT2C_ERROR_UNSUPPORTED,
                     "model.so was compiled for x86-64 features this runtime cannot check: "
                     "%s (--cpu %s)",
                     unknown, cpu_name);
  if (missing[0] != '\0')
    return pt2c_fail(PT2C_ERROR_UNSUPPORTED,
                     "model.so was compiled for x86-64 features %s (--cpu %s); this CPU "
                     "lacks %s. Compile it again with a --cpu this machine has (the "
                     "default x86-64-v2, or native on the machine that runs it)",
                     required, cpu_name, missing);
  return PT2C_OK;
}
