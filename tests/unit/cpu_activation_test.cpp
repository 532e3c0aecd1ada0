// The epilogue activations (runtime/src/cpu/activation.h) on every ISA this CPU has,
// against double-precision references, special values included.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "runtime/src/cpu/activation.h"
#include "tests/unit/cpu_test_support.h"

using pt2c::testing::availableIsas;
using pt2c::testing::isaName;
using pt2c::testing::ScopedIsa;

TEST_CASE("SiLU matches x / (1 + exp(-x)) to 1e-6 relative, on every ISA") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> wide(-90.0f, 90.0f), narrow(-4.0f, 4.0f);
  std::vector<float> values = {0.0f,   -0.0f, 1e-30f, -1e-30f, 0.5f,   -0.5f,  20.0f,
                               -20.0f, 87.0f, -87.0f, 88.5f,   -88.5f, 1000.0f};
  while (values.size() < 1000)
    values.push_back(values.size() % 2 ? wide(rng) : narrow(rng));
  for (pt2c_cpu_isa isa : availableIsas()) {
    SECTION(isaName(isa)) {
      ScopedIsa scoped(isa);
      // Every length up to 37 (tails of 0 to 15) and the whole list.
      for (size_t count :
           {size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{37}, values.size()}) {
        std::vector<float> v(values.begin(), values.begin() + count);
        v.push_back(123.0f); // past the run: untouched
        pt2c_silu_inplace(v.data(), static_cast<int64_t>(count));
        for (size_t i = 0; i < count; ++i) {
          double x = values[i], exact = x / (1.0 + std::exp(-x));
          INFO("x = " << x << ", count " << count);
          if (x < -88.0) {
            REQUIRE(v[i] <= 0.0f); // the exact value underflows; a tiny negative is fine
            REQUIRE(v[i] > -1e-30f);
          } else {
            REQUIRE(std::fabs(v[i] - exact) <= 1e-6 * std::fabs(exact) + 1e-37);
          }
        }
        REQUIRE(v[count] == 123.0f);
      }
      std::vector<float> special = {std::numeric_limits<float>::quiet_NaN(),
                                    std::numeric_limits<float>::infinity(),
                                    -std::numeric_limits<float>::infinity()};
      pt2c_silu_inplace(special.data(), 3);
      CHECK(std::isnan(special[0]));
      CHECK(special[1] == std::numeric_limits<float>::infinity());
      CHECK((special[2] <= 0.0f || std::isnan(special[2]))); // -inf * sigmoid(-inf)
    }
  }
}
