// Plans with dynamic dimensions (plan_format.h, "Symbolic sizes"): binding the symbols
// from the inputs, sizes computed by the size code, range and shape errors, the ABI that
// describes them, and corrupt size code.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pt2c/pt2c.h"
#include "runtime/src/model.h"
#include "tests/unit/plan_builder.h"

using Catch::Matchers::Contains;
using pt2c::testing::PlanBuilder;

namespace {

int64_t g_seen_n = -1;

// x [n, 4] -> y [2n, 2]: the same elements doubled; n is symbol 0.
void double_kernel(void *const *buffers, const int64_t *sym_values) {
  g_seen_n = sym_values[0];
  const float *x = static_cast<const float *>(buffers[0]);
  float *y = static_cast<float *>(buffers[1]);
  for (int64_t i = 0; i < sym_values[0] * 4; ++i)
    y[i] = 2 * x[i];
}
const pt2c_kernel_fn kKernels[] = {double_kernel};

struct Plan {
  PlanBuilder builder;
  int64_t n = 0;
  Plan() {
    n = builder.add_size_code({PT2C_SYM_SYMBOL, 0});
    int64_t two_n =
        builder.add_size_code({PT2C_SYM_SYMBOL, 0, PT2C_SYM_CONSTANT, 2, PT2C_SYM_MUL, 0});
    uint32_t x = builder.add_input("x", PT2C_F32, {n, 4});
    uint32_t y = builder.add_output("y", PT2C_F32, {two_n, 2});
    builder.add_sym("n", 0, 0, 1, 8);
    builder.add_step(0, {x, y});
  }
};

using ModelPtr = std::unique_ptr<pt2c_model, void (*)(pt2c_model *)>;

// A model of `blob` whose kernel table is `kernels` (the doubling kernel by default).
template <size_t N = 1>
pt2c_status create(const std::vector<unsigned char> &blob, ModelPtr *model,
                   const pt2c_kernel_fn (&kernels)[N] = kKernels) {
  pt2c_model_source source{blob.data(), blob.size(), nullptr, 0, kernels, N};
  pt2c_model *raw = nullptr;
  pt2c_status status = pt2c_model_create_from(&source, &raw);
  model->reset(raw);
  return status;
}

void expect_corrupt(const std::vector<unsigned char> &blob, const std::string &message) {
  ModelPtr model(nullptr, pt2c_model_destroy);
  CHECK(create(blob, &model) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK_THAT(std::string(pt2c_last_error()), Contains(message));
}

} // namespace

TEST_CASE("a dynamic plan runs at any size in its range") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(Plan().builder.build(), &model) == PT2C_OK);
  for (int64_t n : {1, 3, 8}) {
    std::vector<float> x(n * 4), y(n * 4, -1.0f);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(i);
    std::vector<int64_t> x_dims = {n, 4};
    pt2c_tensor input{x.data(), PT2C_F32, 2, x_dims.data()};
    std::vector<int64_t> y_dims(2);
    REQUIRE(pt2c_model_output_shape(model.get(), &input, 1, 0, y_dims.data()) == PT2C_OK);
    CHECK(y_dims == std::vector<int64_t>{2 * n, 2});
    pt2c_tensor output{y.data(), PT2C_F32, 2, y_dims.data()};
    REQUIRE(pt2c_model_run(model.get(), &input, 1, &output, 1) == PT2C_OK);
    CHECK(g_seen_n == n);
    for (size_t i = 0; i < x.size(); ++i)
      CHECK(y[i] == 2 * x[i]);
  }
}

TEST_CASE("sizes outside the range, or outputs of the wrong size, are refused") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(Plan().builder.build(), &model) == PT2C_OK);
  std::vector<float> x(9 * 4), y(9 * 4);
  std::vector<int64_t> x_dims = {9, 4}, y_dims = {18, 2};
  pt2c_tensor input{x.data(), PT2C_F32, 2, x_dims.data()};
  pt2c_tensor output{y.data(), PT2C_F32, 2, y_dims.data()};
  CHECK(pt2c_model_run(model.get(), &input, 1, &output, 1) == PT2C_ERROR_SHAPE);
  CHECK_THAT(std::string(pt2c_last_error()),
             Contains("input 0 ('x') dim 0 is 9: dynamic dimension 'n' must lie in [1, 8]"));
  x_dims = {3, 4};
  y_dims = {6, 3};
  CHECK(pt2c_model_run(model.get(), &input, 1, &output, 1) == PT2C_ERROR_SHAPE);
  CHECK_THAT(std::string(pt2c_last_error()), Contains("expected shape [6, 2], got [6, 3]"));
}

