/* The CPU thread pool: one job at a time, tasks handed out by an atomic ticket.
 *
 * A caller claims the pool (a flag, never a wait), publishes the job and bumps
 * `generation`; workers that see the new generation take tasks until none are left. The
 * caller waits for the job's tasks to finish, not for every worker to have looked at the
 * job: a worker whose core is busy elsewhere (another process, more threads than cores)
 * must not hold up a job the other threads already finished (resnet18 with 4 threads on
 * 2 cores: 74-84 ms with acknowledgements, 41-55 without). So a worker may wake after its
 * job is over; the ticket, (job generation, next task), makes that safe: a task is claimed
 * by a compare-exchange that succeeds only while the worker's job is the current one, and
 * a job's description (in a slot per generation parity) is not rewritten until two jobs
 * later, after every task of the job has finished.
 *
 * A caller that finds the pool claimed (another model running in another thread) or that
 * is itself inside a task runs its tasks alone: the CPUs are busy anyway, and waiting for
 * the pool could deadlock.
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

/* What a job is; written by the claim holder before it bumps the generation. Atomic
 * (relaxed): a late worker may read a slot while the claim holder rewrites it for a later
 * job; the ticket tells it that job is not its own before it uses what it read. */
typedef struct pool_job {
  _Atomic(pt2c_pool_task_fn) fn;
  _Atomic(void *) ctx;
  atomic_int_fast64_t num_tasks; /* below 2^31 (the ticket's task field is 32 bits) */
  atomic_int job_threads;        /* threads that take tasks: the caller and workers 1.. */
} pool_job;

