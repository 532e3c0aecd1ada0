#include "dtype.h"

typedef struct dtype_entry {
  const char *name;
  size_t size;
} dtype_entry;

/* Indexed by pt2c_dtype; the numbering is shared with ir/artifact/pt2c.proto. */
static const dtype_entry kDtypes[] = {
    [PT2C_DTYPE_UNDEFINED] = {"undefined", 0},
    [PT2C_F32] = {"f32", 4},
    [PT2C_F64] = {"f64", 8},
    [PT2C_F16] = {"f16", 2},
    [PT2C_BF16] = {"bf16", 2},
    [PT2C_I64] = {"i64", 8},
    [PT2C_I32] = {"i32", 4},
    [PT2C_I16] = {"i16", 2},
    [PT2C_I8] = {"i8", 1},
    [PT2C_U8] = {"u8", 1},
    [PT2C_BOOL] = {"bool", 1},
};

enum { kNumDtypes = sizeof(kDtypes) / sizeof(kDtypes[0]) };

int pt2c_dtype_is_valid(uint32_t value) {
  return value != PT2C_DTYPE_UNDEFINED && value < kNumDtypes;
}

const char *pt2c_dtype_name(pt2c_dtype dtype) {
  return (uint32_t)dtype < kNumDtypes ? kDtypes[dtype].name : "unknown";
}

size_t pt2c_dtype_element_size(pt2c_dtype dtype) {
  return (uint32_t)dtype < kNumDtypes ? kDtypes[dtype].size : 0;
}

PT2C_API size_t pt2c_dtype_size(pt2c_dtype dtype) { return pt2c_dtype_element_size(dtype); }
