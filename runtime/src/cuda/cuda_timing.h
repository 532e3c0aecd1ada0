/* Timing queued GPU work the way a model runs it: inside a CUDA graph. Internal.
 *
 * A library's own search (cudnnFind) times each candidate with one call from the host, so
 * for a small kernel it mostly measures the call's overhead; a model replays its steps in
 * a graph, where only the kernels' time counts. */
#ifndef PT2C_RUNTIME_CUDA_TIMING_H_
#define PT2C_RUNTIME_CUDA_TIMING_H_

#include "cuda_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Queues one call of the work on `stream`; returns 0 on failure. */
typedef int (*pt2c_cuda_enqueue_fn)(void *data, CUstream stream);

/* The GPU time of one call of `enqueue`, in ms: `calls` calls are captured into one
 * graph on a stream of its own, which is launched once to warm up and then timed between
 * events a few times; the result is the best launch's time over `calls`. Returns 0 (and
 * leaves *ms alone) when any of it failed, including a call that cannot be captured. The
 * current context must be the model's; this synchronizes with the work it queued. */
int pt2c_cuda_time_calls(const pt2c_cuda_driver *cu, pt2c_cuda_enqueue_fn enqueue, void *data,
                         int calls, float *ms);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CUDA_TIMING_H_ */
