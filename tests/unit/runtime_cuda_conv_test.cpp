// The runtime's convolution steps (runtime/src/cuda/cuda_conv.c) against hand-built CUDA
// plans, the fake driver and the fake cuDNN (testdata/fake_cudnn.c, which computes the
// convolutions it is given on the host): cuDNN serves them with their epilogue, across
// runs of a captured CUDA graph; without cuDNN their fallback steps run; records whose
// sizes do not agree are corrupt.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "pt2c/pt2c.h"
#include "runtime/src/model.h"
#include "tests/unit/cuda_test_support.h"
#include "tests/unit/plan_builder.h"

using Catch::Matchers::Contains;
using pt2c::testing::fake_cuda_stats;
using pt2c::testing::PlanBuilder;

namespace {

// A depthwise 3x3 convolution, stride 2, padding 1, of x [1, 2, 4, 4] into y [1, 2, 2, 2],
// with bias and ReLU (the record's epilogue); its fallback step is fake_triple(x, y)
// (y[i] = 3 x[i]: not the same function, so a test sees which ran).
struct alignas(64) ConvWeights {
  float w[18] = {1, 0, -1, 2, 0.5f, 0, -1, 1, 0.25f, /* channel 1: */ 0, 1, 0, 1, -4, 1, 0, 1, 0};
  float padding[14] = {};
  float bias[2] = {0.5f, -2};
};
const ConvWeights kConvWeights;

const std::vector<uint64_t> kFatbin =
    pt2c::testing::make_fatbin({{2, 80, std::string("fake_triple\0", 12)}});

pt2c_plan_conv depthwise_conv() {
  pt2c_plan_conv c{};
  c.dtype = PT2C_F32;
  c.epilogue = PT2C_CONV_EPILOGUE_BIAS_RELU;
  c.spatial_rank = 2;
  c.groups = 2;
  c.batch = 1, c.in_channels = 2, c.out_channels = 2;
  for (int d = 0; d < 3; ++d) {
    bool used = d < 2;
    c.input[d] = used ? 4 : 1;
    c.kernel[d] = used ? 3 : 1;
    c.output[d] = used ? 2 : 1;
    c.stride[d] = used ? 2 : 1;
    c.padding[d] = used ? 1 : 0;
    c.dilation[d] = 1;
  }
  c.num_fallback_steps = 1;
  return c;
}

std::vector<unsigned char> conv_plan(const pt2c_plan_conv &conv = depthwise_conv(),
                                     pt2c_device device = PT2C_DEVICE_CUDA) {
  PlanBuilder plan;
  plan.device = device;
  uint32_t triple =
      device == PT2C_DEVICE_CUDA ? plan.add_gpu_kernel("fake_triple", {1, 1, 1}, {8, 1, 1}) : 0;
  uint32_t x = plan.add_input("x", PT2C_F32, {1, 2, 4, 4});
  uint32_t y = plan.add_output("y", PT2C_F32, {1, 2, 2, 2});
  uint32_t w = plan.add_weight(0, sizeof(kConvWeights.w));
  uint32_t bias = plan.add_weight(offsetof(ConvWeights, bias), sizeof(kConvWeights.bias));
  plan.add_conv_step(conv, {x, w, bias, y});
  plan.add_step(triple, {x, y});
  return plan.build();
}

using ModelPtr = std::unique_ptr<pt2c_model, void (*)(pt2c_model *)>;

pt2c_status create(const std::vector<unsigned char> &plan, ModelPtr *model) {
  pt2c::testing::use_fake_cuda();
  pt2c::testing::use_fake_cudnn();
  pt2c_model_source source{};
  source.plan = plan.data();
  source.plan_size = plan.size();
  source.weights = &kConvWeights;
  source.weights_size = sizeof(kConvWeights);
  source.cuda_fatbin = kFatbin.data();
  source.cuda_fatbin_size = kFatbin.size() * sizeof(uint64_t);
  pt2c_model *raw = nullptr;
  pt2c_status status = pt2c_model_create_from(&source, &raw);
  model->reset(raw);
  return status;
}

std::string last_error() { return pt2c_last_error(); }

struct ConvIo {
  std::vector<float> x, y = std::vector<float>(8, -7.0f);
  std::vector<int64_t> x_dims = {1, 2, 4, 4}, y_dims = {1, 2, 2, 2};
  ConvIo() {
    for (int i = 0; i < 32; ++i)
      x.push_back(static_cast<float>((i * 7) % 11) - 5.0f);
  }
  pt2c_status run(pt2c_model *model) {
    pt2c_tensor input{x.data(), PT2C_F32, 4, x_dims.data()};
    pt2c_tensor output{y.data(), PT2C_F32, 4, y_dims.data()};
    return pt2c_model_run(model, &input, 1, &output, 1);
  }
  // relu(bias[k] + sum_{r, s} x[k, 2 i + r - 1, 2 j + s - 1] w[k, r, s]), by definition.
  float expected(int k, int i, int j) const {
    float sum = kConvWeights.bias[k];
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) {
        int h = 2 * i + r - 1, v = 2 * j + s - 1;
        if (h >= 0 && h < 4 && v >= 0 && v < 4)
          sum += x[k * 16 + h * 4 + v] * kConvWeights.w[k * 9 + r * 3 + s];
      }
    return std::max(sum, 0.0f);
  }
};

} // namespace

