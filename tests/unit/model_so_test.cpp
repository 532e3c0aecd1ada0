// A real model.so (testdata/tiny_model.c linked with the runtime archive by ld.lld, the
// way the compiler links) loaded through pt2c/pt2c.hpp.
#include <catch2/catch.hpp>

#include <vector>

#include "pt2c/pt2c.hpp"

using Catch::Matchers::Contains;

namespace {
// Relative to the test's working directory, the workspace root of its runfiles.
constexpr char kModelPath[] = "tests/unit/tiny_model.so";
} // namespace

TEST_CASE("pt2c.hpp loads, describes and runs a model.so") {
  pt2c::Library library(kModelPath);
  CHECK(library.abi_version() == PT2C_ABI_VERSION);
  pt2c::Model model = library.create_model();
  std::vector<pt2c::TensorInfo> inputs = model.inputs();
  std::vector<pt2c::TensorInfo> outputs = model.outputs();
  REQUIRE(inputs.size() == 1);
  REQUIRE(outputs.size() == 1);
  CHECK(inputs[0].name == "x");
  CHECK(inputs[0].dtype == PT2C_F32);
  CHECK(inputs[0].dims == std::vector<int64_t>{2, 3});
  CHECK(outputs[0].name == "y");
  CHECK(outputs[0].nbytes() == 24);

  std::vector<float> x = {1, 2, 3, 4, 5, 6}, y(6);
  std::vector<pt2c_tensor> in = {pt2c::tensor_view(x.data(), PT2C_F32, inputs[0].dims)};
  std::vector<pt2c_tensor> out = {pt2c::tensor_view(y.data(), PT2C_F32, outputs[0].dims)};
  model.run(in, out);
  CHECK(y == std::vector<float>{3, 7, 11, 15, 19, 23});

  SECTION("a bad input throws pt2c::Error with the model's status and message") {
    std::vector<int64_t> wrong = {3, 2};
    in[0] = pt2c::tensor_view(x.data(), PT2C_F32, wrong);
    try {
      model.run(in, out);
      FAIL("run accepted a [3, 2] input");
    } catch (const pt2c::Error &error) {
      CHECK(error.status() == PT2C_ERROR_SHAPE);
      CHECK_THAT(error.what(), Contains("input 0 ('x'): expected shape [2, 3], got [3, 2]"));
    }
  }
  SECTION("models outlive the Library object they came from") {
    pt2c::Model second = pt2c::Library(kModelPath).create_model();
    CHECK(second.num_inputs() == 1);
  }
}

TEST_CASE("pt2c.hpp reports files that are not models") {
  try {
    pt2c::Library library("tests/unit/does_not_exist.so");
    FAIL("loaded a missing file");
  } catch (const pt2c::Error &error) {
    CHECK(error.status() == PT2C_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(error.what(), Contains("cannot load 'tests/unit/does_not_exist.so'"));
  }
  try {
    // A path: pt2c.hpp opens a bare file name from the current directory.
    pt2c::Library library("/lib/x86_64-linux-gnu/libm.so.6");
    FAIL("loaded libm as a model");
  } catch (const pt2c::Error &error) {
    CHECK(error.status() == PT2C_ERROR_CORRUPT_MODEL);
    CHECK_THAT(error.what(), Contains("does not export pt2c_abi_version"));
  }
}
