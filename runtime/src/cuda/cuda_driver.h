/* The few CUDA driver API functions the runtime uses, loaded from libcuda.so.1 with
 * dlopen at the first CUDA model's create. Internal.
 *
 * The types and constants are declared here rather than taken from cuda.h: the runtime
 * builds without the CUDA toolkit, and a model.so never links against libcuda (it must
 * load, and fail with a clear message, on machines without a driver). The signatures are
 * the driver's stable C ABI (the _v2 entry points where the driver has them). */
#ifndef PT2C_RUNTIME_CUDA_DRIVER_H_
#define PT2C_RUNTIME_CUDA_DRIVER_H_

#include <stddef.h>

#include "pt2c/pt2c.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUevent_st *CUevent;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_NOT_FOUND = 500,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_STREAM_NON_BLOCKING = 1,
  CU_EVENT_DEFAULT = 0,
  /* Capture refuses unsafe calls (synchronous copies, ...) from this thread only, so
   * that other threads of the host keep working while a model captures its graph. */
  CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
};

/* Function pointers, all non-null once pt2c_cuda_driver_load (or, for ROCm plans,
 * pt2c_hip_driver_load in ../rocm/hip_driver.h) succeeded. The table is the GPU runtime's
 * view of a driver: HIP's module API has the same functions with the same C ABI, so
 * cuda_model.c and cuda_run.c run both kinds of plan through it. */
typedef struct pt2c_cuda_driver {
  pt2c_device device; /* PT2C_DEVICE_CUDA or PT2C_DEVICE_ROCM */
  const char *api;    /* "CUDA" or "HIP", for messages */
  const char *vendor; /* "NVIDIA" or "AMD", for messages */
  CUresult (*Init)(unsigned int flags);
  CUresult (*DriverGetVersion)(int *version);
  CUresult (*DeviceGet)(CUdevice *device, int ordinal);
  CUresult (*DeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*DeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*CtxGetCurrent)(CUcontext *context);
  CUresult (*CtxGetDevice)(CUdevice *device);
  CUresult (*CtxPushCurrent)(CUcontext context);
  CUresult (*CtxPopCurrent)(CUcontext *context);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*DevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*ModuleLoadDataEx)(CUmodule *module, const void *image, unsigned int num_options,
                               int *options, void **option_values);
  CUresult (*ModuleUnload)(CUmodule module);
  CUresult (*ModuleGetFunction)(CUfunction *function, CUmodule module, const char *name);
  CUresult (*MemAlloc)(CUdeviceptr *pointer, size_t nbytes);
  CUresult (*MemFree)(CUdeviceptr pointer);
  CUresult (*MemsetD8)(CUdeviceptr pointer, unsigned char value, size_t count);
  CUresult (*MemcpyHtoD)(CUdeviceptr destination, const void *source, size_t nbytes);
  CUresult (*MemcpyDtoH)(void *destination, CUdeviceptr source, size_t nbytes);
  CUresult (*MemcpyHtoDAsync)(CUdeviceptr destination, const void *source, size_t nbytes,
                              CUstream stream);
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr destination, CUdeviceptr source, size_t nbytes,
                              CUstream stream);
  CUresult (*LaunchKernel)(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                           unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                           unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                           void **params, void **extra);
  CUresult (*StreamSynchronize)(CUstream stream);
  CUresult (*StreamCreate)(CUstream *stream, unsigned int flags);
  CUresult (*StreamDestroy)(CUstream stream);
  CUresult (*StreamBeginCapture)(CUstream stream, int mode);
  CUresult (*StreamEndCapture)(CUstream stream, CUgraph *graph);
  CUresult (*GraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph graph, unsigned long long flags);
  CUresult (*GraphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*GraphExecDestroy)(CUgraphExec exec);
  CUresult (*GraphDestroy)(CUgraph graph);
  CUresult (*EventCreate)(CUevent *event, unsigned int flags);
  CUresult (*EventRecord)(CUevent event, CUstream stream);
  CUresult (*EventSynchronize)(CUevent event);
  CUresult (*EventElapsedTime)(float *ms, CUevent start, CUevent end);
  CUresult (*EventDestroy)(CUevent event);
  CUresult (*GetErrorName)(CUresult error, const char **name);
  CUresult (*GetErrorString)(CUresult error, const char **text);
} pt2c_cuda_driver;

/* A member of pt2c_cuda_driver and the library's names for it (the first found wins). */
typedef struct pt2c_driver_symbol {
  size_t offset; /* offsetof(pt2c_cuda_driver, member) */
  const char *names[2];
} pt2c_driver_symbol;

/* Fills the members `symbols` name from the dlopen'ed `handle`; the first missing
 * symbol's name, or NULL when every one was found. */
const char *pt2c_driver_resolve(void *handle, const pt2c_driver_symbol *symbols, size_t count,
                                pt2c_cuda_driver *driver);

/* Loads the driver ($PT2C_LIBCUDA, else libcuda.so.1) and calls cuInit once per process.
 * On failure returns PT2C_ERROR_UNSUPPORTED with a message that says this model needs an
 * NVIDIA GPU and why it cannot have one; a later call tries again (a failure is not
 * cached, so a host can fix its environment and retry). */
pt2c_status pt2c_cuda_driver_load(const pt2c_cuda_driver **out_driver);

/* Records "<what>: CUDA_ERROR_NAME (description)" as the last error and returns `status`. */
pt2c_status pt2c_cuda_fail(const pt2c_cuda_driver *driver, CUresult error, pt2c_status status,
                           const char *what);

/* The pt2c_status for a driver error: OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY, else
 * PT2C_ERROR_DEVICE. */
pt2c_status pt2c_cuda_status(CUresult error);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CUDA_DRIVER_H_ */