TEST_CASE("convolution steps run through cuDNN with their epilogue, also in a CUDA graph") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(conv_plan(), &model) == PT2C_OK);
  const auto &stats = fake_cuda_stats();
  int launches = stats.launches, captures = stats.graph_captures;
  ConvIo io;
  // The first run launches directly; the second captures the graph, the third replays it.
  for (int run = 0; run < 3; ++run) {
    std::fill(io.y.begin(), io.y.end(), -7.0f);
    io.x[run] += 1; // each run sees new input values
    REQUIRE(io.run(model.get()) == PT2C_OK);
    for (int k = 0; k < 2; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          CHECK(io.y[k * 4 + i * 2 + j] == io.expected(k, i, j));
  }
  CHECK(stats.graph_captures == captures + 1);
  CHECK(stats.launches == launches);                     // fake_triple (the fallback) never ran
  CHECK(std::count(io.y.begin(), io.y.end(), 0.0f) > 0); // the relu mattered
}

TEST_CASE("a capture that cuDNN's calls break turns the model's CUDA graph off") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(conv_plan(), &model) == PT2C_OK);
  const auto &stats = fake_cuda_stats();
  int captures = stats.graph_captures, graph_launches = stats.graph_launches;
  setenv("FAKE_CUDA_CAPTURE_HOST_FUNC_ERROR", "1", 1);
  ConvIo io;
  for (int run = 0; run < 3; ++run) {
    std::fill(io.y.begin(), io.y.end(), -7.0f);
    io.x[run] -= 2;
    pt2c_status status = io.run(model.get());
    CHECK(status == PT2C_OK);
    for (int k = 0; k < 2; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          CHECK(io.y[k * 4 + i * 2 + j] == io.expected(k, i, j));
  }
  unsetenv("FAKE_CUDA_CAPTURE_HOST_FUNC_ERROR");
  CHECK(stats.graph_captures == captures + 1); // tried once (the second run), not again
  CHECK(stats.graph_launches == graph_launches);
  CHECK(stats.live_graphs == 0);
}

TEST_CASE("convolutions cuDNN does not serve run their fallback steps") {
  const char *variable = GENERATE("PT2C_CUDNN", "FAKE_CUDNN_NO_ALGO", "FAKE_CUDNN_NO_FUSED");
  setenv(variable, std::string(variable) == "PT2C_CUDNN" ? "0" : "1", 1);
  ModelPtr model(nullptr, pt2c_model_destroy);
  pt2c_status status = create(conv_plan(), &model);
  REQUIRE(status == PT2C_OK);
  ConvIo io;
  for (int run = 0; run < 3; ++run) { // also in the graph (runs 2 and 3)
    std::fill(io.y.begin(), io.y.end(), -7.0f);
    REQUIRE(io.run(model.get()) == PT2C_OK);
    for (int i = 0; i < 8; ++i)
      CHECK(io.y[i] == 3 * io.x[i]);
    CHECK(std::string(fake_cuda_stats().last_kernel) == "fake_triple");
  }
  unsetenv(variable);
}

TEST_CASE("convolution steps whose sizes do not agree or leave their buffers are corrupt") {
  pt2c_plan_conv conv = depthwise_conv();
  std::string message = "sizes that do not agree";
  pt2c_device device = PT2C_DEVICE_CUDA;
  SECTION("an output size that is not the convolution's") { conv.output[1] = 3; }
  SECTION("groups that do not divide the channels") { conv.groups = 3; }
  SECTION("an unused spatial entry that is not 1") { conv.kernel[2] = 2; }
  SECTION("padding past the int range cuDNN takes") { conv.padding[0] = 1ull << 40; }
  SECTION("more channels than the buffers hold") {
    conv.in_channels = 4, conv.out_channels = 4, conv.groups = 4;
    message = "larger than its buffer";
  }
  SECTION("fallback steps past the end") {
    conv.num_fallback_steps = 2;
    message = "fallback steps run past the plan's end";
  }
  SECTION("an unknown epilogue") {
    conv.epilogue = 9;
    message = "unknown convolution epilogue";
  }
  SECTION("a residual epilogue without its z buffer") {
    conv.epilogue = PT2C_CONV_EPILOGUE_BIAS_ADD_RELU;
    message = "takes 5 buffers, not 4";
  }
  ModelPtr model(nullptr, pt2c_model_destroy);
  CHECK(create(conv_plan(conv, device), &model) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK_THAT(last_error(), Contains("step 0") && Contains(message));
}
