// The runtime's CUDA path (runtime/src/cuda) against hand-built CUDA plans and a fake
// driver (testdata/fake_cuda.c): create uploads weights once, host- and device-memory
// runs, guards, errors for GPUs the model has no code for, and clean teardown.
#include <algorithm>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "pt2c/pt2c.h"
#include "runtime/src/cuda/cuda_model.h"
#include "runtime/src/model.h"
#include "tests/unit/cuda_test_support.h"
#include "tests/unit/plan_builder.h"

using Catch::Matchers::Contains;
using pt2c::testing::fake_cuda_stats;
using pt2c::testing::FatbinImage;
using pt2c::testing::PlanBuilder;

namespace {

constexpr int kNumElements = 8; // every tensor here is f32 [2, 4]
const std::vector<int64_t> kShape = {2, 4};
constexpr uint64_t kTensorBytes = kNumElements * sizeof(float);

struct alignas(64) Weights {
  float w[kNumElements] = {1, 2, 3, 4, 5, 6, 7, 8};
};
const Weights kWeights;

// The "cubin" payload holds the kernel names, as a real cubin's string table does.
std::vector<uint64_t> fatbin_for(uint32_t cubin_sm, uint32_t ptx_sm) {
  return pt2c::testing::make_fatbin(
      {{2, cubin_sm, std::string("fake_add\0fake_triple\0", 21)}, {1, ptx_sm, ".version 7.8"}});
}
const std::vector<uint64_t> kFatbin = fatbin_for(80, 90);

// y = ((x + w) + w) * 3 through two arena buffers, as fake GPU kernels.
PlanBuilder gpu_builder(const std::string &add_name = "fake_add") {
  PlanBuilder plan;
  plan.device = PT2C_DEVICE_CUDA;
  uint32_t add = plan.add_gpu_kernel(add_name, {1, 1, 1}, {kNumElements, 1, 1});
  uint32_t triple = plan.add_gpu_kernel("fake_triple", {1, 1, 1}, {kNumElements, 1, 1});
  uint32_t x = plan.add_input("x", PT2C_F32, kShape);
  uint32_t y = plan.add_output("y", PT2C_F32, kShape);
  uint32_t w = plan.add_weight(0, kTensorBytes);
  uint32_t first = plan.add_arena(0, kTensorBytes);
  uint32_t second = plan.add_arena(64, kTensorBytes);
  plan.add_step(add, {x, w, first});
  plan.add_step(add, {first, w, second});
  plan.add_step(triple, {second, y});
  return plan;
}

using ModelPtr = std::unique_ptr<pt2c_model, void (*)(pt2c_model *)>;

pt2c_status create(const std::vector<unsigned char> &plan, ModelPtr *model,
                   const std::vector<uint64_t> &fatbin = kFatbin, const void *weights = &kWeights,
                   size_t weights_size = sizeof(kWeights)) {
  pt2c::testing::use_fake_cuda();
  pt2c_model_source source{};
  source.plan = plan.data();
  source.plan_size = plan.size();
  source.weights = weights;
  source.weights_size = weights_size;
  source.cuda_fatbin = fatbin.data();
  source.cuda_fatbin_size = fatbin.size() * sizeof(uint64_t);
  pt2c_model *raw = nullptr;
  pt2c_status status = pt2c_model_create_from(&source, &raw);
  model->reset(raw);
  return status;
}

ModelPtr create_ok(const std::vector<unsigned char> &plan) {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(plan, &model) == PT2C_OK);
  return model;
}

std::string last_error() { return pt2c_last_error(); }

struct Io {
  std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<float> y = std::vector<float>(kNumElements, -1.0f);
  std::vector<int64_t> dims = kShape;
  pt2c_tensor input{x.data(), PT2C_F32, 2, dims.data()};
  pt2c_tensor output{y.data(), PT2C_F32, 2, dims.data()};

