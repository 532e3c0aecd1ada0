/* Generated kernels over the thread pool (kernel_split.h). */
#include "kernel_split.h"

#include "thread_pool.h"

enum {
  /* Loop iterations below which waking the pool costs more than it saves: a parallel
   * region is a few microseconds, an iteration of an elementwise loop a nanosecond or
   * less. */
  MIN_SPLIT_WORK = 1 << 15,
  MIN_TASK_WORK = 1 << 13,
  TASKS_PER_THREAD = 4, /* evens out pieces of unequal cost, and a busy core */
};

typedef struct range_job {
  const pt2c_kernel_split *split;
  void *const *args;
  const int64_t *sym_values;
  int64_t tasks;
} range_job;

static void range_task(void *ctx, int64_t task, int thread) {
  (void)thread;
  const range_job *job = ctx;
  int64_t n = job->split->extent;
  int64_t begin = n * task / job->tasks, end = n * (task + 1) / job->tasks;
  if (begin < end)
    job->split->range(job->args, job->sym_values, begin, end);
}

void pt2c_cpu_run_kernel(pt2c_kernel_fn whole, const pt2c_kernel_split *split, void *const *args,
                         const int64_t *sym_values) {
  int threads = pt2c_pool_num_threads();
  if (split == NULL || split->range == NULL || split->extent < 2 || split->work < MIN_SPLIT_WORK ||
      threads < 2) {
    whole(args, sym_values);
    return;
  }
  int64_t tasks = (int64_t)threads * TASKS_PER_THREAD;
  if (tasks > split->work / MIN_TASK_WORK)
    tasks = split->work / MIN_TASK_WORK;
  if (tasks > split->extent)
    tasks = split->extent;
  if (tasks < 2)
    tasks = 2;
  range_job job = {split, args, sym_values, tasks};
  pt2c_pool_parallel_for(tasks, range_task, &job);
}
