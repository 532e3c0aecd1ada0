/* Guards: compare one computed element per assumption with its export-time value. */
#include "guard.h"

#include <string.h>

#include "error.h"
#include "half_convert.h"

static double element_as_double(pt2c_dtype dtype, const void *data) {
  switch (dtype) {
  case PT2C_F32: {
    float v;
    memcpy(&v, data, sizeof(v));
    return v;
  }
  case PT2C_F64: {
    double v;
    memcpy(&v, data, sizeof(v));
    return v;
  }
  case PT2C_F16: {
    uint16_t v;
    memcpy(&v, data, sizeof(v));
    return pt2c_f16_bits_to_f32(v);
  }
  case PT2C_BF16: {
    uint16_t v;
    memcpy(&v, data, sizeof(v));
    return pt2c_bf16_bits_to_f32(v);
  }
  case PT2C_I64: {
    int64_t v;
    memcpy(&v, data, sizeof(v));
    return (double)v;
  }
  case PT2C_I32: {
    int32_t v;
    memcpy(&v, data, sizeof(v));
    return v;
  }
  case PT2C_I16: {
    int16_t v;
    memcpy(&v, data, sizeof(v));
    return v;
  }
  case PT2C_I8:
    return *(const int8_t *)data;
  case PT2C_U8:
    return *(const uint8_t *)data;
  case PT2C_BOOL:
    return *(const uint8_t *)data != 0;
  default:
    return 0;
  }
}

pt2c_status pt2c_check_guard_value(const pt2c_plan *plan, uint32_t index, const void *element) {
  const pt2c_plan_guard *guard = &plan->guards[index];
  double actual = element_as_double((pt2c_dtype)guard->dtype, element);
  if (actual != guard->expected)
    return pt2c_fail(PT2C_ERROR_GUARD,
                     "guard failed: %s; the model was compiled for %g, this input gives %g "
                     "(the outputs are not valid)",
                     pt2c_plan_string(plan, guard->message), guard->expected, actual);
  return PT2C_OK;
}

pt2c_status pt2c_check_guards(const pt2c_model *model) {
  const pt2c_plan *plan = &model->plan;
  for (uint32_t i = 0; i < plan->header->num_guards; ++i) {
    pt2c_status status =
        pt2c_check_guard_value(plan, i, model->buffer_data[plan->guards[i].buffer]);
    if (status != PT2C_OK)
      return status;
  }
  return PT2C_OK;
}
