// Mutation fuzzing of what the runtime reads, built with AddressSanitizer and UBSan over
// the runtime's own sources (tests/unit/BUILD.bazel: runtime_sanitized), so that a read or
// write out of bounds, an overflow or a misaligned access fails the test even where it
// would not crash:
// - CPU plans: thousands of plans derived from three valid ones (generated kernels only,
//   a GEMM step and a convolution step, each with its fallback kernel), with bits
//   flipped and fields set to extreme values, are created and, when create accepts them,
//   run;
// - external weights files: mutated files are refused unless their bytes are the
//   original's.
//
// The number of mutants per base is PT2C_FUZZ_MUTANTS (default 2000), the seed
// PT2C_FUZZ_SEED (default fixed): raise the first for a longer run by hand.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "pt2c/pt2c.h"
#include "pt2c/weights_format.h"
#include "runtime/src/content_hash.h"
#include "runtime/src/model.h"
#include "runtime/src/weights_file.h"
#include "tests/unit/plan_builder.h"
#include "tests/unit/weights_file_bytes.h"

using pt2c::testing::PlanBuilder;

namespace {

// Every tensor of the base plans is small; a mutant that declares a larger one is created
// but not run (the inputs it asks for would not fit the test's budget).
constexpr uint64_t kMaxRunBytes = 1 << 20;

// ---- Kernels (what the compiler would generate), reading exactly their compiled sizes.

constexpr int kVec = 8; // f32 [2, 4]

void add_kernel(void *const *b, const int64_t *) {
  for (int i = 0; i < kVec; ++i)
    static_cast<float *>(b[2])[i] =
        static_cast<const float *>(b[0])[i] + static_cast<const float *>(b[1])[i];
}

void triple_kernel(void *const *b, const int64_t *) {
  for (int i = 0; i < kVec; ++i)
    static_cast<float *>(b[1])[i] = 3.0f * static_cast<const float *>(b[0])[i];
}

// GEMM fallback: y[4, 6] = relu(x[4, 8] w[8, 6] + bias[6]).
constexpr int kM = 4, kN = 6, kK = 8;
void gemm_kernel(void *const *b, const int64_t *) {
  const float *x = static_cast<const float *>(b[0]);
  const float *w = static_cast<const float *>(b[1]);
  const float *bias = static_cast<const float *>(b[2]);
  float *y = static_cast<float *>(b[3]);
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j) {
      float sum = bias[j];
      for (int k = 0; k < kK; ++k)
        sum += x[i * kK + k] * w[k * kN + j];
      y[i * kN + j] = sum < 0 ? 0 : sum;
    }
}

// Convolution fallback: y[1, 4, 6, 6] = relu(conv3x3 pad 1 (x[1, 3, 6, 6], w[4, 3, 3, 3]) + bias).
constexpr int kC = 3, kKout = 4, kHW = 6;
void conv_kernel(void *const *b, const int64_t *) {
  const float *x = static_cast<const float *>(b[0]);
  const float *w = static_cast<const float *>(b[1]);
  const float *bias = static_cast<const float *>(b[2]);
  float *y = static_cast<float *>(b[3]);
  for (int k = 0; k < kKout; ++k)
    for (int oh = 0; oh < kHW; ++oh)
      for (int ow = 0; ow < kHW; ++ow) {
        float sum = bias[k];
        for (int c = 0; c < kC; ++c)
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) {
              int ih = oh + r - 1, iw = ow + s - 1;
              if (ih < 0 || ih >= kHW || iw < 0 || iw >= kHW)
                continue;
              sum += x[(c * kHW + ih) * kHW + iw] * w[((k * kC + c) * 3 + r) * 3 + s];
            }
        y[(k * kHW + oh) * kHW + ow] = sum < 0 ? 0 : sum;
      }
}

