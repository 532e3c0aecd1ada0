// The CPU thread pool (runtime/src/cpu/thread_pool.h): every task runs once, callers in
// two threads at once, nested calls, thread counts.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "runtime/src/cpu/thread_pool.h"

namespace {

struct Counts {
  std::vector<std::atomic<int>> runs;
  std::atomic<int> max_thread{0};
  explicit Counts(size_t n) : runs(n) {}
};

void countTask(void *ctx, int64_t task, int thread) {
  auto *counts = static_cast<Counts *>(ctx);
  counts->runs[task].fetch_add(1);
  int seen = counts->max_thread.load();
  while (thread > seen && !counts->max_thread.compare_exchange_weak(seen, thread)) {
  }
}

void requireEachOnce(const Counts &counts) {
  for (size_t i = 0; i < counts.runs.size(); ++i)
    REQUIRE(counts.runs[i].load() == 1);
}

// Each task runs its own parallel_for, which must run inline on the task's thread.
struct Nested {
  std::atomic<int> inner_runs{0};
  std::atomic<int> inner_wrong_thread{0};
};

void innerTask(void *ctx, int64_t, int thread) {
  auto *nested = static_cast<Nested *>(ctx);
  nested->inner_runs.fetch_add(1);
  if (thread != 0)
    nested->inner_wrong_thread.fetch_add(1);
}

void outerTask(void *ctx, int64_t, int) { pt2c_pool_parallel_for(10, innerTask, ctx); }

} // namespace

TEST_CASE("parallel_for runs every task exactly once on valid threads") {
  for (int64_t n : {1, 2, 3, 100, 10000}) {
    Counts counts(n);
    pt2c_pool_parallel_for(n, countTask, &counts);
    requireEachOnce(counts);
    REQUIRE(counts.max_thread.load() < pt2c_pool_num_threads());
  }
  pt2c_pool_parallel_for(0, countTask, nullptr); // nothing to do, nothing touched
}

TEST_CASE("parallel_for from two threads at once, and nested") {
  const int64_t n = 20000;
  for (int round = 0; round < 50; ++round) {
    Counts a(n), b(n);
    std::thread other([&] { pt2c_pool_parallel_for(n, countTask, &b); });
    pt2c_pool_parallel_for(n, countTask, &a);
    other.join();
    requireEachOnce(a);
    requireEachOnce(b);
  }
  Nested nested;
  pt2c_pool_parallel_for(16, outerTask, &nested);
  CHECK(nested.inner_runs.load() == 160);
  CHECK(nested.inner_wrong_thread.load() == 0);
}

TEST_CASE("set_num_threads limits the threads and resets to the default") {
  int default_threads = pt2c_pool_num_threads();
  REQUIRE(default_threads >= 1);
  pt2c_pool_set_num_threads(1);
  CHECK(pt2c_pool_num_threads() == 1);
  Counts one(1000);
  pt2c_pool_parallel_for(1000, countTask, &one);
  requireEachOnce(one);
  CHECK(one.max_thread.load() == 0);
  pt2c_pool_set_num_threads(3);
  CHECK(pt2c_pool_num_threads() == 3);
  Counts three(1000);
  pt2c_pool_parallel_for(1000, countTask, &three);
  requireEachOnce(three);
  CHECK(three.max_thread.load() < 3);
  pt2c_pool_set_num_threads(0);
  CHECK(pt2c_pool_num_threads() == default_threads);
}

// Many tiny jobs back to back, more threads than cores: workers often wake after their
// job is over (the caller finished it alone) while the next job is being published in
// the other slot. Every task of every job must still run exactly once, with its own job's
// function and context. (Before the pool stopped waiting for every worker to acknowledge
// each job, this took 20 s here; now well under 1 s.)
TEST_CASE("back-to-back tiny jobs with late workers run each task once") {
  pt2c_pool_set_num_threads(4);
  for (int job = 0; job < 20000; ++job) {
    int64_t n = 2 + job % 3;
    Counts counts(n);
    pt2c_pool_parallel_for(n, countTask, &counts);
    for (int64_t i = 0; i < n; ++i)
      REQUIRE(counts.runs[i].load() == 1);
    REQUIRE(counts.max_thread.load() < 4);
  }
  pt2c_pool_set_num_threads(0);
}
