/* The library behind a GPU plan's convolution steps (PT2C_STEP_CONV): cuDNN for CUDA plans
 * (cuda_conv.h), MIOpen for ROCm plans (../rocm/miopen_conv.h). cuda_model.c picks one by
 * the plan's device and keeps its table of the plan's convolutions; cuda_run.c runs a
 * convolution step through it when it serves the convolution, else the step's fallback
 * steps (our own kernels). Internal. */
#ifndef PT2C_RUNTIME_CUDA_CONV_LIBRARY_H_
#define PT2C_RUNTIME_CUDA_CONV_LIBRARY_H_

#include <stdint.h>

#include "../plan.h"
#include "cuda_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `convs` is the library's table of the plan's convolutions (its own type). */
typedef struct pt2c_conv_library {
  /* Prepares every convolution of `plan` (the model's context is current; `host_weights`
   * is the weights blob in host memory). Never fails for lack of the library (*out then
   * serves none); fails only for out-of-memory or a failed copy. */
  pt2c_status (*create)(const pt2c_cuda_driver *cu, const pt2c_plan *plan,
                        const unsigned char *host_weights, void **out);
  /* A context's table (cuda_model.h's pt2c_cuda_model_share): the parent's descriptors and
   * choices, a handle and workspace of its own. */
  pt2c_status (*share)(const pt2c_cuda_driver *cu, const void *parent, void **out);
  void (*destroy)(const pt2c_cuda_driver *cu, void *convs); /* null is allowed */
  /* How many convolutions the library serves. */
  uint32_t (*served)(const void *convs);
  /* Whether convolution `index` runs through the library with these buffers (its step's
   * args): it is served and every address has the alignment the library assumes. */
  int (*usable)(const void *convs, uint32_t index, const CUdeviceptr *buffers,
                uint32_t num_buffers);
  /* Convolution `index` is not served from now on (the library refused to run it), so its
   * fallback steps run instead. Returns 0 when it cannot fall back. */
  int (*refuse)(void *convs, uint32_t index);
  /* Queues convolution `index` on `stream` with the buffers' device addresses. */
  pt2c_status (*run)(const void *convs, uint32_t index, const CUdeviceptr *buffers,
                     CUstream stream);
} pt2c_conv_library;

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CUDA_CONV_LIBRARY_H_ */
