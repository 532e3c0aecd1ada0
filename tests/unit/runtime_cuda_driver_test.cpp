// Creating a CUDA model where the driver is missing or has no GPU: a clear
// PT2C_ERROR_UNSUPPORTED, and a later create retries (the failure is not cached). Its own
// binary, because the runtime keeps a driver once it has loaded one.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "pt2c/pt2c.h"
#include "runtime/src/model.h"
#include "tests/unit/cuda_test_support.h"
#include "tests/unit/plan_builder.h"

using Catch::Matchers::Contains;

namespace {

pt2c_status create_cuda_model(pt2c_model **model) {
  pt2c::testing::PlanBuilder plan;
  plan.device = PT2C_DEVICE_CUDA;
  uint32_t kernel = plan.add_gpu_kernel("fake_triple", {1, 1, 1}, {4, 1, 1});
  uint32_t x = plan.add_input("x", PT2C_F32, {4});
  uint32_t y = plan.add_output("y", PT2C_F32, {4});
  plan.add_step(kernel, {x, y});
  std::vector<unsigned char> blob = plan.build();
  static const std::vector<uint64_t> fatbin = pt2c::testing::make_fatbin({{2, 80, "fake_triple"}});
  pt2c_model_source source{};
  source.plan = blob.data();
  source.plan_size = blob.size();
  source.cuda_fatbin = fatbin.data();
  source.cuda_fatbin_size = fatbin.size() * sizeof(uint64_t);
  return pt2c_model_create_from(&source, model);
}

} // namespace

TEST_CASE("without a driver or a GPU, create fails clearly, and can be retried") {
  pt2c_model *model = nullptr;
  setenv("PT2C_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  CHECK(create_cuda_model(&model) == PT2C_ERROR_UNSUPPORTED);
  CHECK(model == nullptr);
  std::string error = pt2c_last_error();
  CHECK_THAT(error, Contains("this model needs an NVIDIA GPU"));
  CHECK_THAT(error, Contains("/nonexistent/libcuda.so.1 could not be loaded"));

  pt2c::testing::use_fake_cuda();
  setenv("FAKE_CUDA_INIT_ERROR", "100", 1);
  CHECK(create_cuda_model(&model) == PT2C_ERROR_UNSUPPORTED);
  error = pt2c_last_error();
  CHECK_THAT(error, Contains("this model needs an NVIDIA GPU: cuInit failed"));
  CHECK_THAT(error, Contains("CUDA_ERROR_NO_DEVICE"));

  unsetenv("FAKE_CUDA_INIT_ERROR");
  REQUIRE(create_cuda_model(&model) == PT2C_OK);
  std::vector<float> x = {1, 2, 3, 4}, y(4);
  int64_t dims[] = {4};
  pt2c_tensor input{x.data(), PT2C_F32, 1, dims}, output{y.data(), PT2C_F32, 1, dims};
  CHECK(pt2c_model_run(model, &input, 1, &output, 1) == PT2C_OK);
  CHECK(y == std::vector<float>{3, 6, 9, 12});
  pt2c_model_destroy(model);
}

TEST_CASE("a CPU model refuses device-memory runs") {
  pt2c::testing::PlanBuilder plan; // no steps: nothing to run, only the device matters
  std::vector<unsigned char> blob = plan.build();
  pt2c_model_source source{};
  source.plan = blob.data();
  source.plan_size = blob.size();
  pt2c_model *model = nullptr;
  REQUIRE(pt2c_model_create_from(&source, &model) == PT2C_OK);
  CHECK(pt2c_model_device(model) == PT2C_DEVICE_CPU);
  CHECK(pt2c_model_run_device(model, nullptr, 0, nullptr, 0, nullptr) == PT2C_ERROR_UNSUPPORTED);
  CHECK_THAT(pt2c_last_error(), Contains("this model runs on the CPU"));
  pt2c_model_destroy(model);
}
