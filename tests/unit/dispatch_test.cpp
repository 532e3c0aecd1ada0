// Plan sets against hand-built graphs: dispatch by presence, dtype and method, the ABI's
// graph queries, the no-match message, state shared between graphs, corrupt sets, one
// run at a time per model whatever the graph.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "compiler/codegen/PlanSetWriter.h"
#include "pt2c/pt2c.h"
#include "runtime/src/model.h"
#include "tests/unit/plan_builder.h"

using Catch::Matchers::Contains;
using pt2c::PlanSetGraph;
using pt2c::testing::PlanBuilder;

namespace {

constexpr int kNumElements = 8; // every tensor here is [2, 4]
const std::vector<int64_t> kShape = {2, 4};

void add_f32(void *const *b, const int64_t *) {
  for (int i = 0; i < kNumElements; ++i)
    static_cast<float *>(b[2])[i] =
        static_cast<const float *>(b[0])[i] + static_cast<const float *>(b[1])[i];
}
void double_f32(void *const *b, const int64_t *) {
  for (int i = 0; i < kNumElements; ++i)
    static_cast<float *>(b[1])[i] = 2 * static_cast<const float *>(b[0])[i];
}
void negate_i64(void *const *b, const int64_t *) {
  for (int i = 0; i < kNumElements; ++i)
    static_cast<int64_t *>(b[1])[i] = -static_cast<const int64_t *>(b[0])[i];
}
// buffers: state, out: state += 1, out = state
void bump_state(void *const *b, const int64_t *) {
  for (int i = 0; i < kNumElements; ++i)
    static_cast<float *>(b[1])[i] = ++static_cast<float *>(b[0])[i];
}
// buffers: state, out: out = state
void read_state(void *const *b, const int64_t *) {
  std::memcpy(b[1], b[0], kNumElements * sizeof(float));
}

// While g_hold is set, a run of held_double waits inside the kernel.
std::atomic<bool> g_hold{false};
std::atomic<int> g_held{0};
void held_double(void *const *b, const int64_t *syms) {
  ++g_held;
  while (g_hold.load())
    std::this_thread::yield();
  --g_held;
  double_f32(b, syms);
}

// x [n, 4] -> -x, n the plan's symbol 0 (a dynamic graph's kernel).
void negate_rows(void *const *b, const int64_t *syms) {
  for (int64_t i = 0; i < syms[0] * 4; ++i)
    static_cast<float *>(b[1])[i] = -static_cast<const float *>(b[0])[i];
}
// x [1, 4] -> 3x.
void triple_row(void *const *b, const int64_t *) {
  for (int i = 0; i < 4; ++i)
    static_cast<float *>(b[1])[i] = 3 * static_cast<const float *>(b[0])[i];
}

// The shared kernel table; each graph's plan uses its kernel as its kernel 0.
enum Kernel : uint32_t {
  kAdd,
  kDouble,
  kNegate,
  kBump,
  kRead,
  kHeldDouble,
  kNegateRows,
  kTripleRow,
  kNumKernels
};
const pt2c_kernel_fn kKernels[kNumKernels] = {add_f32,    double_f32,  negate_i64,  bump_state,
                                              read_state, held_double, negate_rows, triple_row};

struct alignas(64) Weights {
  float w[kNumElements] = {1, 2, 3, 4, 5, 6, 7, 8};
};
const Weights kWeights;

// out = kernel(inputs...) with one [2, 4] input per dtype given.
std::string one_step_plan(const std::vector<pt2c_dtype> &inputs, pt2c_dtype out) {
  PlanBuilder plan;
  std::vector<uint32_t> args;
  const char *names[] = {"x", "y"};
  for (size_t i = 0; i < inputs.size(); ++i)
    args.push_back(plan.add_input(names[i], inputs[i], kShape));
  args.push_back(plan.add_output("out", out, kShape));
  plan.add_step(0, args);
  std::vector<unsigned char> blob = plan.build();
  return std::string(blob.begin(), blob.end());
}

// state at weights offset 0; `kernel` (bump or read) writes it to the output.
std::string state_plan() {
  PlanBuilder plan;
  plan.weights_size = sizeof(Weights);
  uint32_t state = plan.add_state("count", PT2C_F32, kShape, 0);
  uint32_t out = plan.add_output("out", PT2C_F32, kShape);
  plan.add_step(0, {state, out});
  std::vector<unsigned char> blob = plan.build();
  return std::string(blob.begin(), blob.end());
}

PlanSetGraph graph(const std::string &name, const std::string &method,
                   std::vector<PlanSetGraph::Slot> slots, uint32_t kernel, std::string plan) {
  PlanSetGraph g;
  g.name = name;
  g.method = method;
  g.slots = std::move(slots);
  g.firstKernel = kernel;
  g.plan = std::move(plan);
  return g;
}

// forward(x, y=None) with both, with y absent, and with an i64 x; encode(x).
std::vector<PlanSetGraph> four_graphs() {
  return {
      graph("both", "forward", {{"x", 0}, {"y", 1}}, kAdd,
            one_step_plan({PT2C_F32, PT2C_F32}, PT2C_F32)),
      graph("x_only", "forward", {{"x", 0}, {"y", -1}}, kDouble,
            one_step_plan({PT2C_F32}, PT2C_F32)),
      graph("ints", "forward", {{"x", 0}, {"y", -1}}, kNegate, one_step_plan({PT2C_I64}, PT2C_I64)),
      graph("encode", "encode", {{"x", 0}}, kDouble, one_step_plan({PT2C_F32}, PT2C_F32))};
}

using ModelPtr = std::unique_ptr<pt2c_model, void (*)(pt2c_model *)>;

std::string last_error() { return pt2c_last_error(); }

pt2c_status create(const std::string &set, ModelPtr *model) {
  pt2c_model_source source{set.data(),       set.size(), &kWeights,
                           sizeof(kWeights), kKernels,   kNumKernels};
  pt2c_model *raw = nullptr;
  pt2c_status status = pt2c_model_create_from(&source, &raw);
  model->reset(raw);
  return status;
}

ModelPtr create_ok(const std::vector<PlanSetGraph> &graphs) {
  ModelPtr model(nullptr, pt2c_model_destroy);
  pt2c_status status = create(pt2c::serializePlanSet(graphs), &model);
  INFO(last_error());
  REQUIRE(status == PT2C_OK);
  return model;
}

template <typename T> struct Tensor {
  std::vector<T> data;
  std::vector<int64_t> dims = kShape;
  pt2c_dtype dtype;
  Tensor(pt2c_dtype dtype, T first) : data(kNumElements), dtype(dtype) {
    for (int i = 0; i < kNumElements; ++i)
      data[i] = first + i;
  }
  pt2c_tensor view() { return {data.data(), dtype, 2, dims.data()}; }
};

} // namespace

