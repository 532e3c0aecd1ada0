// Element access and reference comparison for host programs that check a model's
// outputs (examples/cpp_host, `pt2c run`).
#ifndef PT2C_TOOLS_HOST_TENSOR_COMPARE_H_
#define PT2C_TOOLS_HOST_TENSOR_COMPARE_H_

#include <cstddef>

#include "pt2c/pt2c.h"

namespace pt2c::host {

// Element `index` of a dense array of `dtype` elements, as a double (f16 and bf16 are
// widened exactly; bool is 0 or 1).
double element_to_double(pt2c_dtype dtype, const void *data, size_t index);

// How far an output is from a reference, over all elements.
struct Comparison {
  double max_abs_diff = 0; // max |actual - reference|; +inf where only one side is NaN
  double max_abs_ref = 0;  // max |reference| over finite elements
  double relative = 0;     // max_abs_diff / max_abs_ref, or max_abs_diff if that is 0
};

// Compares `count` elements; the dtypes may differ (values are compared as doubles).
// NaN matches NaN, and equal infinities match.
Comparison compare(pt2c_dtype actual_dtype, const void *actual, pt2c_dtype reference_dtype,
                   const void *reference, size_t count);

} // namespace pt2c::host

#endif // PT2C_TOOLS_HOST_TENSOR_COMPARE_H_
