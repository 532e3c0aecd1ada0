// Generated kernels split over the pool (runtime/src/cpu/kernel_split.h): every iteration
// of the split loop runs exactly once, in pieces only when the work pays and there are
// threads to share it; otherwise the whole entry runs.
#include <catch2/catch.hpp>

#include <atomic>
#include <vector>

#include "runtime/src/cpu/kernel_split.h"
#include "runtime/src/cpu/thread_pool.h"

namespace {

constexpr int64_t kExtent = 1000;
std::vector<std::atomic<int>> g_visits(kExtent);
std::atomic<int> g_range_calls{0}, g_whole_calls{0}, g_bad_calls{0};

// Runs on pool workers too, where Catch2's assertions must not be used: bad calls are
// counted and checked by the test's thread.
void rangeEntry(void *const *buffers, const int64_t *syms, int64_t begin, int64_t end) {
  if (buffers == nullptr || syms != nullptr || begin < 0 || begin >= end || end > kExtent) {
    g_bad_calls++;
    return;
  }
  for (int64_t i = begin; i < end; ++i)
    g_visits[i]++;
  g_range_calls++;
}

void wholeEntry(void *const *buffers, const int64_t *syms) {
  rangeEntry(buffers, syms, 0, kExtent);
  g_whole_calls++;
}

void reset() {
  g_bad_calls = 0;
  for (auto &v : g_visits)
    v = 0;
  g_range_calls = 0;
  g_whole_calls = 0;
}

void requireEachOnce() {
  REQUIRE(g_bad_calls == 0);
  for (int64_t i = 0; i < kExtent; ++i)
    REQUIRE(g_visits[i] == 1);
}

} // namespace

TEST_CASE("a split kernel covers its loop once, in pieces when the work pays") {
  void *buffer = &g_visits;
  void *const args[] = {buffer};
  pt2c_pool_set_num_threads(2);
  SECTION("enough work: pieces") {
    reset();
    pt2c_kernel_split split{rangeEntry, kExtent, int64_t{1} << 20};
    pt2c_cpu_run_kernel(wholeEntry, &split, args, nullptr);
    requireEachOnce();
    CHECK(g_whole_calls == 0);
    CHECK(g_range_calls >= 2);
  }
  SECTION("too little work: whole") {
    reset();
    pt2c_kernel_split split{rangeEntry, kExtent, 100};
    pt2c_cpu_run_kernel(wholeEntry, &split, args, nullptr);
    requireEachOnce();
    CHECK(g_whole_calls == 1);
  }
  SECTION("no split entry or table: whole") {
    reset();
    pt2c_kernel_split none{nullptr, 0, 0};
    pt2c_cpu_run_kernel(wholeEntry, &none, args, nullptr);
    pt2c_cpu_run_kernel(wholeEntry, nullptr, args, nullptr);
    REQUIRE(g_bad_calls == 0);
    for (int64_t i = 0; i < kExtent; ++i)
      REQUIRE(g_visits[i] == 2);
    CHECK(g_whole_calls == 2);
  }
  SECTION("one thread: whole") {
    reset();
    pt2c_pool_set_num_threads(1);
    pt2c_kernel_split split{rangeEntry, kExtent, int64_t{1} << 20};
    pt2c_cpu_run_kernel(wholeEntry, &split, args, nullptr);
    requireEachOnce();
    CHECK(g_whole_calls == 1);
  }
  SECTION("an extent smaller than the pieces wanted: one piece per iteration at most") {
    reset();
    pt2c_kernel_split split{rangeEntry, 3, int64_t{1} << 20};
    pt2c_cpu_run_kernel(wholeEntry, &split, args, nullptr);
    REQUIRE(g_bad_calls == 0);
    for (int64_t i = 0; i < 3; ++i)
      REQUIRE(g_visits[i] == 1);
    for (int64_t i = 3; i < kExtent; ++i)
      REQUIRE(g_visits[i] == 0);
    CHECK(g_range_calls <= 3);
  }
  pt2c_pool_set_num_threads(0);
}
