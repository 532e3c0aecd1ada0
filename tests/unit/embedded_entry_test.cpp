// pt2c_model_create reading the compiler's symbols, here defined by testdata/tiny_model.c
// (y = (x + w) * 2 with w = 0.5, 1.5, ...), linked statically into this test.
#include <catch2/catch.hpp>

#include <vector>

#include "pt2c/pt2c.h"

TEST_CASE("pt2c_model_create builds the embedded model") {
  pt2c_model *model = nullptr;
  REQUIRE(pt2c_model_create(&model) == PT2C_OK);
  REQUIRE(model != nullptr);
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, y(6);
  int64_t dims[] = {2, 3};
  pt2c_tensor input{x.data(), PT2C_F32, 2, dims};
  pt2c_tensor output{y.data(), PT2C_F32, 2, dims};
  REQUIRE(pt2c_model_run(model, &input, 1, &output, 1) == PT2C_OK);
  CHECK(y == std::vector<float>{3, 7, 11, 15, 19, 23});
  pt2c_model_destroy(model);
}

TEST_CASE("pt2c_model_create needs somewhere to put the model") {
  CHECK(pt2c_model_create(nullptr) == PT2C_ERROR_INVALID_ARGUMENT);
}