enum Kernel : uint32_t { kAdd, kTriple, kGemm, kConv, kNumKernels };
const pt2c_kernel_fn kKernels[kNumKernels] = {add_kernel, triple_kernel, gemm_kernel, conv_kernel};
// pt2c_kernel_args of the table above.
const uint32_t kArgFirst[kNumKernels + 1] = {0, 3, 5, 9, 13};
const uint64_t kArgBytes[] = {32,
                              32,
                              32, // add
                              32,
                              32, // triple
                              kM *kK * 4,
                              kK *kN * 4,
                              kN * 4,
                              kM *kN * 4, // gemm
                              kC *kHW *kHW * 4,
                              kKout *kC * 9 * 4,
                              kKout * 4,
                              kKout *kHW *kHW * 4}; // conv

// Weights: w for add (32 B at 0), GEMM w (192 B at 64) and bias (24 B at 256), conv w
// (432 B at 320) and bias (16 B at 768).
struct alignas(64) Weights {
  float data[256];
  Weights() {
    for (int i = 0; i < 256; ++i)
      data[i] = static_cast<float>((i * 37) % 17) / 8.0f - 1.0f;
  }
};
const Weights kWeights;

PlanBuilder three_step_plan() {
  PlanBuilder plan;
  uint32_t x = plan.add_input("x", PT2C_F32, {2, 4});
  uint32_t y = plan.add_output("y", PT2C_F32, {2, 4});
  uint32_t w = plan.add_weight(0, 32);
  uint32_t first = plan.add_arena(0, 32);
  uint32_t second = plan.add_arena(64, 32);
  plan.add_step(kAdd, {x, w, first});
  plan.add_step(kAdd, {first, w, second});
  plan.add_step(kTriple, {second, y});
  plan.weights_size = sizeof(kWeights);
  return plan;
}

PlanBuilder gemm_plan() {
  PlanBuilder plan;
  uint32_t x = plan.add_input("x", PT2C_F32, {kM, kK});
  uint32_t y = plan.add_output("y", PT2C_F32, {kM, kN});
  uint32_t w = plan.add_weight(64, kK * kN * 4);
  uint32_t bias = plan.add_weight(256, kN * 4);
  pt2c_plan_gemm g{};
  g.dtype = PT2C_F32;
  g.epilogue = PT2C_GEMM_EPILOGUE_BIAS_RELU;
  g.m = kM, g.n = kN, g.k = kK, g.batch = 1;
  g.ld_a = kK, g.ld_b = kN, g.ld_d = kN;
  g.num_fallback_steps = 1;
  plan.add_gemm_step(g, {x, w, bias, y});
  plan.add_step(kGemm, {x, w, bias, y});
  plan.num_kernels = kNumKernels;
  plan.weights_size = sizeof(kWeights);
  return plan;
}

PlanBuilder conv_plan() {
  PlanBuilder plan;
  uint32_t x = plan.add_input("x", PT2C_F32, {1, kC, kHW, kHW});
  uint32_t y = plan.add_output("y", PT2C_F32, {1, kKout, kHW, kHW});
  uint32_t w = plan.add_weight(320, kKout * kC * 9 * 4);
  uint32_t bias = plan.add_weight(768, kKout * 4);
  pt2c_plan_conv c{};
  c.dtype = PT2C_F32;
  c.epilogue = PT2C_CONV_EPILOGUE_BIAS_RELU;
  c.spatial_rank = 2;
  c.groups = 1;
  c.batch = 1, c.in_channels = kC, c.out_channels = kKout;
  for (int d = 0; d < PT2C_CONV_MAX_SPATIAL; ++d) {
    bool used = d < 2;
    c.input[d] = used ? kHW : 1;
    c.kernel[d] = used ? 3 : 1;
    c.output[d] = used ? kHW : 1;
    c.stride[d] = 1;
    c.padding[d] = used ? 1 : 0;
    c.dilation[d] = 1;
  }
  c.num_fallback_steps = 1;
  plan.add_conv_step(c, {x, w, bias, y});
  plan.add_step(kConv, {x, w, bias, y});
  plan.num_kernels = kNumKernels;
  plan.weights_size = sizeof(kWeights);
  return plan;
}

pt2c_status create(const std::vector<unsigned char> &plan, pt2c_model **model) {
  pt2c_model_source source{};
  source.plan = plan.data();
  source.plan_size = plan.size();
  source.weights = &kWeights;
  source.weights_size = sizeof(kWeights);
  source.kernels = kKernels;
  source.num_kernels = kNumKernels;
  source.kernel_arg_first = kArgFirst;
  source.kernel_arg_bytes = kArgBytes;
  return pt2c_model_create_from(&source, model);
}

