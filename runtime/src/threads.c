/* The ABI's thread-count calls, over the CPU thread pool (cpu/thread_pool.h). */
#include "cpu/thread_pool.h"
#include "error.h"
#include "pt2c/pt2c.h"

enum { kMaxThreads = 1024 };

PT2C_API pt2c_status pt2c_set_num_threads(int32_t num_threads) {
  if (num_threads > kMaxThreads)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT,
                     "pt2c_set_num_threads: %d threads is more than the %d allowed", num_threads,
                     kMaxThreads);
  pt2c_pool_set_num_threads(num_threads);
  return PT2C_OK;
}

PT2C_API int32_t pt2c_num_threads(void) { return pt2c_pool_num_threads(); }