  pt2c_status run(pt2c_model *model) { return pt2c_model_run(model, &input, 1, &output, 1); }
  float expected(int i) const { return (x[i] + 2 * kWeights.w[i]) * 3; }
};

// Device memory for the device-pointer tests: the fake driver allocates only inside a
// context, as the real one does, so this makes the primary context current first and,
// at the end, frees what it allocated and restores the caller's context.
class DeviceMemory {
public:
  DeviceMemory() {
    fake<int (*)(void **, int)>("cuDevicePrimaryCtxRetain")(&context_, 0);
    fake<int (*)(void *)>("cuCtxPushCurrent_v2")(context_);
  }
  ~DeviceMemory() {
    for (unsigned long long p : allocations_)
      fake<int (*)(unsigned long long)>("cuMemFree_v2")(p);
    void *popped = nullptr;
    fake<int (*)(void **)>("cuCtxPopCurrent_v2")(&popped);
    fake<int (*)(int)>("cuDevicePrimaryCtxRelease_v2")(0);
  }
  // A device buffer of `bytes`, as a host-dereferenceable pointer (the fake's memory).
  void *alloc(size_t bytes) {
    unsigned long long p = 0;
    REQUIRE(fake<int (*)(unsigned long long *, size_t)>("cuMemAlloc_v2")(&p, bytes) == 0);
    allocations_.push_back(p);
    return reinterpret_cast<void *>(p);
  }

private:
  template <class F> static F fake(const char *name) {
    return pt2c::testing::fake_cuda_function<F>(name);
  }
  void *context_ = nullptr;
  std::vector<unsigned long long> allocations_;
};

} // namespace

TEST_CASE("a CUDA plan runs on host memory; weights are uploaded once, at create") {
  ModelPtr model = create_ok(gpu_builder().build());
  CHECK(pt2c_model_device(model.get()) == PT2C_DEVICE_CUDA);
  const auto &stats = fake_cuda_stats();
  CHECK(stats.context_depth == 0); // create leaves the caller's context alone
  int uploads = stats.htod_copies;
  uint64_t uploaded = stats.htod_bytes;
  Io io;
  for (int run = 0; run < 2; ++run) {
    REQUIRE(io.run(model.get()) == PT2C_OK);
    for (int i = 0; i < kNumElements; ++i)
      CHECK(io.y[i] == io.expected(i));
  }
  // Per run only the input goes up; the weights went up once.
  CHECK(stats.htod_copies == uploads + 2);
  CHECK(stats.htod_bytes == uploaded + 2 * kTensorBytes);
  CHECK(std::string(stats.last_kernel) == "fake_triple");
  CHECK(stats.last_stream == nullptr); // host runs use the legacy default stream
  CHECK(stats.context_depth == 0);
}

TEST_CASE("a device-memory run uses the caller's pointers and stream") {
  ModelPtr model = create_ok(gpu_builder().build());
  DeviceMemory device;
  void *x = device.alloc(kTensorBytes);
  void *y = device.alloc(kTensorBytes);
  Io io;
  std::memcpy(x, io.x.data(), kTensorBytes);
  pt2c_tensor input{x, PT2C_F32, 2, io.dims.data()};
  pt2c_tensor output{y, PT2C_F32, 2, io.dims.data()};
  const auto &stats = fake_cuda_stats();
  int copies = stats.htod_copies + stats.dtoh_copies;
  void *stream = reinterpret_cast<void *>(0x5eed);
  REQUIRE(pt2c_model_run_device(model.get(), &input, 1, &output, 1, stream) == PT2C_OK);
  CHECK(stats.last_stream == stream);
  CHECK(stats.htod_copies + stats.dtoh_copies == copies); // no copies without guards
  CHECK(stats.context_depth == 1);                        // the host's own context is current again
  const float *result = static_cast<const float *>(y);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(result[i] == io.expected(i));
  // Device runs are checked like host runs.
  pt2c_tensor wrong = input;
  wrong.dtype = PT2C_I32;
  CHECK(pt2c_model_run_device(model.get(), &wrong, 1, &output, 1, stream) == PT2C_ERROR_DTYPE);
}

