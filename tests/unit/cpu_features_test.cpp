// The runtime's x86 feature check: the parser and message on made-up CPUs, and cpuid's
// answer on this machine against the kernel's /proc/cpuinfo.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "pt2c/pt2c.h"
#include "runtime/src/cpu_features.h"

using Catch::Matchers::Contains;

namespace {

pt2c_cpu_feature_set bits(std::initializer_list<const char *> names) {
  pt2c_cpu_feature_set set = 0;
  for (const char *name : names) {
    pt2c_cpu_feature_set bit = pt2c_cpu_feature_bit(name, std::strlen(name));
    REQUIRE(bit != 0);
    set |= bit;
  }
  return set;
}

std::set<std::string> procCpuinfoFlags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0)
      continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;)
      flags.insert(w);
    return flags;
  }
  return {};
}

} // namespace

TEST_CASE("a CPU with every recorded feature passes") {
  CHECK(pt2c_cpu_features_check("sse4.2,avx,avx2,fma", "haswell",
                                bits({"sse4.2", "avx", "avx2", "fma", "avx512f"})) == PT2C_OK);
  CHECK(pt2c_cpu_features_check("", "x86-64", 0) == PT2C_OK);
}

TEST_CASE("missing features are named, with the CPU the model was compiled for") {
  REQUIRE(pt2c_cpu_features_check("sse4.2,avx,avx2,fma", "haswell", bits({"sse4.2", "avx"})) ==
          PT2C_ERROR_UNSUPPORTED);
  std::string message = pt2c_last_error();
  CHECK_THAT(message, Contains("compiled for x86-64 features sse4.2,avx,avx2,fma (--cpu haswell)"));
  CHECK_THAT(message, Contains("this CPU lacks avx2,fma."));
}

TEST_CASE("a feature the runtime does not know is refused, not skipped") {
  REQUIRE(pt2c_cpu_features_check("avx2,avx9000", "future", bits({"avx2"})) ==
          PT2C_ERROR_UNSUPPORTED);
  CHECK_THAT(std::string(pt2c_last_error()), Contains("cannot check: avx9000 (--cpu future)"));
  CHECK(pt2c_cpu_feature_bit("avx", 3) != pt2c_cpu_feature_bit("avx2", 4));
  CHECK(pt2c_cpu_feature_bit("avx51", 5) == 0); // a prefix of a name is no name
}

TEST_CASE("cpuid agrees with /proc/cpuinfo on this machine") {
  std::set<std::string> flags = procCpuinfoFlags();
  REQUIRE(!flags.empty());
  pt2c_cpu_feature_set host = pt2c_cpu_host_features();
  // /proc/cpuinfo spelling -> LLVM spelling. The kernel hides AVX flags whose register
  // state the OS does not save, as the runtime's xgetbv check does.
  const std::pair<const char *, const char *> pairs[] = {
      {"sse4_2", "sse4.2"},
      {"popcnt", "popcnt"},
      {"avx", "avx"},
      {"avx2", "avx2"},
      {"fma", "fma"},
      {"f16c", "f16c"},
      {"bmi2", "bmi2"},
      {"abm", "lzcnt"},
      {"avx512f", "avx512f"},
      {"avx512bw", "avx512bw"},
      {"avx512vl", "avx512vl"},
      {"avx512_fp16", "avx512fp16"},
      {"avx512_bf16", "avx512bf16"},
      {"avx_vnni", "avxvnni"},
      {"gfni", "gfni"},
  };
  for (auto [proc, llvm] : pairs) {
    INFO(proc);
    CHECK(((host & bits({llvm})) != 0) == (flags.count(proc) != 0));
  }
}