// Runs `model` once on inputs and outputs of the sizes it declares (dynamic dims at their
// minimum), unless they exceed kMaxRunBytes. Returns the run's status, or -1 when skipped.
int run_as_declared(pt2c_model *model) {
  int32_t num_inputs = pt2c_model_num_inputs(model), num_outputs = pt2c_model_num_outputs(model);
  if (num_inputs < 0 || num_outputs < 0 || num_inputs > 16 || num_outputs > 16)
    return -1;
  std::vector<std::vector<unsigned char>> storage;
  std::vector<std::vector<int64_t>> dims;
  std::vector<pt2c_tensor> tensors;
  uint64_t total = 0;
  for (int32_t i = 0; i < num_inputs + num_outputs; ++i) {
    pt2c_tensor_info info{};
    pt2c_status status = i < num_inputs ? pt2c_model_input_info(model, i, &info)
                                        : pt2c_model_output_info(model, i - num_inputs, &info);
    if (status != PT2C_OK || info.rank < 0 || info.rank > 8)
      return -1;
    std::vector<int64_t> d(info.dims, info.dims + info.rank);
    uint64_t bytes = pt2c_dtype_size(info.dtype);
    for (int64_t &size : d) {
      if (size < 0)
        size = 1; // dynamic
      if (size > static_cast<int64_t>(kMaxRunBytes) || bytes > kMaxRunBytes)
        return -1;
      bytes *= static_cast<uint64_t>(size);
    }
    total += bytes;
    if (total > kMaxRunBytes)
      return -1;
    storage.emplace_back(bytes > 0 ? bytes : 1, 0x3f); // small positive floats
    dims.push_back(d);
    tensors.push_back({storage.back().data(), info.dtype, info.rank, nullptr});
  }
  for (size_t i = 0; i < tensors.size(); ++i)
    tensors[i].dims = dims[i].data();
  return pt2c_model_run(model, tensors.data(), num_inputs, tensors.data() + num_inputs,
                        num_outputs);
}

// One mutation of `plan`: a flipped bit, a random byte, or an aligned 4- or 8-byte field
// set to a value that has broken parsers before (0, 1, all ones, the sign bit, 2^32, a
// small count).
void mutate(std::vector<unsigned char> *plan, std::mt19937_64 *rng) {
  static const uint64_t kExtremes[] = {
      0,    1, 2, 7, 64, 0x7fffffffu, 0x80000000u, 0xffffffffu, 1ull << 32, 0x7fffffffffffffffull,
      ~0ull};
  size_t size = plan->size();
  switch ((*rng)() % 4) {
  case 0:
    (*plan)[(*rng)() % size] ^= static_cast<unsigned char>(1u << ((*rng)() % 8));
    break;
  case 1:
    (*plan)[(*rng)() % size] = static_cast<unsigned char>((*rng)());
    break;
  case 2: {
    size_t at = (*rng)() % (size / 4) * 4;
    uint32_t value = static_cast<uint32_t>(kExtremes[(*rng)() % 11]);
    std::memcpy(plan->data() + at, &value, 4);
    break;
  }
  default: {
    size_t at = (*rng)() % (size / 8) * 8;
    uint64_t value = kExtremes[(*rng)() % 11];
    std::memcpy(plan->data() + at, &value, 8);
  }
  }
}

uint64_t env_or(const char *name, uint64_t fallback) {
  const char *value = std::getenv(name);
  return value && *value ? std::strtoull(value, nullptr, 10) : fallback;
}

struct Tally {
  int refused = 0, ran = 0, run_errors = 0, skipped = 0;
};