TEST_CASE("a caller's tensor off a 16-byte boundary runs through the staging buffers") {
  // Generated kernels may move 16 bytes at a time (kKernelPointerAlignment): x at 4
  // bytes past an allocation is copied into its staging buffer, and y out of its own.
  ModelPtr model = create_ok(gpu_builder().build());
  DeviceMemory device;
  char *x = static_cast<char *>(device.alloc(kTensorBytes + 16)) + 4;
  void *y = device.alloc(kTensorBytes);
  Io io;
  std::memcpy(x, io.x.data(), kTensorBytes);
  pt2c_tensor input{x, PT2C_F32, 2, io.dims.data()};
  pt2c_tensor output{y, PT2C_F32, 2, io.dims.data()};
  const auto &stats = fake_cuda_stats();
  int copies = stats.dtod_copies;
  REQUIRE(pt2c_model_run_device(model.get(), &input, 1, &output, 1, nullptr) == PT2C_OK);
  CHECK(stats.dtod_copies == copies + 2);
  const float *result = static_cast<const float *>(y);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(result[i] == io.expected(i));
}

TEST_CASE("a run is one CUDA graph launch, captured at the first run") {
  ModelPtr model = create_ok(gpu_builder().build());
  const auto &stats = fake_cuda_stats();
  int captures = stats.graph_captures, graph_launches = stats.graph_launches;
  int launches = stats.launches;
  Io io;
  for (int run = 0; run < 3; ++run) {
    REQUIRE(io.run(model.get()) == PT2C_OK);
    for (int i = 0; i < kNumElements; ++i)
      CHECK(io.y[i] == io.expected(i));
  }
  CHECK(stats.graph_captures == captures + 1);
  CHECK(stats.graph_launches == graph_launches + 3);
  CHECK(stats.launches == launches + 3 * 3); // the graph's three kernels per run
}

// Runs the model on device input `x` and output `out`, and checks the output.
static void run_on_device(pt2c_model *model, void *x, void *out, Io &io) {
  std::memset(out, 0, kTensorBytes);
  pt2c_tensor input{x, PT2C_F32, 2, io.dims.data()};
  pt2c_tensor output{out, PT2C_F32, 2, io.dims.data()};
  void *stream = reinterpret_cast<void *>(0x5eed);
  REQUIRE(pt2c_model_run_device(model, &input, 1, &output, 1, stream) == PT2C_OK);
  const float *result = static_cast<const float *>(out);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(result[i] == io.expected(i));
}

TEST_CASE("device tensors that alternate run one graph per set, without copies") {
  ModelPtr model = create_ok(gpu_builder().build());
  DeviceMemory device;
  void *x = device.alloc(kTensorBytes);
  void *y[2] = {device.alloc(kTensorBytes), device.alloc(kTensorBytes)};
  Io io;
  std::memcpy(x, io.x.data(), kTensorBytes);
  const auto &stats = fake_cuda_stats();
  int captures = stats.graph_captures, copies = stats.dtod_copies;
  int graph_launches = stats.graph_launches;
  for (int run = 0; run < 5; ++run) // y[0], y[1], y[0], y[0], y[1]
    run_on_device(model.get(), x, y[run == 1 || run == 4 ? 1 : 0], io);
  CHECK(stats.graph_captures == captures + 2);
  CHECK(stats.graph_launches == graph_launches + 5);
  CHECK(stats.dtod_copies == copies);
}