TEST_CASE("dispatch picks the graph by presence, dtype and method") {
  ModelPtr model = create_ok(four_graphs());
  Tensor<float> x(PT2C_F32, 1), y(PT2C_F32, 10), out(PT2C_F32, 0);
  Tensor<int64_t> xi(PT2C_I64, 3), outi(PT2C_I64, 0);
  pt2c_tensor o = out.view(), oi = outi.view();

  SECTION("both inputs: x + y") {
    std::vector<pt2c_tensor> in = {x.view(), y.view()};
    REQUIRE(pt2c_model_run(model.get(), in.data(), 2, &o, 1) == PT2C_OK);
    CHECK(out.data[3] == x.data[3] + y.data[3]);
    int32_t g = -1;
    REQUIRE(pt2c_model_find_graph(model.get(), nullptr, in.data(), 2, &g) == PT2C_OK);
    CHECK(g == 0);
  }
  SECTION("y absent, passed as a zeroed tensor or left out: 2 * x") {
    pt2c_tensor in[2] = {x.view(), pt2c_tensor{}};
    REQUIRE(pt2c_model_run(model.get(), in, 2, &o, 1) == PT2C_OK);
    CHECK(out.data[5] == 2 * x.data[5]);
    std::fill(out.data.begin(), out.data.end(), 0.0f);
    REQUIRE(pt2c_model_run(model.get(), in, 1, &o, 1) == PT2C_OK);
    CHECK(out.data[5] == 2 * x.data[5]);
  }
  SECTION("an i64 x selects the i64 graph") {
    pt2c_tensor in = xi.view();
    REQUIRE(pt2c_model_run(model.get(), &in, 1, &oi, 1) == PT2C_OK);
    CHECK(outi.data[2] == -xi.data[2]);
  }
  SECTION("a named method, and a graph by its name") {
    pt2c_tensor in = x.view();
    REQUIRE(pt2c_model_run_method(model.get(), "encode", &in, 1, &o, 1) == PT2C_OK);
    CHECK(out.data[7] == 2 * x.data[7]);
    pt2c_tensor both[2] = {x.view(), y.view()};
    REQUIRE(pt2c_model_run_method(model.get(), "both", both, 2, &o, 1) == PT2C_OK);
    CHECK(out.data[7] == x.data[7] + y.data[7]);
    int32_t g = -1;
    REQUIRE(pt2c_model_find_graph(model.get(), "encode", &in, 1, &g) == PT2C_OK);
    CHECK(g == 3);
  }
}