static struct {
  pthread_mutex_t mutex;
  pthread_cond_t work_cv; /* sleeping workers wait here for a new generation */
  pthread_cond_t done_cv; /* a sleeping caller waits here for done == num_tasks */
  pthread_t workers[kMaxThreads];
  uint64_t start_generation[kMaxThreads]; /* the generation a worker was started at */
  int num_workers;                        /* started (changed only by the claim holder) */
  int sleeping;                           /* workers in work_cv (under mutex) */
  atomic_int shutdown;
  atomic_uint_fast64_t generation;
  pool_job jobs[2];            /* the job of generation g is jobs[g & 1] */
  atomic_uint_fast64_t ticket; /* (generation & 0xffffffff) << 32 | next task */
  atomic_int_fast64_t done;    /* tasks of the current job finished */
  int caller_waiting;          /* the caller sleeps in done_cv (under mutex) */
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
  const char *env = getenv("PT2C_NUM_THREADS");
  if (env && *env)
    n = atoi(env);
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

static int in_task(void) { return g_key_created && pthread_getspecific(g_in_task_key) != NULL; }

static void set_in_task(int on) {
  if (g_key_created)
    pthread_setspecific(g_in_task_key, on ? (void *)1 : NULL);
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

/* Takes tasks of job `generation` until none are left or the job is over; returns 1 when
 * this thread finished the job's last task. */
static int run_tasks(uint64_t generation, int thread) {
  const pool_job *job = &g_pool.jobs[generation & 1];
  uint64_t tag = (generation & 0xffffffffu) << 32;
  for (;;) {
    uint64_t t = atomic_load_explicit(&g_pool.ticket, memory_order_acquire);
    /* The job's fields are read before the claim and used after it: once a claim of this
     * job succeeds, the job cannot end (nor its slot be rewritten) before the task is done. */
    int64_t num_tasks = atomic_load_explicit(&job->num_tasks, memory_order_relaxed);
    pt2c_pool_task_fn fn = atomic_load_explicit(&job->fn, memory_order_relaxed);
    void *ctx = atomic_load_explicit(&job->ctx, memory_order_relaxed);
    if ((t & ~(uint64_t)0xffffffffu) != tag || (int64_t)(t & 0xffffffffu) >= num_tasks)
      return 0;
    if (!atomic_compare_exchange_weak_explicit(&g_pool.ticket, &t, t + 1, memory_order_acq_rel,
                                               memory_order_acquire))
      continue;
    fn(ctx, (int64_t)(t & 0xffffffffu), thread);
    if (atomic_fetch_add_explicit(&g_pool.done, 1, memory_order_acq_rel) + 1 == num_tasks)
      return 1;
  }
}

/* Spins, then sleeps, until the generation differs from `seen`; returns the new one. */
static uint64_t wait_for_job(uint64_t seen) {
  int64_t start = now_nanos();
  for (uint32_t i = 1;; ++i) {
    uint64_t gen = atomic_load_explicit(&g_pool.generation, memory_order_acquire);
    if (gen != seen)
      return gen;
    cpu_relax();
    if ((i & 255) == 0 && now_nanos() - start > kSpinNanos)
      break;
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

static void *worker_main(void *arg) {
  int index = (int)(intptr_t)arg; /* 1-based: the caller is thread 0 */
  set_in_task(1);                 /* a task's own parallel_for runs inline */
  uint64_t seen = g_pool.start_generation[index];
  for (;;) {
    seen = wait_for_job(seen);
    if (atomic_load(&g_pool.shutdown))
      return NULL;
    /* A late worker may read a later job's thread count here: it then takes part or not
     * in a job that is over anyway (run_tasks claims nothing of it). */
    int job_threads =
        atomic_load_explicit(&g_pool.jobs[seen & 1].job_threads, memory_order_relaxed);
    if (index >= job_threads || !run_tasks(seen, index))
      continue;
    pthread_mutex_lock(&g_pool.mutex); /* the last task: wake a sleeping caller */
    if (g_pool.caller_waiting)
      pthread_cond_broadcast(&g_pool.done_cv);
    pthread_mutex_unlock(&g_pool.mutex);
  }
}

/* Starts workers up to `threads` - 1 (claim held). Fewer if the system refuses. */
static void start_workers(int threads) {
  while (g_pool.num_workers < threads - 1) {
    int index = g_pool.num_workers + 1;
    g_pool.start_generation[index] = atomic_load(&g_pool.generation);
    if (pthread_create(&g_pool.workers[index], NULL, worker_main, (void *)(intptr_t)index))
      return;
    g_pool.num_workers = index;
  }
}

static void run_inline(int64_t num_tasks, pt2c_pool_task_fn fn, void *ctx) {
  for (int64_t t = 0; t < num_tasks; ++t)
    fn(ctx, t, 0);
}

void pt2c_pool_parallel_for(int64_t num_tasks, pt2c_pool_task_fn fn, void *ctx) {
  if (num_tasks <= 0)
    return;
  int threads = pt2c_pool_num_threads();
  int expected = 0;
  if (num_tasks == 1 || threads == 1 || in_task() || num_tasks > 0x7fffffff ||
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
  uint64_t generation = atomic_load_explicit(&g_pool.generation, memory_order_relaxed) + 1;
  pool_job *job = &g_pool.jobs[generation & 1];
  atomic_store_explicit(&job->fn, fn, memory_order_relaxed);
  atomic_store_explicit(&job->ctx, ctx, memory_order_relaxed);
  atomic_store_explicit(&job->num_tasks, num_tasks, memory_order_relaxed);
  atomic_store_explicit(&job->job_threads,
                        threads < g_pool.num_workers + 1 ? threads : g_pool.num_workers + 1,
                        memory_order_relaxed);
  atomic_store_explicit(&g_pool.done, 0, memory_order_relaxed);
  atomic_store_explicit(&g_pool.ticket, (generation & 0xffffffffu) << 32, memory_order_release);
  pthread_mutex_lock(&g_pool.mutex);
  atomic_store_explicit(&g_pool.generation, generation, memory_order_release);
  if (g_pool.sleeping)
    pthread_cond_broadcast(&g_pool.work_cv);
  pthread_mutex_unlock(&g_pool.mutex);

  set_in_task(1);
  run_tasks(generation, 0);
  set_in_task(0);

  for (int i = 0; i < 4096; ++i) {
    if (atomic_load_explicit(&g_pool.done, memory_order_acquire) == num_tasks)
      break;
    cpu_relax();
  }
  if (atomic_load_explicit(&g_pool.done, memory_order_acquire) != num_tasks) {
    pthread_mutex_lock(&g_pool.mutex);
    g_pool.caller_waiting = 1;
    while (atomic_load_explicit(&g_pool.done, memory_order_acquire) != num_tasks)
      pthread_cond_wait(&g_pool.done_cv, &g_pool.mutex);
    g_pool.caller_waiting = 0;
    pthread_mutex_unlock(&g_pool.mutex);
  }
  atomic_store_explicit(&g_pool.claimed, 0, memory_order_release);
}

/* Workers run this library's code: stop them before it is unmapped (dlclose). */
__attribute__((destructor)) static void pool_shutdown(void) {
  int expected = 0;
  /* A job still running in another thread at unload is the host's bug; don't hang. */
  if (g_pool.num_workers == 0 || !atomic_compare_exchange_strong(&g_pool.claimed, &expected, 1))
    return;
  pthread_mutex_lock(&g_pool.mutex);
  atomic_store(&g_pool.shutdown, 1);
  atomic_fetch_add(&g_pool.generation, 1);
  pthread_cond_broadcast(&g_pool.work_cv);
  pthread_mutex_unlock(&g_pool.mutex);
  for (int i = 1; i <= g_pool.num_workers; ++i)
    pthread_join(g_pool.workers[i], NULL);
  g_pool.num_workers = 0;
  if (g_key_created)
    pthread_key_delete(g_in_task_key);
}