TEST_CASE("device tensors that keep moving go through the staging buffers under one graph") {
  ModelPtr model = create_ok(gpu_builder().build());
  DeviceMemory device;
  void *x = device.alloc(kTensorBytes);
  constexpr int kSets = kCudaGraphsPerModel + 2;
  void *y[kSets];
  for (void *&out : y)
    out = device.alloc(kTensorBytes);
  Io io;
  std::memcpy(x, io.x.data(), kTensorBytes);
  const auto &stats = fake_cuda_stats();
  int captures = stats.graph_captures, copies = stats.dtod_copies;
  for (int run = 0; run < kSets + 1; ++run) // every output once, then the first again
    run_on_device(model.get(), x, y[run % kSets], io);
  // A graph for each of the first kCudaGraphsPerModel outputs; the next one finds them
  // all taken, so it and every later run copy the input in and the output out through
  // the staging buffers, under one more graph.
  CHECK(stats.graph_captures == captures + kCudaGraphsPerModel + 1);
  CHECK(stats.dtod_copies == copies + 2 * (kSets + 1 - kCudaGraphsPerModel));
}

TEST_CASE("PT2C_CUDA_GRAPH=0 launches the kernels one by one") {
  setenv("PT2C_CUDA_GRAPH", "0", 1);
  ModelPtr model = create_ok(gpu_builder().build());
  unsetenv("PT2C_CUDA_GRAPH");
  const auto &stats = fake_cuda_stats();
  int graph_launches = stats.graph_launches, launches = stats.launches;
  Io io;
  REQUIRE(io.run(model.get()) == PT2C_OK);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(io.y[i] == io.expected(i));
  CHECK(stats.graph_launches == graph_launches);
  CHECK(stats.launches == launches + 3);
}

TEST_CASE("destroy frees the device memory and releases the context") {
  const auto &stats = fake_cuda_stats();
  int allocations = stats.live_allocations, references = stats.primary_context_references;
  int unloads = stats.module_unloads;
  int graphs = stats.live_graphs, streams = stats.live_streams;
  {
    ModelPtr model = create_ok(gpu_builder().build());
    CHECK(stats.live_allocations > allocations);
    CHECK(stats.primary_context_references == references + 1);
    Io io;
    REQUIRE(io.run(model.get()) == PT2C_OK); // makes a graph
    CHECK(stats.live_graphs == graphs + 1);
  }
  CHECK(stats.live_graphs == graphs);
  CHECK(stats.live_streams == streams);
  CHECK(stats.live_allocations == allocations);
  CHECK(stats.primary_context_references == references);
  CHECK(stats.module_unloads == unloads + 1);
}

TEST_CASE("a context of a CUDA model shares its weights and module, and runs on its own memory") {
  const auto &stats = fake_cuda_stats();
  ModelPtr model = create_ok(gpu_builder().build());
  int allocations = stats.live_allocations, references = stats.primary_context_references;
  int unloads = stats.module_unloads, graphs = stats.live_graphs;
  uint64_t uploaded = stats.htod_bytes;
  {
    pt2c_context *raw = nullptr;
    REQUIRE(pt2c_context_create(model.get(), &raw) == PT2C_OK);
    std::unique_ptr<pt2c_context, void (*)(pt2c_context *)> context(raw, pt2c_context_destroy);
    CHECK(stats.htod_bytes == uploaded);         // no second copy of the weights
    CHECK(stats.live_allocations > allocations); // its own arena and staging buffers
    CHECK(stats.primary_context_references == references + 1);
    CHECK(stats.context_depth == 0);
    Io io;
    for (int run = 0; run < 2; ++run) {
      std::fill(io.y.begin(), io.y.end(), -1.0f);
      REQUIRE(pt2c_context_run(context.get(), &io.input, 1, &io.output, 1) == PT2C_OK);
      for (int i = 0; i < kNumElements; ++i)
        CHECK(io.y[i] == io.expected(i));
    }
    CHECK(stats.live_graphs == graphs + 1);  // the context's own graph
    REQUIRE(io.run(model.get()) == PT2C_OK); // the model beside it
    for (int i = 0; i < kNumElements; ++i)
      CHECK(io.y[i] == io.expected(i));
  }
  // Destroying the context frees its memory, not the model's module or weights.
  CHECK(stats.module_unloads == unloads);
  CHECK(stats.primary_context_references == references);
  CHECK(stats.live_allocations == allocations);
  Io io;
  REQUIRE(io.run(model.get()) == PT2C_OK);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(io.y[i] == io.expected(i));
}