TEST_CASE("the model describes its graphs") {
  ModelPtr model = create_ok(four_graphs());
  REQUIRE(pt2c_model_num_graphs(model.get()) == 4);
  pt2c_graph_info info;
  REQUIRE(pt2c_model_graph_info(model.get(), 3, &info) == PT2C_OK);
  CHECK(std::string(info.name) == "encode");
  CHECK(std::string(info.method) == "encode");
  CHECK(info.num_inputs == 1);
  CHECK(info.num_outputs == 1);
  // Graph 0's slots are the model's inputs.
  CHECK(pt2c_model_num_inputs(model.get()) == 2);
  pt2c_tensor_info t;
  REQUIRE(pt2c_model_graph_input_info(model.get(), 1, 1, &t) == PT2C_OK);
  CHECK(std::string(t.name) == "y");
  CHECK(t.dtype == PT2C_DTYPE_UNDEFINED);
  CHECK(t.rank == 0);
  REQUIRE(pt2c_model_graph_input_info(model.get(), 2, 0, &t) == PT2C_OK);
  CHECK(t.dtype == PT2C_I64);
  REQUIRE(pt2c_model_graph_output_info(model.get(), 2, 0, &t) == PT2C_OK);
  CHECK(t.dtype == PT2C_I64);
  CHECK(pt2c_model_graph_info(model.get(), 4, &info) == PT2C_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(last_error(), Contains("graph 4 is out of range [0, 4)"));
  CHECK(pt2c_model_num_graphs(nullptr) == -1);
}

TEST_CASE("a lone plan is one graph, forward") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  std::string plan = one_step_plan({PT2C_F32}, PT2C_F32);
  pt2c_model_source source{plan.data(),      plan.size(),        &kWeights,
                           sizeof(kWeights), kKernels + kDouble, 1};
  pt2c_model *raw = nullptr;
  REQUIRE(pt2c_model_create_from(&source, &raw) == PT2C_OK);
  model.reset(raw);
  CHECK(pt2c_model_num_graphs(model.get()) == 1);
  pt2c_graph_info info;
  REQUIRE(pt2c_model_graph_info(model.get(), 0, &info) == PT2C_OK);
  CHECK(std::string(info.name) == "forward");
  Tensor<float> x(PT2C_F32, 1), out(PT2C_F32, 0);
  pt2c_tensor in = x.view(), o = out.view();
  REQUIRE(pt2c_model_run_method(model.get(), "forward", &in, 1, &o, 1) == PT2C_OK);
  CHECK(out.data[1] == 2 * x.data[1]);
  CHECK(pt2c_model_run_method(model.get(), "encode", &in, 1, &o, 1) ==
        PT2C_ERROR_NO_MATCHING_GRAPH);
  CHECK_THAT(last_error(), Contains("no method or graph named 'encode'; it has: forward"));
}

