// Shared by the CPU kernel tests: random data, the ISAs this machine can run, and a
// scoped ISA override.
#ifndef PT2C_TESTS_UNIT_CPU_TEST_SUPPORT_H_
#define PT2C_TESTS_UNIT_CPU_TEST_SUPPORT_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "runtime/src/cpu/cpu_gemm.h"

namespace pt2c::testing {

inline std::vector<float> randomFloats(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

// Every ISA up to the host's best: each test runs on all of them.
inline std::vector<pt2c_cpu_isa> availableIsas() {
  std::vector<pt2c_cpu_isa> isas;
  for (int isa = 0; isa <= pt2c_cpu_host_isa(); ++isa)
    isas.push_back((pt2c_cpu_isa)isa);
  return isas;
}

inline std::string isaName(pt2c_cpu_isa isa) {
  static const char *const kNames[] = {"generic", "avx2", "avx512", "avx512bf16"};
  return kNames[isa];
}

class ScopedIsa {
public:
  explicit ScopedIsa(pt2c_cpu_isa isa) { pt2c_cpu_set_isa_override(isa); }
  ~ScopedIsa() { pt2c_cpu_set_isa_override(-1); }
  ScopedIsa(const ScopedIsa &) = delete;
  ScopedIsa &operator=(const ScopedIsa &) = delete;
};

} // namespace pt2c::testing

#endif // PT2C_TESTS_UNIT_CPU_TEST_SUPPORT_H_
