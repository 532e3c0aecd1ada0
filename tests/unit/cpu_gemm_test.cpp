// The CPU GEMM (runtime/src/cpu/cpu_gemm.h) against a double-accumulated reference, on
// every ISA this machine has: odd sizes, transposed and prepacked operands, every
// epilogue, batches, f32 and (on AVX512_BF16) bf16 operands; and the ISA selection.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "runtime/src/cpu/cpu_gemm.h"
#include "runtime/src/cpu/thread_pool.h"
#include "runtime/src/half_convert.h"
#include "tests/unit/cpu_test_support.h"

using pt2c::testing::availableIsas;
using pt2c::testing::isaName;
using pt2c::testing::randomFloats;
using pt2c::testing::ScopedIsa;

namespace {

constexpr float kSentinel = 12345.0f; // in C's row padding, which must stay untouched

struct Case {
  int64_t m, n, k;
  bool trans_a, trans_b, pack_a, pack_b;
  bool bias, bias_per_row, residual, relu;
  bool bf16 = false; // A and B in bf16 (the reference multiplies the same rounded values)
};

// Operands in the layout a case asks for, C with padding, and the reference.
struct Gemm {
  Case cs;
  std::vector<float> a, b, bias, residual, c;
  std::vector<uint16_t> a_bf16, b_bf16; // a and b's bits when cs.bf16
  std::vector<char> a_packed, b_packed;
  int64_t ldc;

  explicit Gemm(const Case &c_, uint32_t seed) : cs(c_), ldc(c_.n + 3) {
    a = randomFloats(cs.m * cs.k, seed);
    b = randomFloats(cs.k * cs.n, seed + 1);
    bias = randomFloats(cs.bias_per_row ? cs.m : cs.n, seed + 2);
    residual = randomFloats(cs.m * ldc, seed + 3);
    c.assign(cs.m * ldc, kSentinel);
    if (cs.bf16) {
      a_bf16 = roundToBf16(a);
      b_bf16 = roundToBf16(b);
    }
  }
  // v rounded to bf16 in place; returns the bits.
  static std::vector<uint16_t> roundToBf16(std::vector<float> &v) {
    std::vector<uint16_t> bits(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      bits[i] = pt2c_f32_to_bf16_bits(v[i]);
      v[i] = pt2c_bf16_bits_to_f32(bits[i]);
    }
    return bits;
  }
  // A(i, kk): row-major [m, k], or transposed: stored [k, m].
  int64_t aRowStride() const { return cs.trans_a ? 1 : cs.k; }
  int64_t aColStride() const { return cs.trans_a ? cs.m : 1; }
  int64_t bRowStride() const { return cs.trans_b ? 1 : cs.n; }
  int64_t bColStride() const { return cs.trans_b ? cs.k : 1; }
  float A(int64_t i, int64_t kk) const { return a[i * aRowStride() + kk * aColStride()]; }
  float B(int64_t kk, int64_t j) const { return b[kk * bRowStride() + j * bColStride()]; }

  pt2c_sgemm_problem problem() {
    pt2c_sgemm_problem p{};
    p.m = cs.m, p.n = cs.n, p.k = cs.k;
    p.operands = cs.bf16 ? PT2C_GEMM_BF16 : PT2C_GEMM_F32;
    p.a = cs.bf16 ? (const void *)a_bf16.data() : a.data();
    p.a_row_stride = aRowStride(), p.a_col_stride = aColStride();
    p.b = cs.bf16 ? (const void *)b_bf16.data() : b.data();
    p.b_row_stride = bRowStride(), p.b_col_stride = bColStride();
    if (cs.pack_a) {
      a_packed.assign(pt2c_gemm_packed_a_bytes(p.operands, cs.m, cs.k), 0);
      pt2c_gemm_pack_a(p.operands, p.a, p.a_row_stride, p.a_col_stride, cs.m, cs.k,
                       a_packed.data());
      p.a_packed = a_packed.data();
      p.a = nullptr; // must not be read
    }
    if (cs.pack_b) {
      b_packed.assign(pt2c_gemm_packed_b_bytes(p.operands, cs.k, cs.n), 0);
      pt2c_gemm_pack_b(p.operands, p.b, p.b_row_stride, p.b_col_stride, cs.k, cs.n,
                       b_packed.data());
      p.b_packed = b_packed.data();
      p.b = nullptr;
    }
    p.c = c.data(), p.ldc = ldc;
    p.epilogue.bias = cs.bias ? bias.data() : nullptr;
    p.epilogue.bias_per_row = cs.bias_per_row;
    p.epilogue.residual = cs.residual ? residual.data() : nullptr;
    p.epilogue.relu = cs.relu;
    return p;
  }

