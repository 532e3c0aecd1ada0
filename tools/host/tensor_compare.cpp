#include "tools/host/tensor_compare.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace pt2c::host {
namespace {

template <typename T> T load(const void *data, size_t index) {
  T value;
  std::memcpy(&value, static_cast<const unsigned char *>(data) + index * sizeof(T), sizeof(T));
  return value;
}

double half_to_double(uint16_t bits) {
  int sign = bits >> 15 ? -1 : 1;
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24); // subnormal
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

double bfloat16_to_double(uint16_t bits) {
  uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &widened, sizeof(value));
  return value;
}

// |a - b| with NaN == NaN and inf == inf.
double distance(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<double>::infinity();
  if (a == b)
    return 0; // also equal infinities, whose difference would be NaN
  return std::fabs(a - b);
}

} // namespace

double element_to_double(pt2c_dtype dtype, const void *data, size_t index) {
  switch (dtype) {
  case PT2C_F32:
    return load<float>(data, index);
  case PT2C_F64:
    return load<double>(data, index);
  case PT2C_F16:
    return half_to_double(load<uint16_t>(data, index));
  case PT2C_BF16:
    return bfloat16_to_double(load<uint16_t>(data, index));
  case PT2C_I64:
    return static_cast<double>(load<int64_t>(data, index));
  case PT2C_I32:
    return load<int32_t>(data, index);
  case PT2C_I16:
    return load<int16_t>(data, index);
  case PT2C_I8:
    return load<int8_t>(data, index);
  case PT2C_U8:
    return load<uint8_t>(data, index);
  case PT2C_BOOL:
    return load<uint8_t>(data, index) != 0;
  case PT2C_DTYPE_UNDEFINED:
    break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

Comparison compare(pt2c_dtype actual_dtype, const void *actual, pt2c_dtype reference_dtype,
                   const void *reference, size_t count) {
  Comparison result;
  for (size_t i = 0; i < count; ++i) {
    double expected = element_to_double(reference_dtype, reference, i);
    double diff = distance(element_to_double(actual_dtype, actual, i), expected);
    if (diff > result.max_abs_diff)
      result.max_abs_diff = diff;
    if (std::isfinite(expected) && std::fabs(expected) > result.max_abs_ref)
      result.max_abs_ref = std::fabs(expected);
  }
  result.relative =
      result.max_abs_ref > 0 ? result.max_abs_diff / result.max_abs_ref : result.max_abs_diff;
  return result;
}

} // namespace pt2c::host