TEST_CASE("a GPU the model has no code for gets a clear error") {
  setenv("FAKE_CUDA_SM", "75", 1);
  ModelPtr model(nullptr, pt2c_model_destroy);
  CHECK(create(gpu_builder().build(), &model) == PT2C_ERROR_UNSUPPORTED);
  unsetenv("FAKE_CUDA_SM");
  CHECK(model == nullptr);
  CHECK_THAT(last_error(), Contains("sm_75"));
  CHECK_THAT(last_error(), Contains("cubins for sm_80 and PTX for compute_90"));
  CHECK_THAT(last_error(), Contains("--target cuda:sm_75"));
  CHECK_THAT(last_error(), Contains("CUDA_ERROR_NO_BINARY_FOR_GPU"));
  CHECK_THAT(last_error(), Contains("fake: no image for this GPU")); // the JIT log
  CHECK(fake_cuda_stats().context_depth == 0);
}

TEST_CASE("a driver that rejects the GPU's own cubin is named as the problem") {
  setenv("FAKE_CUDA_REJECT_CUBINS", "1", 1); // a driver older than the toolkit
  ModelPtr model(nullptr, pt2c_model_destroy);
  CHECK(create(gpu_builder().build(), &model) == PT2C_ERROR_UNSUPPORTED);
  std::string error = last_error();
  CHECK_THAT(error, Contains("CUDA device 0 (Fake GPU, sm_80"));
  CHECK_THAT(error, Contains("update the NVIDIA driver"));
  CHECK_THAT(error, !Contains("--target"));
  setenv("FAKE_CUDA_SM", "90", 1); // the PTX (compute_90) still loads on sm_90
  CHECK(create(gpu_builder().build(), &model) == PT2C_OK);
  unsetenv("FAKE_CUDA_SM");
  unsetenv("FAKE_CUDA_REJECT_CUBINS");
}

TEST_CASE("a newer GPU runs the model through its PTX") {
  setenv("FAKE_CUDA_SM", "100", 1);
  ModelPtr model(nullptr, pt2c_model_destroy);
  CHECK(create(gpu_builder().build(), &model) == PT2C_OK);
  unsetenv("FAKE_CUDA_SM");
}