  // Every element within a float dot product's rounding of the double reference.
  void check() const {
    INFO("m=" << cs.m << " n=" << cs.n << " k=" << cs.k << " trans_a=" << cs.trans_a
              << " trans_b=" << cs.trans_b << " pack_a=" << cs.pack_a << " pack_b=" << cs.pack_b
              << " bias=" << cs.bias << " per_row=" << cs.bias_per_row
              << " residual=" << cs.residual << " relu=" << cs.relu << " bf16=" << cs.bf16);
    int64_t bad = 0;
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t j = 0; j < cs.n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t kk = 0; kk < cs.k; ++kk) {
          double t = (double)A(i, kk) * B(kk, j);
          sum += t;
          magnitude += std::fabs(t);
        }
        if (cs.bias)
          sum += bias[cs.bias_per_row ? i : j],
              magnitude += std::fabs(bias[cs.bias_per_row ? i : j]);
        if (cs.residual)
          sum += residual[i * ldc + j], magnitude += std::fabs(residual[i * ldc + j]);
        if (cs.relu && sum < 0)
          sum = 0;
        double tol = 4e-6 * std::sqrt((double)cs.k + 2) * magnitude + 1e-6;
        double got = c[i * ldc + j];
        if (!(std::fabs(got - sum) <= tol) && bad++ < 5)
          FAIL_CHECK("C(" << i << ", " << j << ") = " << got << ", expected " << sum);
      }
      for (int64_t j = cs.n; j < ldc; ++j)
        if (c[i * ldc + j] != kSentinel && bad++ < 5)
          FAIL_CHECK("padding written at row " << i);
    }
    CHECK(bad == 0);
  }
};

void runAndCheck(const Case &cs, uint32_t seed) {
  Gemm g(cs, seed);
  pt2c_sgemm_problem p = g.problem();
  pt2c_sgemm(&p);
  g.check();
}

const int64_t kSizes[] = {1, 2, 5, 17, 64, 100, 257};

} // namespace

TEST_CASE("sgemm matches the reference over odd sizes and layouts on every ISA") {
  for (pt2c_cpu_isa isa : availableIsas()) {
    SECTION(isaName(isa)) {
      ScopedIsa scoped(isa);
      REQUIRE(pt2c_cpu_best_isa() == isa);
      uint32_t variant = 0;
      for (int64_t m : kSizes)
        for (int64_t n : kSizes)
          for (int64_t k : kSizes) {
            // Cycle through layouts and epilogues so every size meets several of each.
            uint32_t v = variant++;
            Case cs{m,
                    n,
                    k,
                    (v & 1) != 0,
                    (v & 2) != 0,
                    (v & 4) != 0,
                    (v & 8) != 0,
                    (v % 3) != 0,
                    (v % 5) < 2,
                    (v % 7) < 3,
                    (v % 11) < 5};
            runAndCheck(cs, v);
          }
    }
  }
}

TEST_CASE("bf16 GEMM matches the reference over odd sizes, layouts and epilogues") {
  if (pt2c_cpu_host_isa() < PT2C_CPU_ISA_AVX512_BF16) {
    WARN("this CPU has no AVX512_BF16: the bf16 kernel is not tested here");
    return;
  }
  uint32_t variant = 0;
  // Odd k leaves a half-filled last pair; k = 600 spans three K blocks of pairs.
  for (int64_t m : {1, 5, 6, 37})
    for (int64_t n : {1, 17, 32, 45})
      for (int64_t k : {1, 2, 3, 17, 64, 600}) {
        uint32_t v = variant++;
        Case cs{m,
                n,
                k,
                (v & 1) != 0,
                (v & 2) != 0,
                (v & 4) != 0,
                (v & 8) != 0,
                (v % 3) != 0,
                (v % 5) < 2,
                (v % 7) < 3,
                (v % 11) < 5,
                true};
        runAndCheck(cs, 500 + v);
      }
  // Batched, with strides counted in bf16 elements (attention's QK^T).
  const int64_t batch = 3, m = 9, n = 40, k = 33;
  auto a = randomFloats(batch * m * k, 1), b = randomFloats(batch * n * k, 2);
  auto a16 = Gemm::roundToBf16(a), b16 = Gemm::roundToBf16(b);
  std::vector<float> c(batch * m * n);
  pt2c_sgemm_problem p{};
  p.m = m, p.n = n, p.k = k, p.operands = PT2C_GEMM_BF16;
  p.a = a16.data(), p.a_row_stride = k, p.a_col_stride = 1;
  p.b = b16.data(), p.b_row_stride = 1, p.b_col_stride = k;
  p.c = c.data(), p.ldc = n;
  pt2c_sgemm_batched(&p, batch, m * k, n * k, m * n);
  for (int64_t h = 0; h < batch; ++h)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          sum += (double)a[h * m * k + i * k + kk] * b[h * n * k + j * k + kk];
        REQUIRE(c[h * m * n + i * n + j] == Approx(sum).margin(1e-5));
      }
}

