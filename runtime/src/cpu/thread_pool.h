/* The process-wide CPU thread pool that dense kernels (GEMM, convolution) split their
 * outer loops over. Internal (hidden symbols). */
#ifndef PT2C_RUNTIME_CPU_THREAD_POOL_H_
#define PT2C_RUNTIME_CPU_THREAD_POOL_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Threads a parallel_for uses (the caller included): $PT2C_NUM_THREADS if set (>= 1),
 * else the CPUs in the process's affinity mask, unless pt2c_pool_set_num_threads said
 * otherwise. Workers start lazily, at the first parallel_for that needs them. */
int pt2c_pool_num_threads(void);

/* n <= 0: back to the default. Takes effect at the next parallel_for. */
void pt2c_pool_set_num_threads(int n);

/* Runs fn(ctx, task, thread) for every task in [0, num_tasks), spread over the pool's
 * threads plus the caller (thread in [0, pt2c_pool_num_threads())), and returns when all
 * are done. When the pool is busy with another caller's work, or when called from inside
 * a task, every task runs on the caller's thread (thread 0): never a deadlock, never more
 * threads than CPUs. Idle workers spin for about a millisecond, then sleep. */
typedef void (*pt2c_pool_task_fn)(void *ctx, int64_t task, int thread);
void pt2c_pool_parallel_for(int64_t num_tasks, pt2c_pool_task_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CPU_THREAD_POOL_H_ */