TEST_CASE("the ABI describes dynamic dims as -1 and names their ranges") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(Plan().builder.build(), &model) == PT2C_OK);
  pt2c_tensor_info info;
  REQUIRE(pt2c_model_input_info(model.get(), 0, &info) == PT2C_OK);
  CHECK(std::vector<int64_t>(info.dims, info.dims + 2) == std::vector<int64_t>{-1, 4});
  REQUIRE(pt2c_model_output_info(model.get(), 0, &info) == PT2C_OK);
  CHECK(std::vector<int64_t>(info.dims, info.dims + 2) == std::vector<int64_t>{-1, 2});
  CHECK(pt2c_model_num_dynamic_dims(model.get()) == 1);
  const char *name = nullptr;
  int64_t min = 0, max = 0;
  REQUIRE(pt2c_model_dynamic_dim_info(model.get(), 0, &name, &min, &max) == PT2C_OK);
  CHECK(std::string(name) == "n");
  CHECK(min == 1);
  CHECK(max == 8);
  CHECK(pt2c_model_dynamic_dim_info(model.get(), 1, &name, &min, &max) ==
        PT2C_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("corrupt size code and symbol tables are rejected") {
  SECTION("a symbol that does not exist") {
    Plan plan;
    plan.builder.add_output("z", PT2C_F32, {plan.builder.add_size_code({PT2C_SYM_SYMBOL, 1})});
    expect_corrupt(plan.builder.build(), "symbol 1 does not exist (1 symbols)");
  }
  SECTION("an unknown opcode") {
    Plan plan;
    plan.builder.add_output("z", PT2C_F32,
                            {plan.builder.add_size_code({PT2C_SYM_CONSTANT, 1, 9, 0})});
    expect_corrupt(plan.builder.build(), "unknown size opcode 9");
  }
  SECTION("an operation without operands") {
    Plan plan;
    plan.builder.add_output("z", PT2C_F32, {plan.builder.add_size_code({PT2C_SYM_ADD, 0})});
    expect_corrupt(plan.builder.build(), "the size expression underflows");
  }
  SECTION("an entry pointing past the code") {
    Plan plan;
    plan.builder.add_output("z", PT2C_F32, {-100});
    expect_corrupt(plan.builder.build(), "points outside the");
  }
  SECTION("a symbol read from an input that does not exist") {
    Plan plan;
    plan.builder.add_sym("m", 5, 0, 1, 2);
    expect_corrupt(plan.builder.build(), "symbol 1: input 5 dim 0 does not exist");
  }
  SECTION("an impossible range") {
    Plan plan;
    plan.builder.add_sym("m", 0, 1, 4, 2);
    expect_corrupt(plan.builder.build(), "symbol 1: range [4, 2] is impossible");
  }
}

namespace {

std::optional<int64_t> g_count_to_write; // a broken kernel's count, for the range check

// x [6] -> (count, y [count]): the positive elements of x in order; count is symbol 0,
// which the run binds after this step.
void select_positive(void *const *buffers, const int64_t *sym_values) {
  const float *x = static_cast<const float *>(buffers[0]);
  int64_t *count = static_cast<int64_t *>(buffers[1]);
  float *y = static_cast<float *>(buffers[2]);
  CHECK(sym_values[0] == 6); // still the bound: buffers are planned for it
  *count = 0;
  for (int i = 0; i < 6; ++i)
    if (x[i] > 0)
      y[(*count)++] = x[i];
  if (g_count_to_write)
    *count = *g_count_to_write;
}
// y [count] -> z [count]: y + 1, sized by the bound symbol.
void add_one(void *const *buffers, const int64_t *sym_values) {
  const float *y = static_cast<const float *>(buffers[0]);
  float *z = static_cast<float *>(buffers[1]);
  for (int64_t i = 0; i < sym_values[0]; ++i)
    z[i] = y[i] + 1;
}
const pt2c_kernel_fn kSelectKernels[] = {select_positive, add_one};

std::vector<unsigned char> select_plan() {
  PlanBuilder b;
  int64_t count = b.add_size_code({PT2C_SYM_SYMBOL, 0});
  uint32_t x = b.add_input("x", PT2C_F32, {6});
  uint32_t z = b.add_output("z", PT2C_F32, {count});
  uint32_t n = b.add_arena(0, 8);
  uint32_t y = b.add_arena(64, 6 * sizeof(float));
  b.add_produced_sym("u0", n, 6);
  b.add_step(0, {x, n, y});
  b.add_step(1, {y, z});
  return b.build();
}

} // namespace

TEST_CASE("a data-dependent size is bound after the step that counts it") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(select_plan(), &model, kSelectKernels) == PT2C_OK);
  g_count_to_write.reset();
  std::vector<float> x = {1, -2, 3, -4, 5, 0};
  std::vector<int64_t> x_dims = {6};
  pt2c_tensor input{x.data(), PT2C_F32, 1, x_dims.data()};
  std::vector<int64_t> z_dims(1), last(1);
  CHECK(pt2c_model_last_output_shape(model.get(), 0, last.data()) == PT2C_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(pt2c_last_error()), Contains("no run has succeeded yet"));
  // Before the run: the bound, the size the caller's buffer must have.
  REQUIRE(pt2c_model_output_shape(model.get(), &input, 1, 0, z_dims.data()) == PT2C_OK);
  CHECK(z_dims == std::vector<int64_t>{6});
  std::vector<float> z(6, -1.0f);
  pt2c_tensor output{z.data(), PT2C_F32, 1, z_dims.data()};
  REQUIRE(pt2c_model_run(model.get(), &input, 1, &output, 1) == PT2C_OK);
  REQUIRE(pt2c_model_last_output_shape(model.get(), 0, last.data()) == PT2C_OK);
  CHECK(last == std::vector<int64_t>{3});
  CHECK(std::vector<float>(z.begin(), z.begin() + 3) == std::vector<float>{2, 4, 6});
  CHECK(z[3] == -1.0f); // nothing past the run's size
  // The ABI names it as a dynamic dim of range [0, bound].
  const char *name = nullptr;
  int64_t min = -1, max = -1;
  REQUIRE(pt2c_model_dynamic_dim_info(model.get(), 0, &name, &min, &max) == PT2C_OK);
  CHECK(std::string(name) == "u0");
  CHECK(min == 0);
  CHECK(max == 6);
}