TEST_CASE("CUDA plans whose kernels or fatbin do not match are corrupt") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  CHECK(create(gpu_builder("not_in_fatbin").build(), &model) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK_THAT(last_error(), Contains("kernel 0 ('not_in_fatbin') is not in the model's fatbin"));

  std::vector<uint64_t> damaged = kFatbin;
  reinterpret_cast<unsigned char *>(damaged.data())[0] ^= 0xff;
  CHECK(create(gpu_builder().build(), &model, damaged) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK_THAT(last_error(), Contains("CUDA fatbin is missing, damaged"));

  std::vector<uint64_t> truncated(kFatbin.begin(), kFatbin.begin() + 4);
  CHECK(create(gpu_builder().build(), &model, truncated) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK(fake_cuda_stats().context_depth == 0);
}

TEST_CASE("launch configurations no GPU accepts are corrupt") {
  PlanBuilder plan = gpu_builder();
  plan.add_gpu_kernel("fake_add", {1, 1, 1}, {1025, 1, 1});
  ModelPtr model(nullptr, pt2c_model_destroy);
  CHECK(create(plan.build(), &model) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK_THAT(last_error(), Contains("gpu kernel 2 ('fake_add'): grid [1, 1, 1] x block [1025"));
  PlanBuilder zero = gpu_builder();
  zero.add_gpu_kernel("fake_add", {0, 1, 1}, {1, 1, 1});
  CHECK(create(zero.build(), &model) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK_THAT(last_error(), Contains("a grid or block dimension is 0"));
}

TEST_CASE("guards of a CUDA plan read device memory") {
  PlanBuilder plan = gpu_builder();
  plan.add_guard(3 /* first arena buffer: x + w */, PT2C_F32, 1.0, "x[0] + w[0] == 1");
  ModelPtr model = create_ok(plan.build());
  Io io;
  CHECK(io.run(model.get()) == PT2C_OK); // x[0] + w[0] = 0 + 1
  io.x[0] = 5;
  CHECK(io.run(model.get()) == PT2C_ERROR_GUARD);
  CHECK_THAT(last_error(), Contains("x[0] + w[0] == 1"));
  CHECK_THAT(last_error(), Contains("this input gives 6"));
}

TEST_CASE("launch failures name the kernel and the driver's error") {
  ModelPtr model = create_ok(gpu_builder().build());
  setenv("FAKE_CUDA_LAUNCH_ERROR", "719", 1);
  Io io;
  CHECK(io.run(model.get()) == PT2C_ERROR_DEVICE);
  unsetenv("FAKE_CUDA_LAUNCH_ERROR");
  CHECK_THAT(last_error(), Contains("launching kernel 'fake_add' (step 0) failed"));
  CHECK_THAT(last_error(), Contains("CUDA_ERROR_LAUNCH_FAILED"));
  CHECK(fake_cuda_stats().context_depth == 0);
  CHECK(io.run(model.get()) == PT2C_OK); // and the model still works afterwards
}

namespace {

// y[2, 3] = relu(x[2, 4] @ w[3, 4]^T + bias[3]) as a GEMM step; its fallback step is
// fake_triple(x, y) (y[i] = 3 x[i]: not the same function, so a test sees which ran).
struct alignas(64) GemmWeights {
  float w[12] = {1, 0, -1, 2, 0.5f, 0.5f, 0.5f, 0.5f, -2, -1, 0, 1};
  float padding[4] = {};
  float bias[3] = {0.25f, -1, -3};
  float padding2[13] = {};
  float residual[6] = {10, -20, 30, -40, 50, -60}; // C of the ADD epilogues, at byte 128
};
const GemmWeights kGemmWeights;

pt2c_plan_gemm linear_relu_gemm() {
  pt2c_plan_gemm gemm{};
  gemm.dtype = PT2C_F32;
  gemm.epilogue = PT2C_GEMM_EPILOGUE_BIAS_RELU;
  gemm.transpose_b = 1;
  gemm.m = 2, gemm.n = 3, gemm.k = 4, gemm.batch = 1;
  gemm.ld_a = 4, gemm.ld_b = 4, gemm.ld_d = 3;
  gemm.num_fallback_steps = 1;
  return gemm;
}

std::vector<unsigned char> gemm_plan(const pt2c_plan_gemm &gemm = linear_relu_gemm()) {
  PlanBuilder plan;
  plan.device = PT2C_DEVICE_CUDA;
  uint32_t triple = plan.add_gpu_kernel("fake_triple", {1, 1, 1}, {6, 1, 1});
  uint32_t x = plan.add_input("x", PT2C_F32, {2, 4});
  uint32_t y = plan.add_output("y", PT2C_F32, {2, 3});
  uint32_t w = plan.add_weight(0, 48);
  uint32_t bias = plan.add_weight(64, 12);
  plan.add_gemm_step(gemm, {x, w, bias, y});
  plan.add_step(triple, {x, y});
  return plan.build();
}

ModelPtr create_gemm_model(const std::vector<unsigned char> &plan = gemm_plan()) {
  pt2c::testing::use_fake_cublaslt();
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(plan, &model, kFatbin, &kGemmWeights, sizeof(kGemmWeights)) == PT2C_OK);
  return model;
}

struct GemmIo {
  std::vector<float> x = {1, 2, 3, 4, -1, 0, 2, -3};
  std::vector<float> y = std::vector<float>(6, -7.0f);
  std::vector<int64_t> x_dims = {2, 4}, y_dims = {2, 3};
  pt2c_status run(pt2c_model *model) {
    pt2c_tensor input{x.data(), PT2C_F32, 2, x_dims.data()};
    pt2c_tensor output{y.data(), PT2C_F32, 2, y_dims.data()};
    return pt2c_model_run(model, &input, 1, &output, 1);
  }
  float gemm(int m, int n) const {
    float sum = kGemmWeights.bias[n];
    for (int k = 0; k < 4; ++k)
      sum += x[m * 4 + k] * kGemmWeights.w[n * 4 + k];
    return sum > 0 ? sum : 0;
  }
};

int matmuls() { return pt2c::testing::fake_cublaslt_int("fake_cublaslt_matmuls"); }

} // namespace

TEST_CASE("GEMM steps run through cuBLASLt, with the bias and relu epilogue, not their fallback") {
  ModelPtr model = create_gemm_model();
  const auto &stats = fake_cuda_stats();
  int launches = stats.launches, before = matmuls();
  GemmIo io;
  REQUIRE(io.run(model.get()) == PT2C_OK);
  for (int m = 0; m < 2; ++m)
    for (int n = 0; n < 3; ++n)
      CHECK(io.y[m * 3 + n] == io.gemm(m, n));
  CHECK(io.gemm(1, 2) == 0); // the relu mattered
  CHECK(matmuls() == before + 1);
  CHECK(stats.launches == launches); // fake_triple (the fallback) did not run
  CHECK(pt2c::testing::fake_cublaslt_int("fake_cublaslt_last_compute") == 68); // no TF32
}

namespace {

// y = x @ w^T + bias + residual (BIAS_ADD: C is a weight here, the model's residual stream
// in a real plan), with fake_triple as the fallback; `c_is_d`: D as C, which is corrupt.
std::vector<unsigned char> bias_add_plan(bool c_is_d = false,
                                         uint32_t epilogue = PT2C_GEMM_EPILOGUE_BIAS_ADD) {
  pt2c_plan_gemm gemm = linear_relu_gemm();
  gemm.epilogue = epilogue;
  PlanBuilder plan;
  plan.device = PT2C_DEVICE_CUDA;
  uint32_t triple = plan.add_gpu_kernel("fake_triple", {1, 1, 1}, {6, 1, 1});
  uint32_t x = plan.add_input("x", PT2C_F32, {2, 4});
  uint32_t y = plan.add_output("y", PT2C_F32, {2, 3});
  uint32_t w = plan.add_weight(0, 48);
  uint32_t bias = plan.add_weight(64, 12);
  uint32_t residual = plan.add_weight(128, 24);
  plan.add_gemm_step(gemm, {x, w, bias, c_is_d ? y : residual, y});
  plan.add_step(triple, {x, y});
  return plan.build();
}

} // namespace

TEST_CASE("a BIAS_ADD GEMM step adds C through cuBLASLt's beta = 1") {
  ModelPtr model = create_gemm_model(bias_add_plan());
  int before = matmuls();
  GemmIo io;
  REQUIRE(io.run(model.get()) == PT2C_OK);
  CHECK(matmuls() == before + 1);
  for (int m = 0; m < 2; ++m)
    for (int n = 0; n < 3; ++n) {
      float sum = kGemmWeights.bias[n] + kGemmWeights.residual[m * 3 + n];
      for (int k = 0; k < 4; ++k)
        sum += io.x[m * 4 + k] * kGemmWeights.w[n * 4 + k];
      CHECK(io.y[m * 3 + n] == sum);
    }
}

TEST_CASE("a BIAS_ADD_RELU GEMM step takes the ReLU of the sum with C") {
  ModelPtr model = create_gemm_model(bias_add_plan(false, PT2C_GEMM_EPILOGUE_BIAS_ADD_RELU));
  int before = matmuls();
  GemmIo io;
  REQUIRE(io.run(model.get()) == PT2C_OK);
  CHECK(matmuls() == before + 1);
  int clamped = 0;
  for (int m = 0; m < 2; ++m)
    for (int n = 0; n < 3; ++n) {
      float sum = kGemmWeights.bias[n] + kGemmWeights.residual[m * 3 + n];
      for (int k = 0; k < 4; ++k)
        sum += io.x[m * 4 + k] * kGemmWeights.w[n * 4 + k];
      clamped += sum < 0;
      CHECK(io.y[m * 3 + n] == std::max(sum, 0.0f));
    }
  CHECK(clamped > 0); // the ReLU mattered
}

TEST_CASE("a GEMM step whose C is its D is corrupt") {
  pt2c::testing::use_fake_cublaslt();
  ModelPtr model(nullptr, pt2c_model_destroy);
  CHECK(create(bias_add_plan(/*c_is_d=*/true), &model, kFatbin, &kGemmWeights,
               sizeof(kGemmWeights)) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK_THAT(last_error(), Contains("C and D share bytes"));
}

TEST_CASE("PT2C_CUDA_TF32=1 lets f32 GEMMs use TF32") {
  setenv("PT2C_CUDA_TF32", "1", 1);
  ModelPtr model = create_gemm_model();
  unsetenv("PT2C_CUDA_TF32");
  GemmIo io;
  REQUIRE(io.run(model.get()) == PT2C_OK);
  CHECK(pt2c::testing::fake_cublaslt_int("fake_cublaslt_last_compute") == 77);
}

TEST_CASE("GEMMs cuBLASLt cannot serve run their fallback steps") {
  const char *variable = GENERATE("PT2C_CUBLASLT", "FAKE_CUBLASLT_NO_ALGO");
  setenv(variable, std::string(variable) == "PT2C_CUBLASLT" ? "0" : "1", 1);
  ModelPtr model = create_gemm_model();
  unsetenv(variable);
  int before = matmuls();
  GemmIo io;
  REQUIRE(io.run(model.get()) == PT2C_OK);
  for (int i = 0; i < 6; ++i)
    CHECK(io.y[i] == 3 * io.x[i]);
  CHECK(matmuls() == before);
  CHECK(std::string(fake_cuda_stats().last_kernel) == "fake_triple");
}

TEST_CASE(
    "GEMM steps whose operands leave their buffers or whose fallback is missing are corrupt") {
  pt2c::testing::use_fake_cublaslt();
  pt2c_plan_gemm gemm = linear_relu_gemm();
  SECTION("k larger than the buffers") { gemm.k = 5, gemm.ld_a = 5, gemm.ld_b = 5; }
  SECTION("a batch stride past the output") { gemm.batch = 2, gemm.stride_d = 6; }
  SECTION("fallback steps past the end") { gemm.num_fallback_steps = 2; }
  SECTION("an unknown epilogue") { gemm.epilogue = 7; }
  ModelPtr model(nullptr, pt2c_model_destroy);
  CHECK(create(gemm_plan(gemm), &model, kFatbin, &kGemmWeights, sizeof(kGemmWeights)) ==
        PT2C_ERROR_CORRUPT_MODEL);
  CHECK_THAT(last_error(), Contains("step 0"));
}

TEST_CASE("caller tensors misaligned for the picked algorithm run the GEMM's fallback") {
  ModelPtr model = create_gemm_model();
  DeviceMemory device;
  void *x = device.alloc(32);
  char *y = static_cast<char *>(device.alloc(64));
  GemmIo io;
  std::memcpy(x, io.x.data(), 32);
  // 16-byte aligned (enough for the generated kernels, so not staged), not 256.
  float *misaligned = reinterpret_cast<float *>(y + 16);
  pt2c_tensor input{x, PT2C_F32, 2, io.x_dims.data()};
  pt2c_tensor output{misaligned, PT2C_F32, 2, io.y_dims.data()};
  int before = matmuls();
  REQUIRE(pt2c_model_run_device(model.get(), &input, 1, &output, 1, nullptr) == PT2C_OK);
  CHECK(matmuls() == before);
  for (int i = 0; i < 6; ++i)
    CHECK(misaligned[i] == 3 * io.x[i]); // fake_triple ran
}
