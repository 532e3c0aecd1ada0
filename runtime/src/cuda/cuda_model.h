/* The device side of a CUDA model: its module, device memory and launch tables. Internal.
 *
 * Created once by pt2c_model_create (weights uploaded, arena allocated, kernels looked
 * up), so that a run is only copies (host-memory runs) and kernel launches. */
#ifndef PT2C_RUNTIME_CUDA_MODEL_H_
#define PT2C_RUNTIME_CUDA_MODEL_H_

#include "../model.h"
#include "conv_library.h"
#include "cuda_driver.h"
#include "cuda_gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How many CUDA graphs a model keeps, one per set of caller tensors (see graphs). */
enum { kCudaGraphsPerModel = 4 };

struct pt2c_cuda_model {
  /* 1: module and weights are another model's, which this one neither frees nor
   * unloads: a context's parent's (model.h), or the first graph's of a plan set */
  int shared;
  int owns_functions; /* 0: a context's, borrowed from its parent */
  const pt2c_cuda_driver *cu;
  CUdevice device;
  CUcontext context; /* the device's primary context, retained; NULL if not */
  CUmodule module;
  CUfunction *functions; /* per entry of the plan's GPU kernel table */
  CUdeviceptr weights;   /* device copy of the plan's weights bytes; 0 if none */
  CUdeviceptr arena;     /* 0 if the plan needs none */
  CUdeviceptr state;     /* this model's STATE buffers; 0 if none */
  CUdeviceptr symbols;   /* the SYMBOLS buffer: the run's symbol values; 0 if the
                            plan has no dynamic dimensions */
  CUdeviceptr *staging;  /* per input, then per output: device copies for
                            host-memory runs; 0 for empty tensors */
  uint32_t num_staging;
  CUdeviceptr *buffer_address; /* per plan buffer; INPUT/OUTPUT entries set per run */
  CUdeviceptr *arg_values;     /* max_step_args entries: one step's kernel parameters */
  void **params;               /* params[i] = &arg_values[i], as cuLaunchKernel takes them */
  /* A run is one launch of a CUDA graph of all the plan's steps (unless
   * PT2C_CUDA_GRAPH=0 at create): launching the steps one by one costs a few microseconds
   * of CPU time each, more than many of the kernels take. The graph bakes in every
   * buffer address, so it is captured again when the caller's pointers change. */
  pt2c_cuda_gemms *gemms;                /* the plan's GEMM steps through cuBLASLt or hipBLASLt */
  const pt2c_conv_library *conv_library; /* cuDNN or MIOpen (conv_library.h) */
  void *convs;                           /* its table of the plan's convolutions */
  /* With cuDNN or MIOpen serving convolutions, the first run launches its steps directly and only
   * later runs are captured: a library call may load kernels or allocate the first time
   * it runs, which a stream capture forbids (torch's CUDA graphs warm up for the same
   * reason). A capture that fails anyway turns graphs off for the model. */
  int warmed_up;
  int use_graph;
  CUstream capture_stream; /* a stream of our own to capture on */
  /* One graph per set of caller tensors, up to kCudaGraphsPerModel: a caller that
   * alternates a few sets of tensors (double buffering; a framework's allocator handing
   * back the same blocks) runs each set's own graph, with no copies. */
  CUgraphExec graphs[kCudaGraphsPerModel]; /* the first num_graphs are captured */
  uint32_t num_graphs;
  uint32_t next_replaced;     /* the graph a capture replaces once all are taken */
  CUdeviceptr *graph_buffers; /* per graph, num_buffers entries: buffer_address as
                                 that graph was captured with */
  /* Device-memory runs on yet another set of tensors when every graph is taken (a
   * caller that allocates new tensors per call) go through the staging buffers from
   * then on: copies on the stream in and out instead of a new capture per run. */
  int device_staged;
};

/* The alignment the compiler declares for every pointer a generated kernel takes
 * (compiler/codegen/cuda/GpuLLVMModule.cpp, kKernelPointerAlignment): the kernels may
 * load and store 16 bytes at a time. */
enum { kKernelPointerAlignment = 16 };

/* Loads the driver, picks the device (the current context's, else device 0), loads the
 * fatbin and allocates everything; sets model->cuda. The plan is already parsed and its
 * weights checked against `source`. On failure model->cuda holds what was made, for
 * pt2c_cuda_model_destroy. */
pt2c_status pt2c_cuda_model_create(pt2c_model *model, const pt2c_model_source *source);
/* Graphs of a plan set after the first (source->siblings) load no module and upload no
 * weights: they use the first graph's, and the STATE buffers of earlier graphs. */

/* The device side of `instance`, an instance of the CUDA model `parent` (model.h): the
 * parent's module, kernels and device weights, the parent's choice of cuBLASLt and cuDNN
 * algorithms and its channels-last filters (so a run computes the same bits as the
 * parent's), and its own arena, state, staging buffers, library handles, workspaces,
 * stream and graph. Sets instance->cuda; on failure it holds what was made. */
pt2c_status pt2c_cuda_model_share(pt2c_model *instance, const struct pt2c_cuda_model *parent,
                                  pt2c_model *const *siblings, uint32_t num_siblings);

/* Writes the initial bytes of every STATE buffer (from the host weights) to the device
 * copies; synchronous (the legacy default stream orders it after earlier runs). */
pt2c_status pt2c_cuda_reset_state(struct pt2c_cuda_model *cuda, const pt2c_plan *plan,
                                  const unsigned char *host_weights);

/* Copies `nbytes` between host memory and STATE buffer `buffer`'s device copy (`read`:
 * device to host); synchronous. */
pt2c_status pt2c_cuda_copy_state(struct pt2c_cuda_model *cuda, uint32_t buffer, void *host,
                                 size_t nbytes, int read);

/* Frees the device memory and module and releases the context; null is allowed. */
void pt2c_cuda_model_destroy(struct pt2c_cuda_model *cuda);

/* One run of a CUDA plan on checked tensors. With `host_memory`, tensors are in host
 * memory: inputs are copied to the staging buffers, the kernels run on the legacy default
 * stream and outputs are copied back before returning. Otherwise tensors are device
 * memory and the kernels are queued on `stream`. Guards are read after the run.
 * `sym_values`: the run's symbol values (the plan's num_syms), which go to the SYMBOLS
 * buffer ahead of the kernels. */
pt2c_status pt2c_cuda_run(pt2c_model *model, const pt2c_tensor *inputs, pt2c_tensor *outputs,
                          const int64_t *sym_values, int host_memory, CUstream stream);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CUDA_MODEL_H_ */
