// A program that opens a model library at run time (pt2c/pt2c.hpp, dlopen): the path is
// its argument, here the runfiles path of pt2c_model's libclassifier.so (see the BUILD
// file). Prints the outputs for the input of model.py's consumer_input(), one line per
// output, as linked_main.cpp does.
#include <cmath>
#include <cstdio>
#include <vector>

#include "pt2c/pt2c.hpp"

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL.so\n", argv[0]);
    return 2;
  }
  try {
    pt2c::Library library(argv[1]);
    pt2c::Model model = library.create_model();
    pt2c::TensorInfo in = model.input_info(0), out = model.output_info(0);
    std::vector<float> x(static_cast<size_t>(in.num_elements()));
    std::vector<float> y(static_cast<size_t>(out.num_elements()));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = std::sin(0.01f * static_cast<float>(i));
    std::vector<pt2c_tensor> inputs = {
        {x.data(), PT2C_F32, static_cast<int32_t>(in.dims.size()), in.dims.data()}};
    std::vector<pt2c_tensor> outputs = {
        {y.data(), PT2C_F32, static_cast<int32_t>(out.dims.size()), out.dims.data()}};
    model.run(inputs, outputs);
    std::printf("output 0:");
    for (float v : y)
      std::printf(" %.9g", v);
    std::printf("\n");
  } catch (const pt2c::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