TEST_CASE("a count outside its bound fails the run instead of overrunning buffers") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(select_plan(), &model, kSelectKernels) == PT2C_OK);
  std::vector<float> x(6, 1.0f), z(6);
  std::vector<int64_t> x_dims = {6}, z_dims = {6};
  pt2c_tensor input{x.data(), PT2C_F32, 1, x_dims.data()};
  pt2c_tensor output{z.data(), PT2C_F32, 1, z_dims.data()};
  for (int64_t bad : {7, -3}) {
    g_count_to_write = bad;
    CHECK(pt2c_model_run(model.get(), &input, 1, &output, 1) == PT2C_ERROR_CORRUPT_MODEL);
    CHECK_THAT(std::string(pt2c_last_error()),
               Contains("computed " + std::to_string(bad) +
                        " for the data-dependent size 'u0', outside its bound [0, 6]"));
  }
  g_count_to_write.reset();
}

TEST_CASE("a data-dependent symbol's buffer must be named by exactly one step") {
  PlanBuilder b;
  uint32_t x = b.add_input("x", PT2C_F32, {6});
  b.add_output("z", PT2C_F32, {b.add_size_code({PT2C_SYM_SYMBOL, 0})});
  uint32_t n = b.add_arena(0, 8);
  b.add_produced_sym("u0", n, 6);
  b.add_step(1, {x, x});
  ModelPtr model(nullptr, pt2c_model_destroy);
  CHECK(create(b.build(), &model, kSelectKernels) == PT2C_ERROR_CORRUPT_MODEL);
  CHECK_THAT(std::string(pt2c_last_error()), Contains("0 steps name its buffer"));
}