Tally fuzz(const std::vector<unsigned char> &base, uint64_t seed, uint64_t mutants) {
  std::mt19937_64 rng(seed);
  Tally tally;
  for (uint64_t n = 0; n < mutants; ++n) {
    std::vector<unsigned char> plan = base;
    int mutations = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < mutations; ++i)
      mutate(&plan, &rng);
    pt2c_model *model = nullptr;
    pt2c_status status = create(plan, &model);
    if (status != PT2C_OK) {
      // Refused: with a status that says so, no model, and a message.
      REQUIRE(model == nullptr);
      REQUIRE(std::strlen(pt2c_last_error()) > 0);
      ++tally.refused;
      continue;
    }
    // A mutated plan may describe a huge computation over a huge arena, which is no
    // error: create accepted it, running it would only take long.
    int ran =
        PlanBuilder::header_of(&plan)->arena_size > kMaxRunBytes ? -1 : run_as_declared(model);
    if (ran < 0)
      ++tally.skipped;
    else if (ran == PT2C_OK)
      ++tally.ran;
    else
      ++tally.run_errors;
    pt2c_model_destroy(model);
  }
  return tally;
}

} // namespace

// A mutated arena size asks calloc for up to 2^64 bytes; the runtime then reports
// PT2C_ERROR_OUT_OF_MEMORY, as it must, where ASan would otherwise abort the test.
extern "C" const char *__asan_default_options() { return "allocator_may_return_null=1"; }

TEST_CASE("mutated CPU plans are refused or run in bounds") {
  const uint64_t mutants = env_or("PT2C_FUZZ_MUTANTS", 2000);
  const uint64_t seed = env_or("PT2C_FUZZ_SEED", 20261126);
  struct Base {
    const char *name;
    std::vector<unsigned char> plan;
  } bases[] = {{"generated kernels", three_step_plan().build()},
               {"GEMM step", gemm_plan().build()},
               {"convolution step", conv_plan().build()}};
  for (auto &[name, plan] : bases) {
    // The base plan itself is valid and runs.
    pt2c_model *model = nullptr;
    REQUIRE(create(plan, &model) == PT2C_OK);
    CHECK(run_as_declared(model) == PT2C_OK);
    pt2c_model_destroy(model);

    Tally t = fuzz(plan, seed, mutants);
    WARN(name << ": " << mutants << " mutants: " << t.refused << " refused at create, " << t.ran
              << " ran, " << t.run_errors << " refused at run, " << t.skipped
              << " not run (inputs too large)");
    CHECK(t.refused + t.ran + t.run_errors + t.skipped == static_cast<int>(mutants));
  }
}

TEST_CASE("mutated weights files are refused unless they are the original") {
  const uint64_t mutants = env_or("PT2C_FUZZ_MUTANTS", 2000);
  std::mt19937_64 rng(env_or("PT2C_FUZZ_SEED", 20261126));
  std::vector<unsigned char> blob(4000);
  for (size_t i = 0; i < blob.size(); ++i)
    blob[i] = static_cast<unsigned char>(i * 131 + 7);
  const pt2c_external_weights expected = {1, blob.size(), 0x5eed,
                                          pt2c_content_hash(blob.data(), blob.size())};
  const std::vector<unsigned char> good = pt2c::testing::weightsFileBytes(blob, expected);

  char path[] = "/tmp/pt2c-weights-fuzz-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  int refused = 0, accepted = 0;
  for (uint64_t n = 0; n < mutants; ++n) {
    std::vector<unsigned char> bytes = good;
    if (rng() % 8 == 0) {
      bytes.resize(rng() % (good.size() + 100), 0); // truncated or extended
    } else {
      int mutations = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < mutations; ++i)
        mutate(&bytes, &rng);
    }
    FILE *f = std::fopen(path, "wb");
    REQUIRE(f != nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    pt2c_weights_file file;
    pt2c_status status = pt2c_weights_file_open(path, &expected, /*verify_data=*/1, &file);
    if (status == PT2C_OK) {
      // Only the original bytes load, and then as the original blob.
      CHECK(bytes == good);
      REQUIRE(file.blob_size == blob.size());
      CHECK(std::memcmp(file.blob, blob.data(), blob.size()) == 0);
      pt2c_weights_file_close(&file);
      ++accepted;
    } else {
      CHECK(status == PT2C_ERROR_WEIGHTS_FILE);
      CHECK(file.blob == nullptr);
      ++refused;
    }
  }
  unlink(path);
  WARN(mutants << " mutated weights files: " << refused << " refused, " << accepted
               << " accepted (unchanged bytes)");
}
