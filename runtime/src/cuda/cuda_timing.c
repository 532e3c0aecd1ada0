/* Timing queued GPU work inside a CUDA graph (see cuda_timing.h). */
#include "cuda_timing.h"

#include <stddef.h>

/* Timed launches of the graph after its warm-up; the best counts, since a disturbance
 * (another process on the GPU) only adds time. */
enum { kTimedLaunches = 3 };

/* Captures `calls` calls of `enqueue` on `stream` into *exec. */
static int capture(const pt2c_cuda_driver *cu, pt2c_cuda_enqueue_fn enqueue, void *data, int calls,
                   CUstream stream, CUgraphExec *exec) {
  if (cu->StreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) != CUDA_SUCCESS)
    return 0;
  int queued = 1;
  for (int i = 0; i < calls && queued; ++i)
    queued = enqueue(data, stream);
  /* Capture must end even after a failed call: the stream stays unusable until then. */
  CUgraph graph = NULL;
  int ended = cu->StreamEndCapture(stream, &graph) == CUDA_SUCCESS && graph != NULL;
  int made = ended && queued && cu->GraphInstantiateWithFlags(exec, graph, 0) == CUDA_SUCCESS;
  if (graph != NULL)
    cu->GraphDestroy(graph);
  return made;
}

/* The best of kTimedLaunches launches of `exec` on `stream` between events, in ms. */
static int time_launches(const pt2c_cuda_driver *cu, CUgraphExec exec, CUstream stream,
                         float *best) {
  CUevent start = NULL, stop = NULL;
  int ok = cu->EventCreate(&start, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
           cu->EventCreate(&stop, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
           cu->GraphLaunch(exec, stream) == CUDA_SUCCESS; /* warm-up: loads the kernels */
  for (int i = 0; i < kTimedLaunches && ok; ++i) {
    float ms = 0;
    ok = cu->EventRecord(start, stream) == CUDA_SUCCESS &&
         cu->GraphLaunch(exec, stream) == CUDA_SUCCESS &&
         cu->EventRecord(stop, stream) == CUDA_SUCCESS &&
         cu->EventSynchronize(stop) == CUDA_SUCCESS &&
         cu->EventElapsedTime(&ms, start, stop) == CUDA_SUCCESS;
    if (ok && (i == 0 || ms < *best))
      *best = ms;
  }
  if (cu->StreamSynchronize(stream) != CUDA_SUCCESS)
    ok = 0;
  if (start != NULL)
    cu->EventDestroy(start);
  if (stop != NULL)
    cu->EventDestroy(stop);
  return ok;
}

int pt2c_cuda_time_calls(const pt2c_cuda_driver *cu, pt2c_cuda_enqueue_fn enqueue, void *data,
                         int calls, float *ms) {
  if (calls < 1)
    return 0;
  CUstream stream = NULL;
  if (cu->StreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    return 0;
  CUgraphExec exec = NULL;
  float best = 0;
  int ok =
      capture(cu, enqueue, data, calls, stream, &exec) && time_launches(cu, exec, stream, &best);
  if (exec != NULL)
    cu->GraphExecDestroy(exec);
  cu->StreamDestroy(stream);
  if (ok)
    *ms = best / (float)calls;
  return ok;
}
