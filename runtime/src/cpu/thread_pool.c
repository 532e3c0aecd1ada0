/* The CPU thread pool: one job at a time, tasks handed out by an atomic counter.
 *
 * A caller claims the pool (a flag, never a wait), publishes the job and bumps
 * `generation`; workers that see the new generation take tasks until none are left and
 * then acknowledge. A caller that finds the pool claimed (another model running in another
 * thread) or that is itself inside a task runs its tasks alone: the CPUs are busy anyway,
 * and waiting for the pool could deadlock.
 *
 * Per-thread state lives behind a pthread key, not _Thread_local: TLS in a dlopen'ed
 * library would need __tls_get_addr (see error.c). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "thread_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

enum { kMaxThreads = 1024 }; /* as pt2c_set_num_threads allows (threads.c) */
/* How long an idle worker spins before it sleeps: kernels of one model run follow each
 * other within microseconds, a sleeping worker takes tens of microseconds to wake. */
static const int64_t kSpinNanos = 1000000;

static struct {
  pthread_mutex_t mutex;
  pthread_cond_t work_cv; /* sleeping workers wait here for a new generation */
  pthread_cond_t done_cv; /* a sleeping caller waits here for pending == 0 */
  pthread_t workers[kMaxThreads];
  uint64_t start_generation[kMaxThreads]; /* the generation a worker was started at */
  int num_workers;                        /* started (changed only by the claim holder) */
  int sleeping;                           /* workers in work_cv (under mutex) */
  atomic_int shutdown;
  atomic_uint_fast64_t generation;
  /* The job: written by the claim holder before it bumps the generation. */
  pt2c_pool_task_fn fn;
  void* ctx;
  int64_t num_tasks;
  int job_threads; /* threads that take tasks: the caller and workers 1..job_threads-1 */
  atomic_int_fast64_t next_task;
  atomic_int pending; /* workers yet to acknowledge the job */
  atomic_int claimed;
  atomic_int requested_threads; /* pt2c_pool_set_num_threads; 0: default */
} g_pool = {
    .mutex = PTHREAD_MUTEX_INITIALIZER,
    .work_cv = PTHREAD_COND_INITIALIZER,
    .done_cv = PTHREAD_COND_INITIALIZER,
};

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_in_task_key; /* non-NULL on workers and on a caller running tasks */
static int g_key_created;
static int g_default_threads = 1;

static void init_once(void) {
  g_key_created = pthread_key_create(&g_in_task_key, NULL) == 0;
  int n = 0;
  const char* env = getenv("PT2C_NUM_THREADS");
  if (env && *env) n = atoi(env);
  if (n < 1) {
    cpu_set_t set;
    n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  }
  g_default_threads = n < 1 ? 1 : n > kMaxThreads ? kMaxThreads : n;
}

int pt2c_pool_num_threads(void) {
  pthread_once(&g_once, init_once);
  int n = atomic_load(&g_pool.requested_threads);
  return n > 0 ? n : g_default_threads;
}

void pt2c_pool_set_num_threads(int n) {
  atomic_store(&g_pool.requested_threads, n <= 0 ? 0 : n > kMaxThreads ? kMaxThreads : n);
}

static int in_task(void) {
  return g_key_created && pthread_getspecific(g_in_task_key) != NULL;
}