namespace {

// x [n, 4] -> y [c0, 4], c0 = min(n, 3): the first c0 rows of x (keep[:3]); n is symbol 0,
// c0 symbol 1.
void first_rows(void *const *buffers, const int64_t *sym_values) {
  const float *x = static_cast<const float *>(buffers[0]);
  float *y = static_cast<float *>(buffers[1]);
  for (int64_t i = 0; i < sym_values[1] * 4; ++i)
    y[i] = x[i];
}
const pt2c_kernel_fn kFirstRowsKernels[] = {first_rows};

std::vector<unsigned char> first_rows_plan(int64_t c0_min = 1) {
  PlanBuilder b;
  int64_t n = b.add_size_code({PT2C_SYM_SYMBOL, 0});
  int64_t c0 = b.add_size_code({PT2C_SYM_SYMBOL, 1});
  uint32_t x = b.add_input("x", PT2C_F32, {n, 4});
  uint32_t y = b.add_output("y", PT2C_F32, {c0, 4});
  b.add_sym("n", 0, 0, 1, 8);
  b.add_derived_sym("c0",
                    b.add_size_code({PT2C_SYM_SYMBOL, 0, PT2C_SYM_CONSTANT, 3, PT2C_SYM_MIN, 0}),
                    c0_min, 3);
  b.add_step(0, {x, y});
  return b.build();
}

// The select plan above with z [c0] = y[:2] + 1, c0 = min(u0, 2) (symbol 1).
std::vector<unsigned char> clamped_select_plan() {
  PlanBuilder b;
  uint32_t x = b.add_input("x", PT2C_F32, {6});
  uint32_t z = b.add_output("z", PT2C_F32, {b.add_size_code({PT2C_SYM_SYMBOL, 1})});
  uint32_t n = b.add_arena(0, 8);
  uint32_t y = b.add_arena(64, 6 * sizeof(float));
  b.add_produced_sym("u0", n, 6);
  b.add_derived_sym(
      "c0", b.add_size_code({PT2C_SYM_SYMBOL, 0, PT2C_SYM_CONSTANT, 2, PT2C_SYM_MIN, 0}), 0, 2);
  b.add_step(0, {x, n, y});
  b.add_step(2, {y, z});
  return b.build();
}

int64_t g_seen_c0 = -1; // the clamp as the kernel after the count saw it

// y [u0] -> z [c0]: y + 1 for the first c0 (symbol 1) elements.
void add_one_clamped(void *const *buffers, const int64_t *sym_values) {
  g_seen_c0 = sym_values[1];
  const float *y = static_cast<const float *>(buffers[0]);
  float *z = static_cast<float *>(buffers[1]);
  for (int64_t i = 0; i < sym_values[1]; ++i)
    z[i] = y[i] + 1;
}
const pt2c_kernel_fn kClampedSelectKernels[] = {select_positive, add_one, add_one_clamped};

} // namespace

TEST_CASE("a derived size of input sizes is evaluated when the inputs are read") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(first_rows_plan(), &model, kFirstRowsKernels) == PT2C_OK);
  for (int64_t n : {1, 3, 8}) {
    int64_t rows = std::min<int64_t>(n, 3);
    std::vector<float> x(n * 4), y(12, -1.0f);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(i);
    std::vector<int64_t> x_dims = {n, 4}, y_dims(2);
    pt2c_tensor input{x.data(), PT2C_F32, 2, x_dims.data()};
    REQUIRE(pt2c_model_output_shape(model.get(), &input, 1, 0, y_dims.data()) == PT2C_OK);
    CHECK(y_dims == std::vector<int64_t>{rows, 4});
    pt2c_tensor output{y.data(), PT2C_F32, 2, y_dims.data()};
    REQUIRE(pt2c_model_run(model.get(), &input, 1, &output, 1) == PT2C_OK);
    CHECK(std::vector<float>(y.begin(), y.begin() + rows * 4) ==
          std::vector<float>(x.begin(), x.begin() + rows * 4));
    CHECK(std::count(y.begin(), y.end(), -1.0f) == 12 - rows * 4); // nothing past c0 rows
  }
  const char *name = nullptr;
  int64_t min = -1, max = -1;
  REQUIRE(pt2c_model_dynamic_dim_info(model.get(), 1, &name, &min, &max) == PT2C_OK);
  CHECK(std::string(name) == "c0");
  CHECK(max == 3);
}

