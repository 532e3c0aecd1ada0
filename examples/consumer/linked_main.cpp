// A program linked against one model library (pt2c_model's cc_library :classifier): it
// calls the C ABI (pt2c/pt2c.h) directly. Prints the outputs for the input of
// model.py's consumer_input(), one line per output.
#include <cmath>
#include <cstdio>
#include <vector>

#include "pt2c/pt2c.h"

namespace {

int fail(const char *what) {
  std::fprintf(stderr, "%s: %s\n", what, pt2c_last_error());
  return 1;
}

std::vector<float> buffer_for(const pt2c_tensor_info &info) {
  size_t count = 1;
  for (int32_t d = 0; d < info.rank; ++d)
    count *= static_cast<size_t>(info.dims[d]);
  return std::vector<float>(count);
}

} // namespace

int main() {
  pt2c_model *model = nullptr;
  if (pt2c_model_create(&model) != PT2C_OK)
    return fail("pt2c_model_create");
  pt2c_tensor_info in_info, out_info;
  if (pt2c_model_input_info(model, 0, &in_info) != PT2C_OK ||
      pt2c_model_output_info(model, 0, &out_info) != PT2C_OK)
    return fail("pt2c_model_input_info");
  std::vector<float> x = buffer_for(in_info), y = buffer_for(out_info);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(0.01f * static_cast<float>(i));
  pt2c_tensor input = {x.data(), PT2C_F32, in_info.rank, in_info.dims};
  pt2c_tensor output = {y.data(), PT2C_F32, out_info.rank, out_info.dims};
  if (pt2c_model_run(model, &input, 1, &output, 1) != PT2C_OK)
    return fail("pt2c_model_run");
  std::printf("output 0:");
  for (float v : y)
    std::printf(" %.9g", v);
  std::printf("\n");
  pt2c_model_destroy(model);
  return 0;
}