static void set_in_task(int on) {
  if (g_key_created) pthread_setspecific(g_in_task_key, on ? (void*)1 : NULL);
}

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static int64_t now_nanos(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void run_tasks(int thread) {
  for (;;) {
    int64_t task = atomic_fetch_add_explicit(&g_pool.next_task, 1, memory_order_relaxed);
    if (task >= g_pool.num_tasks) return;
    g_pool.fn(g_pool.ctx, task, thread);
  }
}

/* Spins, then sleeps, until the generation differs from `seen`; returns the new one. */
static uint64_t wait_for_job(uint64_t seen) {
  int64_t start = now_nanos();
  for (uint32_t i = 1;; ++i) {
    uint64_t gen = atomic_load_explicit(&g_pool.generation, memory_order_acquire);
    if (gen != seen) return gen;
    cpu_relax();
    if ((i & 255) == 0 && now_nanos() - start > kSpinNanos) break;
  }
  pthread_mutex_lock(&g_pool.mutex);
  uint64_t gen;
  while ((gen = atomic_load_explicit(&g_pool.generation, memory_order_acquire)) == seen) {
    ++g_pool.sleeping;
    pthread_cond_wait(&g_pool.work_cv, &g_pool.mutex);
    --g_pool.sleeping;
  }
  pthread_mutex_unlock(&g_pool.mutex);
  return gen;
}

static void* worker_main(void* arg) {
  int index = (int)(intptr_t)arg; /* 1-based: the caller is thread 0 */
  set_in_task(1);                 /* a task's own parallel_for runs inline */
  uint64_t seen = g_pool.start_generation[index];
  for (;;) {
    seen = wait_for_job(seen);
    if (atomic_load(&g_pool.shutdown)) return NULL;
    if (index < g_pool.job_threads) run_tasks(index);
    /* Every started worker acknowledges every job, taking part or not, so the job's
     * fields are never rewritten while a worker may still read them. */
    if (atomic_fetch_sub_explicit(&g_pool.pending, 1, memory_order_acq_rel) == 1) {
      pthread_mutex_lock(&g_pool.mutex);
      pthread_cond_broadcast(&g_pool.done_cv);
      pthread_mutex_unlock(&g_pool.mutex);
    }
  }
}

/* Starts workers up to `threads` - 1 (claim held). Fewer if the system refuses. */
static void start_workers(int threads) {
  while (g_pool.num_workers < threads - 1) {
    int index = g_pool.num_workers + 1;
    g_pool.start_generation[index] = atomic_load(&g_pool.generation);
    if (pthread_create(&g_pool.workers[index], NULL, worker_main, (void*)(intptr_t)index))
      return;
    g_pool.num_workers = index;
  }
}

static void run_inline(int64_t num_tasks, pt2c_pool_task_fn fn, void* ctx) {
  for (int64_t t = 0; t < num_tasks; ++t) fn(ctx, t, 0);
}

void pt2c_pool_parallel_for(int64_t num_tasks, pt2c_pool_task_fn fn, void* ctx) {
  if (num_tasks <= 0) return;
  int threads = pt2c_pool_num_threads();
  int expected = 0;
  if (num_tasks == 1 || threads == 1 || in_task() ||
      !atomic_compare_exchange_strong(&g_pool.claimed, &expected, 1)) {
    run_inline(num_tasks, fn, ctx);
    return;
  }
  start_workers(threads);
  if (g_pool.num_workers == 0) {
    atomic_store(&g_pool.claimed, 0);
    run_inline(num_tasks, fn, ctx);
    return;
  }
  g_pool.fn = fn;
  g_pool.ctx = ctx;
  g_pool.num_tasks = num_tasks;
  g_pool.job_threads = threads < g_pool.num_workers + 1 ? threads : g_pool.num_workers + 1;
  atomic_store_explicit(&g_pool.next_task, 0, memory_order_relaxed);
  atomic_store_explicit(&g_pool.pending, g_pool.num_workers, memory_order_relaxed);
  pthread_mutex_lock(&g_pool.mutex);
  atomic_fetch_add_explicit(&g_pool.generation, 1, memory_order_release);
  if (g_pool.sleeping) pthread_cond_broadcast(&g_pool.work_cv);
  pthread_mutex_unlock(&g_pool.mutex);

  set_in_task(1);
  run_tasks(0);
  set_in_task(0);

  for (int i = 0; i < 4096; ++i) {
    if (atomic_load_explicit(&g_pool.pending, memory_order_acquire) == 0) break;
    cpu_relax();
  }
  if (atomic_load_explicit(&g_pool.pending, memory_order_acquire) != 0) {
    pthread_mutex_lock(&g_pool.mutex);
    while (atomic_load_explicit(&g_pool.pending, memory_order_acquire) != 0)
      pthread_cond_wait(&g_pool.done_cv, &g_pool.mutex);
    pthread_mutex_unlock(&g_pool.mutex);
  }
  atomic_store_explicit(&g_pool.claimed, 0, memory_order_release);
}

/* Workers run this library's code: stop them before it is unmapped (dlclose). */
__attribute__((destructor)) static void pool_shutdown(void) {
  int expected = 0;
  /* A job still running in another thread at unload is the host's bug; don't hang. */
  if (g_pool.num_workers == 0 ||
      !atomic_compare_exchange_strong(&g_pool.claimed, &expected, 1))
    return;
  pthread_mutex_lock(&g_pool.mutex);
  atomic_store(&g_pool.shutdown, 1);
  atomic_fetch_add(&g_pool.generation, 1);
  pthread_cond_broadcast(&g_pool.work_cv);
  pthread_mutex_unlock(&g_pool.mutex);
  for (int i = 1; i <= g_pool.num_workers; ++i) pthread_join(g_pool.workers[i], NULL);
  g_pool.num_workers = 0;
  if (g_key_created) pthread_key_delete(g_in_task_key);
}
