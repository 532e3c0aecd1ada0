/* Loading libcuda.so.1 at run time (see cuda_driver.h for why not at link time). */
#include "cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../error.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pt2c_cuda_driver g_driver;
static int g_loaded;

/* The driver's symbol for each member, in member order; the first name found wins (the
 * _v2 entry points replaced the originals in CUDA 3.2 and 11; both are kept by drivers). */
#define ENTRY(member, ...)                                                                         \
  {                                                                                                \
    offsetof(pt2c_cuda_driver, member), { __VA_ARGS__ }                                            \
  }
static const pt2c_driver_symbol kSymbols[] = {
    ENTRY(Init, "cuInit"),
    ENTRY(DriverGetVersion, "cuDriverGetVersion"),
    ENTRY(DeviceGet, "cuDeviceGet"),
    ENTRY(DeviceGetName, "cuDeviceGetName"),
    ENTRY(DeviceGetAttribute, "cuDeviceGetAttribute"),
    ENTRY(CtxGetCurrent, "cuCtxGetCurrent"),
    ENTRY(CtxGetDevice, "cuCtxGetDevice"),
    ENTRY(CtxPushCurrent, "cuCtxPushCurrent_v2", "cuCtxPushCurrent"),
    ENTRY(CtxPopCurrent, "cuCtxPopCurrent_v2", "cuCtxPopCurrent"),
    ENTRY(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    ENTRY(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
    ENTRY(ModuleLoadDataEx, "cuModuleLoadDataEx"),
    ENTRY(ModuleUnload, "cuModuleUnload"),
    ENTRY(ModuleGetFunction, "cuModuleGetFunction"),
    ENTRY(MemAlloc, "cuMemAlloc_v2"),
    ENTRY(MemFree, "cuMemFree_v2"),
    ENTRY(MemsetD8, "cuMemsetD8_v2"),
    ENTRY(MemcpyHtoD, "cuMemcpyHtoD_v2"),
    ENTRY(MemcpyDtoH, "cuMemcpyDtoH_v2"),
    ENTRY(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
    ENTRY(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
    ENTRY(LaunchKernel, "cuLaunchKernel"),
    ENTRY(StreamSynchronize, "cuStreamSynchronize"),
    ENTRY(StreamCreate, "cuStreamCreate"),
    ENTRY(StreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy"),
    ENTRY(StreamBeginCapture, "cuStreamBeginCapture_v2"),
    ENTRY(StreamEndCapture, "cuStreamEndCapture"),
    ENTRY(GraphInstantiateWithFlags, "cuGraphInstantiateWithFlags"),
    ENTRY(GraphLaunch, "cuGraphLaunch"),
    ENTRY(GraphExecDestroy, "cuGraphExecDestroy"),
    ENTRY(GraphDestroy, "cuGraphDestroy"),
    ENTRY(EventCreate, "cuEventCreate"),
    ENTRY(EventRecord, "cuEventRecord"),
    ENTRY(EventSynchronize, "cuEventSynchronize"),
    ENTRY(EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
    ENTRY(EventDestroy, "cuEventDestroy_v2", "cuEventDestroy"),
    ENTRY(GetErrorName, "cuGetErrorName"),
    ENTRY(GetErrorString, "cuGetErrorString"),
};
#undef ENTRY

static const char *library_name(void) {
  const char *name = getenv("PT2C_LIBCUDA");
  return name != NULL && name[0] != '\0' ? name : "libcuda.so.1";
}

const char *pt2c_driver_resolve(void *handle, const pt2c_driver_symbol *symbols, size_t count,
                                pt2c_cuda_driver *driver) {
  for (size_t i = 0; i < count; ++i) {
    void *symbol = NULL;
    for (int n = 0; n < 2 && symbol == NULL && symbols[i].names[n] != NULL; ++n)
      symbol = dlsym(handle, symbols[i].names[n]);
    if (symbol == NULL)
      return symbols[i].names[0];
    /* POSIX guarantees that data and function pointers have the same representation. */
    memcpy((char *)driver + symbols[i].offset, &symbol, sizeof(symbol));
  }
  return NULL;
}

static pt2c_status load_locked(void) {
  const char *name = library_name();
  void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    const char *reason = dlerror();
    return pt2c_fail(PT2C_ERROR_UNSUPPORTED,
                     "this model needs an NVIDIA GPU: %s could not be loaded (%s); "
                     "is the NVIDIA driver installed?",
                     name, reason != NULL ? reason : "unknown dlopen error");
  }
  pt2c_cuda_driver driver = {.device = PT2C_DEVICE_CUDA, .api = "CUDA", .vendor = "NVIDIA"};
  const char *missing =
      pt2c_driver_resolve(handle, kSymbols, sizeof(kSymbols) / sizeof(kSymbols[0]), &driver);
  if (missing != NULL) {
    dlclose(handle);
    return pt2c_fail(PT2C_ERROR_UNSUPPORTED,
                     "this model needs an NVIDIA GPU: %s has no %s (the driver is too old)", name,
                     missing);
  }
  CUresult result = driver.Init(0);
  if (result != CUDA_SUCCESS) {
    pt2c_status status = pt2c_cuda_fail(&driver, result, PT2C_ERROR_UNSUPPORTED,
                                        "this model needs an NVIDIA GPU: cuInit failed");
    dlclose(handle);
    return status;
  }
  /* The handle stays open for the life of the process: drivers are not made to be
   * unloaded, and models created later reuse the table. */
  g_driver = driver;
  g_loaded = 1;
  return PT2C_OK;
}

pt2c_status pt2c_cuda_driver_load(const pt2c_cuda_driver **out_driver) {
  *out_driver = NULL;
  pthread_mutex_lock(&g_lock);
  pt2c_status status = g_loaded ? PT2C_OK : load_locked();
  pthread_mutex_unlock(&g_lock);
  if (status == PT2C_OK)
    *out_driver = &g_driver;
  return status;
}

pt2c_status pt2c_cuda_status(CUresult error) {
  return error == CUDA_ERROR_OUT_OF_MEMORY ? PT2C_ERROR_OUT_OF_MEMORY : PT2C_ERROR_DEVICE;
}

pt2c_status pt2c_cuda_fail(const pt2c_cuda_driver *driver, CUresult error, pt2c_status status,
                           const char *what) {
  const char *name = NULL;
  const char *text = NULL;
  if (driver->GetErrorName(error, &name) != CUDA_SUCCESS || name == NULL)
    name = "unknown";
  if (driver->GetErrorString(error, &text) != CUDA_SUCCESS || text == NULL)
    text = "";
  return pt2c_fail(status, "%s: %s (%d: %s)", what, name, error, text);
}
