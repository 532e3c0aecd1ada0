// The runtime core against hand-built plans: runs, input checks, corrupt plans, a second
// run while one is in progress.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pt2c/pt2c.h"
#include "runtime/src/model.h"
#include "tests/unit/plan_builder.h"

using Catch::Matchers::Contains;
using pt2c::testing::PlanBuilder;

namespace {

constexpr int kNumElements = 8; // every tensor here is f32 [2, 4]
const std::vector<int64_t> kShape = {2, 4};
constexpr uint64_t kTensorBytes = kNumElements * sizeof(float);

int g_kernel_calls = 0;

// buffers: a, b, out
void add_kernel(void *const *buffers, const int64_t *) {
  ++g_kernel_calls;
  const float *a = static_cast<const float *>(buffers[0]);
  const float *b = static_cast<const float *>(buffers[1]);
  float *out = static_cast<float *>(buffers[2]);
  for (int i = 0; i < kNumElements; ++i)
    out[i] = a[i] + b[i];
}

// buffers: in, out = in * 3
void triple_kernel(void *const *buffers, const int64_t *) {
  ++g_kernel_calls;
  const float *in = static_cast<const float *>(buffers[0]);
  float *out = static_cast<float *>(buffers[1]);
  for (int i = 0; i < kNumElements; ++i)
    out[i] = in[i] * 3.0f;
}

// buffers: in, out = in
void copy_kernel(void *const *buffers, const int64_t *) {
  ++g_kernel_calls;
  std::memcpy(buffers[1], buffers[0], kTensorBytes);
}

// While g_hold is set, blocking_copy_kernel waits in the middle of a run: a test can then
// start a second run for sure while the first is in progress.
std::atomic<bool> g_hold{false};
std::atomic<int> g_held{0}; // runs waiting in blocking_copy_kernel

// buffers: in, out = in, after waiting for g_hold to clear
void blocking_copy_kernel(void *const *buffers, const int64_t *) {
  ++g_held;
  while (g_hold.load())
    std::this_thread::yield();
  --g_held;
  std::memcpy(buffers[1], buffers[0], kTensorBytes);
}

enum Kernel : uint32_t { kAdd, kTriple, kCopy, kBlockingCopy, kNumKernels };
const pt2c_kernel_fn kKernels[kNumKernels] = {add_kernel, triple_kernel, copy_kernel,
                                              blocking_copy_kernel};

struct alignas(64) Weights {
  float w[kNumElements] = {1, 2, 3, 4, 5, 6, 7, 8};
};
const Weights kWeights;

// y = ((x + w) + w) * 3, through two arena buffers: three steps over every buffer kind.
PlanBuilder three_step_builder() {
  PlanBuilder plan;
  uint32_t x = plan.add_input("x", PT2C_F32, kShape);
  uint32_t y = plan.add_output("y", PT2C_F32, kShape);
  uint32_t w = plan.add_weight(0, kTensorBytes);
  uint32_t first = plan.add_arena(0, kTensorBytes);
  uint32_t second = plan.add_arena(64, kTensorBytes);
  plan.add_step(kAdd, {x, w, first});
  plan.add_step(kAdd, {first, w, second});
  plan.add_step(kTriple, {second, y});
  return plan;
}

// y = x, through blocking_copy_kernel: a run that waits inside while g_hold is set.
std::vector<unsigned char> blocking_plan() {
  PlanBuilder plan;
  uint32_t x = plan.add_input("x", PT2C_F32, kShape);
  uint32_t y = plan.add_output("y", PT2C_F32, kShape);
  plan.add_step(kBlockingCopy, {x, y});
  return plan.build();
}

// Whether `count` runs are waiting in blocking_copy_kernel within 30 s.
bool wait_held(int count) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (g_held.load() < count && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  return g_held.load() == count;
}

// y = x + s; then s = s + w, written back by the last step. s starts as w.
PlanBuilder state_builder() {
  PlanBuilder builder;
  uint32_t x = builder.add_input("x", PT2C_F32, kShape);
  uint32_t y = builder.add_output("y", PT2C_F32, kShape);
  uint32_t w = builder.add_weight(0, kTensorBytes);
  uint32_t s = builder.add_buffer({PT2C_BUFFER_STATE, 0, 0, kTensorBytes});
  uint32_t next = builder.add_arena(0, kTensorBytes);
  builder.add_step(kAdd, {x, s, y});
  builder.add_step(kAdd, {s, w, next});
  builder.add_step(kCopy, {next, s});
  return builder;
}

using ModelPtr = std::unique_ptr<pt2c_model, void (*)(pt2c_model *)>;

pt2c_status create(const std::vector<unsigned char> &plan, ModelPtr *model,
                   const void *weights = &kWeights, uint64_t weights_size = sizeof(kWeights),
                   uint32_t num_kernels = kNumKernels) {
  pt2c_model_source source{plan.data(), plan.size(), weights, weights_size, kKernels, num_kernels};
  pt2c_model *raw = reinterpret_cast<pt2c_model *>(1); // must be reset to null on failure
  pt2c_status status = pt2c_model_create_from(&source, &raw);
  model->reset(raw);
  return status;
}

ModelPtr create_ok(const std::vector<unsigned char> &plan) {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(plan, &model) == PT2C_OK);
  REQUIRE(model != nullptr);
  return model;
}

