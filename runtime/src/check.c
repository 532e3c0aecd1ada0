#include "check.h"

#include "dtype.h"
#include "error.h"
#include "shape.h"
#include "symbolic.h"

enum { kShapeTextCapacity = 160 };

/* Formats a caller's shape; the rank was checked to lie in [0, PT2C_MAX_RANK]. */
static void format_given_shape(char *text, const pt2c_tensor *tensor) {
  pt2c_shape_format(text, kShapeTextCapacity, (uint32_t)tensor->rank, tensor->dims);
}

static pt2c_status check_one(const pt2c_plan *plan, const char *role, int32_t number,
                             const pt2c_plan_tensor *expected, const pt2c_tensor *given,
                             const int64_t *sym_values) {
  const char *name = pt2c_plan_string(plan, expected->name);
  int64_t expected_dims[PT2C_MAX_RANK];
  pt2c_sym_resolve(plan, expected->dims, expected->rank, sym_values, expected_dims);
  char expected_shape[kShapeTextCapacity], given_shape[kShapeTextCapacity];
  pt2c_shape_format(expected_shape, sizeof(expected_shape), expected->rank, expected_dims);

  if ((uint32_t)given->dtype != expected->dtype) {
    if (!pt2c_dtype_is_valid((uint32_t)given->dtype))
      return pt2c_fail(PT2C_ERROR_DTYPE, "%s %d ('%s'): expected dtype %s, got unknown dtype %d",
                       role, number, name, pt2c_dtype_name((pt2c_dtype)expected->dtype),
                       (int)given->dtype);
    return pt2c_fail(PT2C_ERROR_DTYPE, "%s %d ('%s'): expected dtype %s, got %s", role, number,
                     name, pt2c_dtype_name((pt2c_dtype)expected->dtype),
                     pt2c_dtype_name(given->dtype));
  }
  if (given->rank < 0 || given->rank > PT2C_MAX_RANK)
    return pt2c_fail(PT2C_ERROR_SHAPE, "%s %d ('%s'): expected rank %u (shape %s), got rank %d",
                     role, number, name, expected->rank, expected_shape, given->rank);
  if (given->rank > 0 && given->dims == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s %d ('%s'): dims is null", role, number, name);
  format_given_shape(given_shape, given);
  if ((uint32_t)given->rank != expected->rank)
    return pt2c_fail(PT2C_ERROR_SHAPE,
                     "%s %d ('%s'): expected rank %u (shape %s), got rank %d (%s)", role, number,
                     name, expected->rank, expected_shape, given->rank, given_shape);
  for (uint32_t i = 0; i < expected->rank; ++i)
    if (given->dims[i] != expected_dims[i])
      return pt2c_fail(PT2C_ERROR_SHAPE, "%s %d ('%s'): expected shape %s, got %s", role, number,
                       name, expected_shape, given_shape);
  /* A tensor with no elements is never dereferenced, so its data may be null. */
  uint64_t nbytes = 0;
  pt2c_shape_nbytes(pt2c_dtype_element_size(given->dtype), expected->rank, expected_dims, &nbytes);
  if (given->data == NULL && nbytes > 0)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s %d ('%s'): data is null", role, number, name);
  return PT2C_OK;
}

pt2c_status pt2c_check_tensors(const pt2c_plan *plan, const char *role,
                               const pt2c_plan_tensor *expected, uint32_t expected_count,
                               const pt2c_tensor *given, int32_t given_count,
                               const int64_t *sym_values) {
  if (given_count < 0 || (uint32_t)given_count != expected_count)
    return pt2c_fail(PT2C_ERROR_INPUT_COUNT, "expected %u %s%s, got %d", expected_count, role,
                     expected_count == 1 ? "" : "s", given_count);
  if (given == NULL && given_count > 0)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "the %s array is null, but its count is %d", role,
                     given_count);
  for (int32_t i = 0; i < given_count; ++i) {
    pt2c_status status = check_one(plan, role, i, &expected[i], &given[i], sym_values);
    if (status != PT2C_OK)
      return status;
  }
  return PT2C_OK;
}