TEST_CASE("no matching graph: an error that lists the method's signatures") {
  ModelPtr model = create_ok(four_graphs());
  Tensor<double> x64(PT2C_F64, 0);
  Tensor<float> x(PT2C_F32, 1), out(PT2C_F32, 0);
  pt2c_tensor o = out.view();
  pt2c_tensor in[2] = {x64.view(), pt2c_tensor{}};
  CHECK(pt2c_model_run(model.get(), in, 2, &o, 1) == PT2C_ERROR_NO_MATCHING_GRAPH);
  CHECK_THAT(last_error(),
             Contains("no graph of method 'forward' takes the inputs (0: f64[2, 4], 1: none); "
                      "its signatures: both(x: f32[2, 4], y: f32[2, 4]), "
                      "x_only(x: f32[2, 4], y: none), ints(x: i64[2, 4], y: none)"));
  CHECK(pt2c_model_run_method(model.get(), "decode", in, 1, &o, 1) == PT2C_ERROR_NO_MATCHING_GRAPH);
  CHECK_THAT(last_error(), Contains("no method or graph named 'decode'"));
  // A method with one graph: the run's own checks say what differs.
  pt2c_tensor two[2] = {x.view(), x.view()};
  CHECK(pt2c_model_run_method(model.get(), "encode", two, 2, &o, 1) == PT2C_ERROR_INPUT_COUNT);
  CHECK_THAT(last_error(), Contains("expected 1 input, got 2"));
  pt2c_tensor wrong = x64.view();
  CHECK(pt2c_model_run_method(model.get(), "encode", &wrong, 1, &o, 1) == PT2C_ERROR_DTYPE);
  CHECK_THAT(last_error(), Contains("expected dtype f32, got f64"));
}