// Caller-side tensors for the one-input, one-output models above.
struct Io {
  std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<float> y = std::vector<float>(kNumElements, -1.0f);
  std::vector<int64_t> x_dims = kShape, y_dims = kShape;
  pt2c_tensor input{x.data(), PT2C_F32, 2, x_dims.data()};
  pt2c_tensor output{y.data(), PT2C_F32, 2, y_dims.data()};

  pt2c_status run(pt2c_model *model) { return pt2c_model_run(model, &input, 1, &output, 1); }
};

std::string last_error() { return pt2c_last_error(); }

void expect_corrupt(const std::vector<unsigned char> &plan, const std::string &message) {
  ModelPtr model(nullptr, pt2c_model_destroy);
  CHECK(create(plan, &model) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK(model == nullptr);
  CHECK_THAT(last_error(), Contains(message));
}

} // namespace

TEST_CASE("a three-step plan runs through weights and arena buffers") {
  ModelPtr model = create_ok(three_step_builder().build());
  Io io;
  g_kernel_calls = 0;
  REQUIRE(io.run(model.get()) == PT2C_OK);
  CHECK(g_kernel_calls == 3);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(io.y[i] == (io.x[i] + 2 * kWeights.w[i]) * 3);

  SECTION("and gives the same result when run again") {
    std::vector<float> first = io.y;
    std::fill(io.y.begin(), io.y.end(), 0.0f);
    REQUIRE(io.run(model.get()) == PT2C_OK);
    CHECK(io.y == first);
  }
}