TEST_CASE("a derived size outside its range fails the run with its name") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(first_rows_plan(/*c0_min=*/2), &model, kFirstRowsKernels) == PT2C_OK);
  std::vector<float> x(4), y(12);
  std::vector<int64_t> x_dims = {1, 4}, y_dims = {1, 4};
  pt2c_tensor input{x.data(), PT2C_F32, 2, x_dims.data()};
  pt2c_tensor output{y.data(), PT2C_F32, 2, y_dims.data()};
  CHECK(pt2c_model_run(model.get(), &input, 1, &output, 1) == PT2C_ERROR_SHAPE);
  CHECK_THAT(std::string(pt2c_last_error()),
             Contains("dynamic dimension 'c0', computed from other sizes (a clamp), is 1: it "
                      "must lie in [2, 3]"));
}

TEST_CASE("a clamp of a data-dependent size stays at its bound until the count is known") {
  ModelPtr model(nullptr, pt2c_model_destroy);
  REQUIRE(create(clamped_select_plan(), &model, kClampedSelectKernels) == PT2C_OK);
  g_count_to_write.reset();
  for (auto [x, expected] : std::vector<std::pair<std::vector<float>, std::vector<float>>>{
           {{1, -2, 3, -4, 5, 0}, {2, 4}},   // 3 rows: clamped to 2
           {{-1, -2, 3, -4, -5, 0}, {4}},    // 1 row: kept
           {{-1, -2, -3, -4, -5, 0}, {}}}) { // none
    std::vector<int64_t> x_dims = {6}, z_dims(1), last(1);
    pt2c_tensor input{x.data(), PT2C_F32, 1, x_dims.data()};
    // Before the run: the bound, min(6, 2).
    REQUIRE(pt2c_model_output_shape(model.get(), &input, 1, 0, z_dims.data()) == PT2C_OK);
    CHECK(z_dims == std::vector<int64_t>{2});
    std::vector<float> z(2, -1.0f);
    pt2c_tensor output{z.data(), PT2C_F32, 1, z_dims.data()};
    REQUIRE(pt2c_model_run(model.get(), &input, 1, &output, 1) == PT2C_OK);
    CHECK(g_seen_c0 == static_cast<int64_t>(expected.size()));
    REQUIRE(pt2c_model_last_output_shape(model.get(), 0, last.data()) == PT2C_OK);
    CHECK(last == std::vector<int64_t>{static_cast<int64_t>(expected.size())});
    CHECK(std::vector<float>(z.begin(), z.begin() + expected.size()) == expected);
  }
}

TEST_CASE("corrupt derived symbols are rejected") {
  auto plan_with = [](std::vector<int64_t> code, uint32_t flags = PT2C_SYM_FLAG_DERIVED) {
    Plan plan;
    plan.builder.add_derived_sym("c0", plan.builder.add_size_code(code), 0, 8, flags);
    return plan.builder.build();
  };
  SECTION("itself or a later symbol") {
    expect_corrupt(plan_with({PT2C_SYM_SYMBOL, 1}),
                   "symbol 1: uses symbol 1, which does not come before it");
  }
  SECTION("an unknown opcode") {
    expect_corrupt(plan_with({PT2C_SYM_SYMBOL, 0, PT2C_SYM_CONSTANT, 2, 8, 0}),
                   "symbol 1: unknown size opcode 8");
  }
  SECTION("min without two operands") {
    expect_corrupt(plan_with({PT2C_SYM_SYMBOL, 0, PT2C_SYM_MIN, 0}),
                   "symbol 1: the size expression underflows");
  }
  SECTION("both data-dependent and derived") {
    expect_corrupt(plan_with({PT2C_SYM_SYMBOL, 0}, PT2C_SYM_FLAG_DERIVED | PT2C_SYM_FLAG_PRODUCED),
                   "symbol 1: unknown flags 0x3");
  }
}