TEST_CASE("sgemm applies every epilogue combination, packed or not") {
  for (pt2c_cpu_isa isa : availableIsas()) {
    SECTION(isaName(isa)) {
      ScopedIsa scoped(isa);
      for (int bits = 0; bits < 64; ++bits) {
        // k = 300 spans two K blocks, so the epilogue meets accumulated partial sums.
        Case cs{37,
                45,
                300,
                false,
                (bits & 32) != 0,
                (bits & 16) != 0,
                (bits & 16) != 0,
                (bits & 1) != 0,
                (bits & 2) != 0,
                (bits & 4) != 0,
                (bits & 8) != 0};
        runAndCheck(cs, 1000 + bits);
      }
    }
  }
}

TEST_CASE("sgemm on the mlp shapes with one and all threads") {
  for (int threads : {1, 0}) {
    pt2c_pool_set_num_threads(threads);
    runAndCheck(Case{64, 4096, 1024, false, true, false, true, true, false, false, true}, 7);
    runAndCheck(Case{64, 1024, 4096, false, false, false, false, true, false, true, false}, 8);
  }
  pt2c_pool_set_num_threads(0);
}

TEST_CASE("sgemm_batched runs independent problems, shared or strided") {
  for (pt2c_cpu_isa isa : availableIsas()) {
    SECTION(isaName(isa)) {
      ScopedIsa scoped(isa);
      // Attention-like: 12 heads of [128, 64] x [64, 128] with B transposed (K^T).
      const int64_t batch = 12, m = 128, n = 128, k = 64;
      auto a = randomFloats(batch * m * k, 1), b = randomFloats(batch * n * k, 2);
      auto residual = randomFloats(batch * m * n, 3);
      std::vector<float> c(batch * m * n, kSentinel);
      pt2c_sgemm_problem p{};
      p.m = m, p.n = n, p.k = k;
      p.a = a.data(), p.a_row_stride = k, p.a_col_stride = 1;
      p.b = b.data(), p.b_row_stride = 1, p.b_col_stride = k;
      p.c = c.data(), p.ldc = n;
      p.epilogue.residual = residual.data();
      pt2c_sgemm_batched(&p, batch, m * k, n * k, m * n);
      for (int64_t h = 0; h < batch; ++h)
        for (int64_t i = 0; i < m; i += 7)
          for (int64_t j = 0; j < n; j += 5) {
            double sum = residual[h * m * n + i * n + j];
            for (int64_t kk = 0; kk < k; ++kk)
              sum += (double)a[h * m * k + i * k + kk] * b[h * n * k + j * k + kk];
            REQUIRE(c[h * m * n + i * n + j] == Approx(sum).margin(1e-4));
          }

      // One prepacked B shared by the batch (stride 0), A strided.
      const int64_t m2 = 5, n2 = 33, k2 = 17, batch2 = 3;
      auto a2 = randomFloats(batch2 * m2 * k2, 4), b2 = randomFloats(k2 * n2, 5);
      auto bias = randomFloats(n2, 6);
      std::vector<char> b2_packed(pt2c_gemm_packed_b_bytes(PT2C_GEMM_F32, k2, n2));
      pt2c_gemm_pack_b(PT2C_GEMM_F32, b2.data(), n2, 1, k2, n2, b2_packed.data());
      std::vector<float> c2(batch2 * m2 * n2);
      pt2c_sgemm_problem q{};
      q.m = m2, q.n = n2, q.k = k2;
      q.a = a2.data(), q.a_row_stride = k2, q.a_col_stride = 1;
      q.b_packed = b2_packed.data();
      q.c = c2.data(), q.ldc = n2;
      q.epilogue.bias = bias.data();
      q.epilogue.relu = 1;
      pt2c_sgemm_batched(&q, batch2, m2 * k2, 0, m2 * n2);
      for (int64_t h = 0; h < batch2; ++h)
        for (int64_t i = 0; i < m2; ++i)
          for (int64_t j = 0; j < n2; ++j) {
            double sum = bias[j];
            for (int64_t kk = 0; kk < k2; ++kk)
              sum += (double)a2[h * m2 * k2 + i * k2 + kk] * b2[kk * n2 + j];
            REQUIRE(c2[h * m2 * n2 + i * n2 + j] == Approx(sum < 0 ? 0 : sum).margin(1e-5));
          }
    }
  }
}

TEST_CASE("the ISA override never raises the ISA above the host's") {
  pt2c_cpu_isa host = pt2c_cpu_host_isa();
  {
    ScopedIsa scoped(PT2C_CPU_ISA_AVX512_BF16); // the highest there is
    CHECK(pt2c_cpu_best_isa() == host);
  }
  {
    ScopedIsa scoped(PT2C_CPU_ISA_GENERIC);
    CHECK(pt2c_cpu_best_isa() == PT2C_CPU_ISA_GENERIC);
  }
  if (std::getenv("PT2C_CPU_ISA") == nullptr)
    CHECK(pt2c_cpu_best_isa() == host);
}