TEST_CASE("the model describes its inputs and outputs") {
  ModelPtr model = create_ok(three_step_builder().build());
  CHECK(pt2c_model_num_inputs(model.get()) == 1);
  CHECK(pt2c_model_num_outputs(model.get()) == 1);
  pt2c_tensor_info info;
  REQUIRE(pt2c_model_input_info(model.get(), 0, &info) == PT2C_OK);
  CHECK(std::string(info.name) == "x");
  CHECK(info.dtype == PT2C_F32);
  REQUIRE(info.rank == 2);
  CHECK(std::vector<int64_t>(info.dims, info.dims + 2) == kShape);
  REQUIRE(pt2c_model_output_info(model.get(), 0, &info) == PT2C_OK);
  CHECK(std::string(info.name) == "y");

  CHECK(pt2c_model_input_info(model.get(), 1, &info) == PT2C_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(last_error(), Contains("index 1 is out of range"));
  CHECK(pt2c_model_output_info(model.get(), -1, &info) == PT2C_ERROR_INVALID_ARGUMENT);
  CHECK(pt2c_model_input_info(model.get(), 0, nullptr) == PT2C_ERROR_INVALID_ARGUMENT);
  CHECK(pt2c_model_num_inputs(nullptr) == -1);
  CHECK(pt2c_model_input_info(nullptr, 0, &info) == PT2C_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("run rejects bad tensors before any kernel runs") {
  ModelPtr model = create_ok(three_step_builder().build());
  Io io;
  g_kernel_calls = 0;

  SECTION("wrong input count") {
    pt2c_tensor two[2] = {io.input, io.input};
    CHECK(pt2c_model_run(model.get(), two, 2, &io.output, 1) == PT2C_ERROR_INPUT_COUNT);
    CHECK_THAT(last_error(), Contains("expected 1 input, got 2"));
    CHECK(pt2c_model_run(model.get(), nullptr, 0, &io.output, 1) == PT2C_ERROR_INPUT_COUNT);
  }
  SECTION("wrong output count") {
    CHECK(pt2c_model_run(model.get(), &io.input, 1, &io.output, 0) == PT2C_ERROR_INPUT_COUNT);
    CHECK_THAT(last_error(), Contains("expected 1 output, got 0"));
  }
  SECTION("wrong dtype") {
    io.input.dtype = PT2C_I64;
    CHECK(io.run(model.get()) == PT2C_ERROR_DTYPE);
    CHECK_THAT(last_error(), Contains("input 0 ('x'): expected dtype f32, got i64"));
  }
  SECTION("unknown dtype") {
    io.output.dtype = static_cast<pt2c_dtype>(77);
    CHECK(io.run(model.get()) == PT2C_ERROR_DTYPE);
    CHECK_THAT(last_error(), Contains("output 0 ('y'): expected dtype f32, got unknown dtype 77"));
  }
  SECTION("wrong rank") {
    io.x_dims = {2, 4, 1};
    io.input.dims = io.x_dims.data();
    io.input.rank = 3;
    CHECK(io.run(model.get()) == PT2C_ERROR_SHAPE);
    CHECK_THAT(last_error(),
               Contains("input 0 ('x'): expected rank 2 (shape [2, 4]), got rank 3 ([2, 4, 1])"));
  }
  SECTION("impossible rank") {
    io.input.rank = -1;
    CHECK(io.run(model.get()) == PT2C_ERROR_SHAPE);
    CHECK_THAT(last_error(), Contains("got rank -1"));
  }
  SECTION("wrong input dim") {
    io.x_dims[1] = 3;
    CHECK(io.run(model.get()) == PT2C_ERROR_SHAPE);
    CHECK_THAT(last_error(), Contains("input 0 ('x'): expected shape [2, 4], got [2, 3]"));
  }
  SECTION("wrong output dim") {
    io.y_dims[0] = 1;
    CHECK(io.run(model.get()) == PT2C_ERROR_SHAPE);
    CHECK_THAT(last_error(), Contains("output 0 ('y'): expected shape [2, 4], got [1, 4]"));
  }
  SECTION("null data") {
    io.input.data = nullptr;
    CHECK(io.run(model.get()) == PT2C_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(last_error(), Contains("input 0 ('x'): data is null"));
  }
  SECTION("null dims") {
    io.output.dims = nullptr;
    CHECK(io.run(model.get()) == PT2C_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(last_error(), Contains("output 0 ('y'): dims is null"));
  }
  SECTION("null tensor array") {
    CHECK(pt2c_model_run(model.get(), nullptr, 1, &io.output, 1) == PT2C_ERROR_INVALID_ARGUMENT);
  }
  SECTION("null model") {
    CHECK(pt2c_model_run(nullptr, &io.input, 1, &io.output, 1) == PT2C_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(last_error(), Contains("model is null"));
  }
  CHECK(g_kernel_calls == 0);
  CHECK(io.y == std::vector<float>(kNumElements, -1.0f));
}

TEST_CASE("a plan without steps, arena or weights is valid") {
  PlanBuilder plan;
  plan.add_input("scalar", PT2C_I64, {});
  plan.add_output("empty", PT2C_F32, {0, 3});
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(plan.build(), &model, nullptr, 0, 0) == PT2C_OK);
  int64_t scalar = 5;
  pt2c_tensor input{&scalar, PT2C_I64, 0, nullptr};
  int64_t empty_dims[] = {0, 3};
  pt2c_tensor output{nullptr, PT2C_F32, 2, empty_dims}; // no elements: null data is fine
  CHECK(pt2c_model_run(model.get(), &input, 1, &output, 1) == PT2C_OK);
}

TEST_CASE("corrupt plans are rejected with a message") {
  std::vector<unsigned char> good = three_step_builder().build();

  SECTION("bad magic") {
    std::vector<unsigned char> plan = good;
    plan[0] = 'X';
    expect_corrupt(plan, "bad magic");
  }
  SECTION("wrong version") {
    std::vector<unsigned char> plan = good;
    PlanBuilder::header_of(&plan)->version = 99;
    expect_corrupt(plan, "plan version 99, this runtime reads version " +
                             std::to_string(PT2C_PLAN_VERSION));
  }
  SECTION("a state record that is no STATE buffer, or of other sizes than its buffer") {
    PlanBuilder builder = three_step_builder();
    builder.add_state("s", PT2C_F32, kShape, 0);
    std::vector<unsigned char> plan = builder.build();
    auto *header = PlanBuilder::header_of(&plan);
    auto *state = reinterpret_cast<pt2c_plan_tensor *>(
        reinterpret_cast<unsigned char *>(header) + plan.size() - header->strings_size -
        header->num_dims * sizeof(int64_t) - ((header->num_step_args * 4 + 7) / 8 * 8) -
        sizeof(pt2c_plan_tensor));
    state->dtype = PT2C_F64; // twice the bytes of its buffer
    expect_corrupt(plan, "state 0: its dims are dynamic or do not give its buffer's");
    state->dtype = PT2C_F32;
    state->buffer = 0; // the input's
    expect_corrupt(plan, "state 0: buffer 0 is not state buffer 0");
  }
  SECTION("kernel index out of range") {
    PlanBuilder builder = three_step_builder();
    builder.add_step(7, {});
    builder.num_kernels = kNumKernels;
    expect_corrupt(builder.build(), "step 3: kernel 7 is outside the " +
                                        std::to_string(kNumKernels) + "-entry kernel table");
  }
  SECTION("more kernels than the kernel table has") {
    PlanBuilder builder = three_step_builder();
    builder.num_kernels = 5;
    expect_corrupt(builder.build(),
                   "the plan uses 5 kernels, the kernel table has " + std::to_string(kNumKernels));
  }
  SECTION("arena offset out of range") {
    PlanBuilder builder = three_step_builder();
    builder.add_arena(128, kTensorBytes);
    builder.arena_size = 96;
    expect_corrupt(builder.build(), "arena bytes [128, +32) are outside the 96-byte arena");
  }
  SECTION("misaligned arena offset") {
    PlanBuilder builder = three_step_builder();
    builder.add_arena(4, kTensorBytes);
    expect_corrupt(builder.build(), "buffer 5: offset 4 is not a multiple of 64");
  }
  SECTION("input buffer larger than its dims") {
    PlanBuilder builder = three_step_builder();
    std::vector<unsigned char> plan = builder.build();
    auto *buffers = reinterpret_cast<pt2c_plan_buffer *>(plan.data() + sizeof(pt2c_plan_header) +
                                                         2 * sizeof(pt2c_plan_tensor));
    buffers[0].nbytes = 64; // x is f32 [2, 4]: 32 bytes
    expect_corrupt(plan, "input 0: buffer 0 has 64 bytes, more than the 32 its dtype and dims");
  }
  SECTION("weight offset out of range") {
    PlanBuilder builder = three_step_builder();
    builder.add_weight(UINT64_MAX - 63, kTensorBytes); // aligned; offset + nbytes overflows
    builder.weights_size = sizeof(kWeights);
    expect_corrupt(builder.build(), "are outside the 64-byte weights blob");
  }
  SECTION("weights smaller than the plan expects") {
    ModelPtr model(nullptr, pt2c_model_destroy);
    CHECK(create(good, &model, &kWeights, 16) == PT2C_ERROR_CORRUPT_MODEL);
    CHECK_THAT(last_error(), Contains("expects 32 bytes of weights, the model has 16"));
  }
  SECTION("misaligned weights") {
    ModelPtr model(nullptr, pt2c_model_destroy);
    const unsigned char *misaligned = reinterpret_cast<const unsigned char *>(&kWeights) + 4;
    CHECK(create(good, &model, misaligned, 32) == PT2C_ERROR_CORRUPT_MODEL);
    CHECK_THAT(last_error(), Contains("not 64-byte aligned"));
  }
  SECTION("step arg names a missing buffer") {
    PlanBuilder builder = three_step_builder();
    builder.add_step(kTriple, {0, 42});
    expect_corrupt(builder.build(), "step 3: arg 1 is buffer 42, outside the 5 buffers");
  }
  SECTION("tensor points at a buffer of the wrong kind") {
    PlanBuilder builder;
    builder.add_weight(0, 4);
    builder.add_input("x", PT2C_F32, {1});
    std::vector<unsigned char> plan = builder.build();
    auto *input = reinterpret_cast<pt2c_plan_tensor *>(plan.data() + sizeof(pt2c_plan_header));
    input->buffer = 0;
    expect_corrupt(plan, "input 0: buffer 0 is not input buffer 0");
  }
  SECTION("name offset outside the string table") {
    std::vector<unsigned char> plan = good;
    reinterpret_cast<pt2c_plan_tensor *>(plan.data() + sizeof(pt2c_plan_header))->name = 1000;
    expect_corrupt(plan, "input 0: name offset 1000 is outside the 4-byte string table");
  }
  SECTION("dims outside the dims table") {
    std::vector<unsigned char> plan = good;
    reinterpret_cast<pt2c_plan_tensor *>(plan.data() + sizeof(pt2c_plan_header))->rank = 5;
    expect_corrupt(plan, "input 0: dims [0, 0 + 5) are outside the 4-entry dims table");
  }
  SECTION("truncated blob") {
    for (size_t size = 0; size < good.size(); ++size) {
      std::vector<unsigned char> plan(good.begin(), good.begin() + size);
      expect_corrupt(plan, "truncated");
    }
  }
  SECTION("trailing garbage") {
    std::vector<unsigned char> plan = good;
    plan.resize(plan.size() + 16, 0);
    expect_corrupt(plan, "16 trailing bytes");
  }
  SECTION("impossible strings_size") {
    std::vector<unsigned char> plan = good;
    PlanBuilder::header_of(&plan)->strings_size = UINT64_MAX - 8;
    expect_corrupt(plan, "strings_size");
  }
}

TEST_CASE("any single corrupted byte is caught or harmless at create") {
  std::vector<unsigned char> good = three_step_builder().build();
  for (size_t at = 0; at < good.size(); ++at) {
    for (unsigned char flip : {0x01, 0x80, 0xff}) {
      std::vector<unsigned char> plan = good;
      plan[at] ^= flip;
      ModelPtr model(nullptr, pt2c_model_destroy);
      pt2c_status status = create(plan, &model);
      // OK happens for bytes nothing reads (reserved fields, padding, strings).
      CHECK((status == PT2C_OK || status == PT2C_ERROR_CORRUPT_MODEL ||
             status == PT2C_ERROR_OUT_OF_MEMORY));
    }
  }
}

TEST_CASE("buffers smaller than their kernels were compiled for are refused at create") {
  // What each kKernels entry was compiled for (pt2c_kernel_args): f32 [2, 4] buffers.
  const uint32_t first[] = {0, 3, 5, 7, 9};
  const uint64_t bytes[] = {kTensorBytes, kTensorBytes, kTensorBytes, kTensorBytes, kTensorBytes,
                            kTensorBytes, kTensorBytes, kTensorBytes, kTensorBytes};
  auto create_checked = [&](const std::vector<unsigned char> &plan) {
    pt2c_model_source source{plan.data(),      plan.size(), &kWeights,
                             sizeof(kWeights), kKernels,    kNumKernels};
    source.kernel_arg_first = first;
    source.kernel_arg_bytes = bytes;
    pt2c_model *raw = nullptr;
    pt2c_status status = pt2c_model_create_from(&source, &raw);
    pt2c_model_destroy(raw);
    return status;
  };
  CHECK(create_checked(three_step_builder().build()) == PT2C_OK);

  // An arena buffer of half the size: in bounds of the arena, but the kernel writes 32
  // bytes into it.
  PlanBuilder small;
  uint32_t x = small.add_input("x", PT2C_F32, kShape);
  uint32_t y = small.add_output("y", PT2C_F32, kShape);
  uint32_t w = small.add_weight(0, kTensorBytes);
  uint32_t tmp = small.add_arena(0, kTensorBytes / 2);
  small.add_step(kAdd, {x, w, tmp});
  small.add_step(kTriple, {tmp, y});
  CHECK(create_checked(small.build()) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK_THAT(last_error(), Contains("step 0: kernel 0 was compiled for 32 bytes in its buffer 2, "
                                    "the plan's buffer 3 has 16"));

  PlanBuilder short_step; // the add kernel given two buffers instead of three
  x = short_step.add_input("x", PT2C_F32, kShape);
  y = short_step.add_output("y", PT2C_F32, kShape);
  short_step.add_step(kTriple, {x, y});
  short_step.add_step(kAdd, {x, y});
  CHECK(create_checked(short_step.build()) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK_THAT(last_error(), Contains("step 1 passes 2 buffers, its kernel 0 takes 3"));
}

TEST_CASE("the last error belongs to the thread that failed") {
  ModelPtr model = create_ok(three_step_builder().build());
  Io io;
  io.input.dtype = PT2C_I32;
  REQUIRE(io.run(model.get()) == PT2C_ERROR_DTYPE);
  std::string other_thread_error = "unset";
  std::thread([&] { other_thread_error = pt2c_last_error(); }).join();
  CHECK(other_thread_error.empty());
  CHECK_THAT(last_error(), Contains("got i32"));
}

TEST_CASE("dtype sizes and the ABI version") {
  CHECK(pt2c_abi_version() == PT2C_ABI_VERSION);
  CHECK(pt2c_dtype_size(PT2C_F32) == 4);
  CHECK(pt2c_dtype_size(PT2C_BF16) == 2);
  CHECK(pt2c_dtype_size(PT2C_I64) == 8);
  CHECK(pt2c_dtype_size(PT2C_BOOL) == 1);
  CHECK(pt2c_dtype_size(PT2C_DTYPE_UNDEFINED) == 0);
  CHECK(pt2c_dtype_size(static_cast<pt2c_dtype>(99)) == 0);
}

TEST_CASE("guards compare a computed element with its export-time value") {
  // first = x + w lives in the arena; the guard reads its element 0: 0 + 1 = 1.
  PlanBuilder builder = three_step_builder();
  const uint32_t first_arena = 3; // x, y, w, first, second (see three_step_builder)
  builder.add_guard(first_arena, PT2C_F32, 1.0, "model.py:12: `if h[0] > 0` was True");
  ModelPtr model = create_ok(builder.build());
  Io io;
  REQUIRE(io.run(model.get()) == PT2C_OK);

  io.x[0] = 5; // element 0 of x + w is now 6: the assumption no longer holds
  CHECK(io.run(model.get()) == PT2C_ERROR_GUARD);
  CHECK_THAT(last_error(), Contains("model.py:12: `if h[0] > 0` was True"));
  CHECK_THAT(last_error(), Contains("compiled for 1, this input gives 6"));
}

TEST_CASE("guards that point outside the plan are corrupt") {
  PlanBuilder builder = three_step_builder();
  builder.add_guard(99, PT2C_F32, 1.0, "bad");
  expect_corrupt(builder.build(), "guard 0: buffer 99 is outside");
  PlanBuilder wide = three_step_builder();
  wide.add_guard(0, static_cast<pt2c_dtype>(77), 1.0, "bad");
  expect_corrupt(wide.build(), "guard 0: unknown dtype 77");
}

TEST_CASE("state buffers start from the weights and keep their updates across runs") {
  PlanBuilder builder = state_builder();
  ModelPtr model = create_ok(builder.build());
  ModelPtr other = create_ok(builder.build());
  Io io;
  for (int run = 1; run <= 3; ++run) {
    REQUIRE(io.run(model.get()) == PT2C_OK);
    for (int i = 0; i < kNumElements; ++i)
      CHECK(io.y[i] == io.x[i] + run * kWeights.w[i]);
  }
  // Each model has its own state, and the weights blob itself is never written.
  REQUIRE(io.run(other.get()) == PT2C_OK);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(io.y[i] == io.x[i] + kWeights.w[i]);
  CHECK(kWeights.w[0] == 1);
}

TEST_CASE("a run while another is in progress on the model fails with PT2C_ERROR_BUSY") {
  ModelPtr model = create_ok(blocking_plan());

  g_hold = true;
  Io first;
  pt2c_status first_status = PT2C_ERROR_INVALID_ARGUMENT;
  std::thread runner([&] { first_status = first.run(model.get()); });
  if (!wait_held(1)) { // never got there: let it go, then fail
    g_hold = false;
    runner.join();
    FAIL("the first run never reached its kernel");
  }

  // The first run is inside its kernel now: every way in is refused, and touches nothing.
  Io second;
  second.x.assign(kNumElements, 42.0f);
  CHECK(second.run(model.get()) == PT2C_ERROR_BUSY);
  CHECK_THAT(last_error(), Contains("pt2c_model_run: the model is already running") &&
                               Contains("pt2c_context_create"));
  CHECK(pt2c_model_run_method(model.get(), "forward", &second.input, 1, &second.output, 1) ==
        PT2C_ERROR_BUSY);
  CHECK_THAT(last_error(), Contains("pt2c_model_run_method:"));
  CHECK(pt2c_model_run_device(model.get(), &second.input, 1, &second.output, 1, nullptr) ==
        PT2C_ERROR_BUSY);
  CHECK(second.y == std::vector<float>(kNumElements, -1.0f));
  // Queries are not runs: they still answer.
  CHECK(pt2c_model_num_inputs(model.get()) == 1);

  g_hold = false;
  runner.join();
  CHECK(first_status == PT2C_OK);
  CHECK(first.y == first.x); // the refused runs did not disturb it
  // The flag is down again: the model runs.
  REQUIRE(second.run(model.get()) == PT2C_OK);
  CHECK(second.y == second.x);
}

TEST_CASE("a failed run leaves the model free for the next") {
  ModelPtr model = create_ok(three_step_builder().build());
  Io io;
  CHECK(pt2c_model_run(model.get(), &io.input, 0, &io.output, 1) == PT2C_ERROR_INPUT_COUNT);
  io.input.dtype = PT2C_I32;
  CHECK(io.run(model.get()) == PT2C_ERROR_DTYPE);
  io.input.dtype = PT2C_F32;
  CHECK(pt2c_model_run_method(model.get(), "nope", &io.input, 1, &io.output, 1) ==
        PT2C_ERROR_NO_MATCHING_GRAPH);
  CHECK(pt2c_model_run_device(model.get(), &io.input, 1, &io.output, 1, nullptr) ==
        PT2C_ERROR_UNSUPPORTED); // a CPU model
  REQUIRE(io.run(model.get()) == PT2C_OK);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(io.y[i] == (io.x[i] + 2 * kWeights.w[i]) * 3);
}

TEST_CASE("two threads hammering one model get right outputs or PT2C_ERROR_BUSY, never garbage") {
  ModelPtr model = create_ok(three_step_builder().build());
  constexpr int kRuns = 20000;
  std::atomic<int> busy{0}, wrong{0}, other{0}, ready{0};
  auto hammer = [&](float base) {
    Io io;
    for (int i = 0; i < kNumElements; ++i)
      io.x[i] = base + i;
    ++ready;
    while (ready.load() < 2)
      std::this_thread::yield(); // start together
    // At least kRuns each, and on until some run was refused (on a loaded machine the
    // threads may take turns for a while), within a deadline.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (int r = 0; (r < kRuns || busy.load() == 0) && std::chrono::steady_clock::now() < deadline;
         ++r) {
      std::fill(io.y.begin(), io.y.end(), -1.0f);
      pt2c_status status = io.run(model.get());
      if (status == PT2C_ERROR_BUSY) {
        ++busy;
        continue;
      }
      if (status != PT2C_OK) {
        ++other;
        continue;
      }
      for (int i = 0; i < kNumElements; ++i)
        if (io.y[i] != (io.x[i] + 2 * kWeights.w[i]) * 3) {
          ++wrong;
          break;
        }
    }
  };
  std::thread a(hammer, 100.0f), b(hammer, 1000.0f);
  a.join();
  b.join();
  CHECK(wrong.load() == 0);
  CHECK(other.load() == 0);
  CHECK(busy.load() > 0); // the runs did overlap, and were refused
}

// ---- execution contexts (pt2c.h) ----------------------------------------------------

using ContextPtr = std::unique_ptr<pt2c_context, void (*)(pt2c_context *)>;

ContextPtr create_context(pt2c_model *model) {
  pt2c_context *raw = nullptr;
  pt2c_status status = pt2c_context_create(model, &raw);
  INFO(last_error());
  REQUIRE(status == PT2C_OK);
  return ContextPtr(raw, pt2c_context_destroy);
}

TEST_CASE("contexts share the model's weights and each has its own state") {
  ModelPtr model = create_ok(state_builder().build());
  Io io;
  REQUIRE(io.run(model.get()) == PT2C_OK); // the model's state moves on first
  ContextPtr a = create_context(model.get());
  ContextPtr b = create_context(model.get());
  // the weights are the model's: a context does not copy them
  CHECK(a.get() != nullptr);
  auto run = [&](pt2c_context *context) {
    return pt2c_context_run(context, &io.input, 1, &io.output, 1);
  };
  // each context starts from the compiled state and keeps its own updates
  for (int r = 1; r <= 3; ++r) {
    REQUIRE(run(a.get()) == PT2C_OK);
    for (int i = 0; i < kNumElements; ++i)
      CHECK(io.y[i] == io.x[i] + r * kWeights.w[i]);
  }
  REQUIRE(run(b.get()) == PT2C_OK);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(io.y[i] == io.x[i] + kWeights.w[i]);
  REQUIRE(io.run(model.get()) == PT2C_OK); // the model's own second run
  for (int i = 0; i < kNumElements; ++i)
    CHECK(io.y[i] == io.x[i] + 2 * kWeights.w[i]);
  // a context of a context is one more context of the model
  ContextPtr c = create_context(reinterpret_cast<pt2c_model *>(model.get()));
  REQUIRE(run(c.get()) == PT2C_OK);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(io.y[i] == io.x[i] + kWeights.w[i]);
  // input checks are the model's
  CHECK(pt2c_context_run(a.get(), &io.input, 0, &io.output, 1) == PT2C_ERROR_INPUT_COUNT);
  CHECK_THAT(last_error(), Contains("expected 1 input, got 0"));
  CHECK(pt2c_context_run_method(a.get(), "nope", &io.input, 1, &io.output, 1) ==
        PT2C_ERROR_NO_MATCHING_GRAPH);
  CHECK(kWeights.w[0] == 1);
}

TEST_CASE("contexts of one model run at the same time; one context runs one call at a time") {
  ModelPtr model = create_ok(blocking_plan());
  ContextPtr held = create_context(model.get());
  ContextPtr other = create_context(model.get());

  g_hold = true;
  Io first;
  pt2c_status first_status = PT2C_ERROR_INVALID_ARGUMENT;
  std::thread runner(
      [&] { first_status = pt2c_context_run(held.get(), &first.input, 1, &first.output, 1); });
  if (!wait_held(1)) {
    g_hold = false;
    runner.join();
    FAIL("the first run never reached its kernel");
  }
  // While `held` is inside its kernel: the same context is busy...
  Io second;
  second.x.assign(kNumElements, 42.0f);
  CHECK(pt2c_context_run(held.get(), &second.input, 1, &second.output, 1) == PT2C_ERROR_BUSY);
  CHECK_THAT(last_error(), Contains("pt2c_context_run: the model is already running"));
  CHECK(second.y == std::vector<float>(kNumElements, -1.0f));
  // ...and another context, and the model itself, run to completion beside it (they
  // would wait in the blocking kernel too: release it from here once both are in).
  Io third, fourth;
  third.x.assign(kNumElements, 7.0f);
  fourth.x.assign(kNumElements, 9.0f);
  pt2c_status third_status = PT2C_ERROR_INVALID_ARGUMENT, fourth_status = third_status;
  std::thread beside(
      [&] { third_status = pt2c_context_run(other.get(), &third.input, 1, &third.output, 1); });
  std::thread model_run([&] { fourth_status = fourth.run(model.get()); });
  CHECK(wait_held(3)); // three runs inside the kernel at once
  g_hold = false;
  runner.join();
  beside.join();
  model_run.join();
  CHECK(first_status == PT2C_OK);
  CHECK(first.y == first.x);
  CHECK(third_status == PT2C_OK);
  CHECK(third.y == third.x);
  CHECK(fourth_status == PT2C_OK);
  CHECK(fourth.y == fourth.x);
}

TEST_CASE("context calls refuse null arguments") {
  ModelPtr model = create_ok(three_step_builder().build());
  pt2c_context *context = reinterpret_cast<pt2c_context *>(1);
  CHECK(pt2c_context_create(nullptr, &context) == PT2C_ERROR_INVALID_ARGUMENT);
  CHECK(context == nullptr);
  CHECK(pt2c_context_create(model.get(), nullptr) == PT2C_ERROR_INVALID_ARGUMENT);
  Io io;
  CHECK(pt2c_context_run(nullptr, &io.input, 1, &io.output, 1) == PT2C_ERROR_INVALID_ARGUMENT);
  CHECK(pt2c_context_run_method(nullptr, nullptr, &io.input, 1, &io.output, 1) ==
        PT2C_ERROR_INVALID_ARGUMENT);
  pt2c_context_destroy(nullptr); // a no-op
}