TEST_CASE("a module buffer written in place is one state for all graphs") {
  ModelPtr model = create_ok({graph("bump", "forward", {}, kBump, state_plan()),
                              graph("read", "read", {}, kRead, state_plan())});
  Tensor<float> out(PT2C_F32, 0);
  pt2c_tensor o = out.view();
  REQUIRE(pt2c_model_run(model.get(), nullptr, 0, &o, 1) == PT2C_OK);
  REQUIRE(pt2c_model_run(model.get(), nullptr, 0, &o, 1) == PT2C_OK);
  std::fill(out.data.begin(), out.data.end(), 0.0f);
  REQUIRE(pt2c_model_run_method(model.get(), "read", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data[4] == kWeights.w[4] + 2);
}

TEST_CASE("a context of a plan set shares state between its graphs, not with the model") {
  ModelPtr model = create_ok({graph("bump", "forward", {}, kBump, state_plan()),
                              graph("read", "read", {}, kRead, state_plan())});
  pt2c_context *raw = nullptr;
  REQUIRE(pt2c_context_create(model.get(), &raw) == PT2C_OK);
  std::unique_ptr<pt2c_context, void (*)(pt2c_context *)> context(raw, pt2c_context_destroy);
  Tensor<float> out(PT2C_F32, 0);
  pt2c_tensor o = out.view();
  REQUIRE(pt2c_context_run(context.get(), nullptr, 0, &o, 1) == PT2C_OK); // bump
  REQUIRE(pt2c_context_run(context.get(), nullptr, 0, &o, 1) == PT2C_OK); // bump
  REQUIRE(pt2c_context_run_method(context.get(), "read", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data[4] == kWeights.w[4] + 2); // the context's graphs share one state
  REQUIRE(pt2c_model_run_method(model.get(), "read", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data[4] == kWeights.w[4]); // the model's state is its own
  REQUIRE(pt2c_model_run(model.get(), nullptr, 0, &o, 1) == PT2C_OK);
  REQUIRE(pt2c_context_run_method(context.get(), "read", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data[4] == kWeights.w[4] + 2);
  CHECK(pt2c_context_run_method(context.get(), "nope", nullptr, 0, &o, 1) ==
        PT2C_ERROR_NO_MATCHING_GRAPH);
}

TEST_CASE("corrupt plan sets are rejected with a message") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  SECTION("a slot binds an input the plan lacks") {
    auto graphs = four_graphs();
    graphs[1].slots[0].input = 3;
    CHECK(create(pt2c::serializePlanSet(graphs), &model) == PT2C_ERROR_CORRUPT_MODEL);
    CHECK_THAT(last_error(), Contains("graph 1: slot 0 binds input 3 of 1"));
  }
  SECTION("an input no slot binds") {
    auto graphs = four_graphs();
    graphs[0].slots[1].input = -1;
    CHECK(create(pt2c::serializePlanSet(graphs), &model) == PT2C_ERROR_CORRUPT_MODEL);
    CHECK_THAT(last_error(), Contains("graph 0: no slot binds its input 1"));
  }
  SECTION("a graph's plan is itself corrupt") {
    auto graphs = four_graphs();
    graphs[2].plan[8] = 99; // the plan version
    CHECK(create(pt2c::serializePlanSet(graphs), &model) == PT2C_ERROR_CORRUPT_MODEL);
    CHECK_THAT(last_error(), Contains("graph 'ints': corrupt plan: plan version 99"));
  }
  SECTION("a kernel table too short for a graph") {
    auto graphs = four_graphs();
    graphs[3].firstKernel = kNumKernels;
    CHECK(create(pt2c::serializePlanSet(graphs), &model) == PT2C_ERROR_CORRUPT_MODEL);
    CHECK_THAT(last_error(), Contains("graph 'encode'"));
  }
  SECTION("truncated or of another version") {
    std::string set = pt2c::serializePlanSet(four_graphs());
    CHECK(create(set.substr(0, 40), &model) == PT2C_ERROR_CORRUPT_MODEL);
    set[8] = 7;
    CHECK(create(set, &model) == PT2C_ERROR_CORRUPT_MODEL);
    CHECK_THAT(last_error(), Contains("version 7"));
  }
  CHECK(model == nullptr);
}

TEST_CASE("a plan set runs one call at a time, whichever graphs the calls pick") {
  // encode(x) waits in its kernel; forward(x) picks another graph of the same model.
  ModelPtr model = create_ok(
      {graph("x_only", "forward", {{"x", 0}}, kDouble, one_step_plan({PT2C_F32}, PT2C_F32)),
       graph("encode", "encode", {{"x", 0}}, kHeldDouble, one_step_plan({PT2C_F32}, PT2C_F32))});
  g_hold = true;
  Tensor<float> x(PT2C_F32, 1), encoded(PT2C_F32, 0);
  pt2c_tensor in = x.view(), out = encoded.view();
  pt2c_status encode_status = PT2C_ERROR_INVALID_ARGUMENT;
  std::thread runner(
      [&] { encode_status = pt2c_model_run_method(model.get(), "encode", &in, 1, &out, 1); });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (g_held.load() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  if (g_held.load() != 1) {
    g_hold = false;
    runner.join();
    FAIL("the encode run never reached its kernel");
  }

  Tensor<float> y(PT2C_F32, 0);
  pt2c_tensor x_in = x.view(), y_out = y.view();
  CHECK(pt2c_model_run(model.get(), &x_in, 1, &y_out, 1) == PT2C_ERROR_BUSY);
  CHECK_THAT(last_error(), Contains("pt2c_model_run: the model is already running"));
  CHECK(pt2c_model_run_method(model.get(), "encode", &x_in, 1, &y_out, 1) == PT2C_ERROR_BUSY);
  int32_t picked = -1; // finding a graph is a query, not a run
  CHECK(pt2c_model_find_graph(model.get(), nullptr, &x_in, 1, &picked) == PT2C_OK);
  CHECK(picked == 0);

  g_hold = false;
  runner.join();
  CHECK(encode_status == PT2C_OK);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(encoded.data[i] == 2 * x.data[i]);
  REQUIRE(pt2c_model_run(model.get(), &x_in, 1, &y_out, 1) == PT2C_OK);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(y.data[i] == 2 * x.data[i]);
}

// forward(x): "prefill" for x [n, 4] with n in 2..8 (dynamic), "decode" for x [1, 4].
std::vector<PlanSetGraph> prefill_and_decode() {
  PlanBuilder prefill;
  int64_t n = prefill.add_size_code({PT2C_SYM_SYMBOL, 0});
  uint32_t x = prefill.add_input("x", PT2C_F32, {n, 4});
  uint32_t y = prefill.add_output("y", PT2C_F32, {n, 4});
  prefill.add_sym("n", 0, 0, 2, 8);
  prefill.add_step(0, {x, y});
  std::vector<unsigned char> blob = prefill.build();
  PlanBuilder decode;
  decode.add_step(
      0, {decode.add_input("x", PT2C_F32, {1, 4}), decode.add_output("y", PT2C_F32, {1, 4})});
  std::vector<unsigned char> decode_blob = decode.build();
  return {
      graph("prefill", "forward", {{"x", 0}}, kNegateRows, std::string(blob.begin(), blob.end())),
      graph("decode", "forward", {{"x", 0}}, kTripleRow,
            std::string(decode_blob.begin(), decode_blob.end()))};
}

TEST_CASE("a graph with dynamic dims is picked by its ranges; the sizes it gives follow them") {
  ModelPtr model = create_ok(prefill_and_decode());
  for (int64_t rows : {1, 2, 5, 8}) {
    std::vector<float> x(rows * 4), y(rows * 4, 0.0f);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(i + 1);
    std::vector<int64_t> dims = {rows, 4}, out_dims(2, -7);
    pt2c_tensor in{x.data(), PT2C_F32, 2, dims.data()};
    int32_t g = -1;
    REQUIRE(pt2c_model_find_graph(model.get(), nullptr, &in, 1, &g) == PT2C_OK);
    CHECK(g == (rows == 1 ? 1 : 0));
    REQUIRE(pt2c_model_graph_output_shape(model.get(), g, &in, 1, 0, out_dims.data()) == PT2C_OK);
    CHECK(out_dims == dims);
    out_dims.assign(2, -7);
    REQUIRE(pt2c_model_output_shape(model.get(), &in, 1, 0, out_dims.data()) == PT2C_OK);
    CHECK(out_dims == dims);
    pt2c_tensor out{y.data(), PT2C_F32, 2, out_dims.data()};
    REQUIRE(pt2c_model_run(model.get(), &in, 1, &out, 1) == PT2C_OK);
    for (size_t i = 0; i < x.size(); ++i)
      CHECK(y[i] == (rows == 1 ? 3 : -1) * x[i]);
  }
  // Outside every graph's sizes: the message shows the dynamic dim by name and range.
  std::vector<float> x(9 * 4), y(9 * 4);
  std::vector<int64_t> dims = {9, 4}, out_dims(2);
  pt2c_tensor in{x.data(), PT2C_F32, 2, dims.data()}, out{y.data(), PT2C_F32, 2, dims.data()};
  CHECK(pt2c_model_run(model.get(), &in, 1, &out, 1) == PT2C_ERROR_NO_MATCHING_GRAPH);
  CHECK_THAT(last_error(),
             Contains("its signatures: prefill(x: f32[n 2..8, 4]), decode(x: f32[1, 4])"));
  CHECK(pt2c_model_output_shape(model.get(), &in, 1, 0, out_dims.data()) ==
        PT2C_ERROR_NO_MATCHING_GRAPH);
  // Naming a graph whose range the inputs leave: the run's own range check.
  CHECK(pt2c_model_graph_output_shape(model.get(), 0, &in, 1, 0, out_dims.data()) ==
        PT2C_ERROR_SHAPE);
  CHECK_THAT(last_error(), Contains("dynamic dimension 'n' must lie in [2, 8]"));
  CHECK(pt2c_model_graph_output_shape(model.get(), 2, &in, 1, 0, out_dims.data()) ==
        PT2C_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("reset_state puts the state of every graph back to its initial values") {
  // Two graphs share one state buffer: "bump" adds 1 and returns it, "read" returns it.
  ModelPtr model = create_ok({graph("bump", "bump", {}, kBump, state_plan()),
                              graph("read", "read", {}, kRead, state_plan())});
  Tensor<float> out(PT2C_F32, 0);
  pt2c_tensor o = out.view();
  for (int r = 0; r < 3; ++r)
    REQUIRE(pt2c_model_run_method(model.get(), "bump", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data[0] == kWeights.w[0] + 3);
  REQUIRE(pt2c_model_reset_state(model.get()) == PT2C_OK);
  REQUIRE(pt2c_model_run_method(model.get(), "read", nullptr, 0, &o, 1) == PT2C_OK);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(out.data[i] == kWeights.w[i]);
  REQUIRE(pt2c_model_run_method(model.get(), "bump", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data[0] == kWeights.w[0] + 1);

  // A context's state is its own: resetting it leaves the model's alone.
  pt2c_context *context = nullptr;
  REQUIRE(pt2c_context_create(model.get(), &context) == PT2C_OK);
  REQUIRE(pt2c_context_run_method(context, "bump", nullptr, 0, &o, 1) == PT2C_OK);
  REQUIRE(pt2c_context_run_method(context, "bump", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data[0] == kWeights.w[0] + 2);
  REQUIRE(pt2c_context_reset_state(context) == PT2C_OK);
  REQUIRE(pt2c_context_run_method(context, "read", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data[0] == kWeights.w[0]);
  REQUIRE(pt2c_model_run_method(model.get(), "read", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data[0] == kWeights.w[0] + 1);
  pt2c_context_destroy(context);

  CHECK(pt2c_model_reset_state(nullptr) == PT2C_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(last_error(), Contains("pt2c_model_reset_state: model is null"));
  CHECK(pt2c_context_reset_state(nullptr) == PT2C_ERROR_INVALID_ARGUMENT);
  // A model without state: nothing to do.
  ModelPtr stateless = create_ok(four_graphs());
  CHECK(pt2c_model_reset_state(stateless.get()) == PT2C_OK);
}

TEST_CASE("state is read and written by name, its sizes checked") {
  // Both graphs use the state "count": the model has it once.
  ModelPtr model = create_ok({graph("bump", "bump", {}, kBump, state_plan()),
                              graph("read", "read", {}, kRead, state_plan())});
  REQUIRE(pt2c_model_num_states(model.get()) == 1);
  pt2c_tensor_info info;
  REQUIRE(pt2c_model_state_info(model.get(), 0, &info) == PT2C_OK);
  CHECK(std::string(info.name) == "count");
  CHECK(info.dtype == PT2C_F32);
  CHECK(std::vector<int64_t>(info.dims, info.dims + info.rank) == kShape);

  Tensor<float> out(PT2C_F32, 0), saved(PT2C_F32, 0), value(PT2C_F32, 100);
  pt2c_tensor o = out.view(), s = saved.view(), v = value.view();
  REQUIRE(pt2c_model_run_method(model.get(), "bump", nullptr, 0, &o, 1) == PT2C_OK);
  REQUIRE(pt2c_model_read_state(model.get(), 0, &s) == PT2C_OK);
  for (int i = 0; i < kNumElements; ++i)
    CHECK(saved.data[i] == kWeights.w[i] + 1);
  // A written state is what every graph reads next.
  REQUIRE(pt2c_model_write_state(model.get(), 0, &v) == PT2C_OK);
  REQUIRE(pt2c_model_run_method(model.get(), "read", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data == value.data);
  REQUIRE(pt2c_model_run_method(model.get(), "bump", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data[0] == value.data[0] + 1);
  // The saved state restored.
  REQUIRE(pt2c_model_write_state(model.get(), 0, &s) == PT2C_OK);
  REQUIRE(pt2c_model_run_method(model.get(), "read", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data == saved.data);

  // Wrong sizes, dtype or index: an error, nothing copied.
  std::vector<float> bigger(12, -1.0f);
  std::vector<int64_t> bigger_dims = {3, 4};
  pt2c_tensor wrong{bigger.data(), PT2C_F32, 2, bigger_dims.data()};
  CHECK(pt2c_model_write_state(model.get(), 0, &wrong) == PT2C_ERROR_SHAPE);
  CHECK_THAT(last_error(), Contains("state 0 ('count'): expected shape [2, 4], got [3, 4]"));
  Tensor<int64_t> ints(PT2C_I64, 0);
  pt2c_tensor i = ints.view();
  CHECK(pt2c_model_read_state(model.get(), 0, &i) == PT2C_ERROR_DTYPE);
  CHECK(pt2c_model_write_state(model.get(), 1, &v) == PT2C_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(last_error(), Contains("pt2c_model_write_state: state 1 is out of range [0, 1)"));
  CHECK(pt2c_model_read_state(model.get(), 0, nullptr) == PT2C_ERROR_INVALID_ARGUMENT);
  REQUIRE(pt2c_model_run_method(model.get(), "read", nullptr, 0, &o, 1) == PT2C_OK);
  CHECK(out.data == saved.data);

  // A context's state is its own.
  pt2c_context *context = nullptr;
  REQUIRE(pt2c_context_create(model.get(), &context) == PT2C_OK);
  REQUIRE(pt2c_context_write_state(context, 0, &v) == PT2C_OK);
  REQUIRE(pt2c_context_read_state(context, 0, &o) == PT2C_OK);
  CHECK(out.data == value.data);
  REQUIRE(pt2c_model_read_state(model.get(), 0, &o) == PT2C_OK);
  CHECK(out.data == saved.data);
  pt2c_context_destroy(context);
  CHECK(pt2c_context_read_state(nullptr, 0, &o) == PT2C_ERROR_INVALID_ARGUMENT);
  CHECK(pt2c_model_num_states(nullptr) == -1);
}
