/* Loading libamdhip64.so at run time into the driver table (see hip_driver.h). */
#include "hip_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../error.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pt2c_cuda_driver g_driver;
static int g_loaded;

/* HIP's error texts are returned, not written through a pointer. */
static const char *(*g_error_name)(int error);
static const char *(*g_error_string)(int error);

static CUresult error_name(CUresult error, const char **name) {
  *name = g_error_name(error);
  return CUDA_SUCCESS;
}
static CUresult error_string(CUresult error, const char **text) {
  *text = g_error_string(error);
  return CUDA_SUCCESS;
}

#define ENTRY(member, ...)                                                                         \
  {                                                                                                \
    offsetof(pt2c_cuda_driver, member), { __VA_ARGS__ }                                            \
  }
/* The context functions are deprecated in HIP but kept: they let the runtime treat both
 * APIs alike (a device's primary context, made current around the runtime's calls). */
static const pt2c_driver_symbol kSymbols[] = {
    ENTRY(Init, "hipInit"),
    ENTRY(DriverGetVersion, "hipDriverGetVersion"),
    ENTRY(DeviceGet, "hipDeviceGet"),
    ENTRY(DeviceGetName, "hipDeviceGetName"),
    ENTRY(DeviceGetAttribute, "hipDeviceGetAttribute"), /* HIP's numbering: not queried */
    ENTRY(CtxGetCurrent, "hipCtxGetCurrent"),
    ENTRY(CtxGetDevice, "hipCtxGetDevice"),
    ENTRY(CtxPushCurrent, "hipCtxPushCurrent"),
    ENTRY(CtxPopCurrent, "hipCtxPopCurrent"),
    ENTRY(DevicePrimaryCtxRetain, "hipDevicePrimaryCtxRetain"),
    ENTRY(DevicePrimaryCtxRelease, "hipDevicePrimaryCtxRelease"),
    ENTRY(ModuleLoadDataEx, "hipModuleLoadDataEx"),
    ENTRY(ModuleUnload, "hipModuleUnload"),
    ENTRY(ModuleGetFunction, "hipModuleGetFunction"),
    ENTRY(MemAlloc, "hipMalloc"),
    ENTRY(MemFree, "hipFree"),
    ENTRY(MemsetD8, "hipMemsetD8"),
    ENTRY(MemcpyHtoD, "hipMemcpyHtoD"),
    ENTRY(MemcpyDtoH, "hipMemcpyDtoH"),
    ENTRY(MemcpyHtoDAsync, "hipMemcpyHtoDAsync"),
    ENTRY(MemcpyDtoDAsync, "hipMemcpyDtoDAsync"),
    ENTRY(LaunchKernel, "hipModuleLaunchKernel"),
    ENTRY(StreamSynchronize, "hipStreamSynchronize"),
    ENTRY(StreamCreate, "hipStreamCreateWithFlags"), /* hipStreamNonBlocking is 1 too */
    ENTRY(StreamDestroy, "hipStreamDestroy"),
    ENTRY(StreamBeginCapture, "hipStreamBeginCapture"), /* thread-local mode is 1 too */
    ENTRY(StreamEndCapture, "hipStreamEndCapture"),
    ENTRY(GraphInstantiateWithFlags, "hipGraphInstantiateWithFlags"),
    ENTRY(GraphLaunch, "hipGraphLaunch"),
    ENTRY(GraphExecDestroy, "hipGraphExecDestroy"),
    ENTRY(GraphDestroy, "hipGraphDestroy"),
    ENTRY(EventCreate, "hipEventCreateWithFlags"), /* hipEventDefault is 0 too */
    ENTRY(EventRecord, "hipEventRecord"),
    ENTRY(EventSynchronize, "hipEventSynchronize"),
    ENTRY(EventElapsedTime, "hipEventElapsedTime"),
    ENTRY(EventDestroy, "hipEventDestroy"),
};
#undef ENTRY

/* The library to open: $PT2C_LIBAMDHIP64, else the first of the usual names that loads
 * (the unversioned name comes with the -dev package only). */
static void *open_library(const char **name, const char **reason) {
  const char *chosen = getenv("PT2C_LIBAMDHIP64");
  if (chosen != NULL && chosen[0] != '\0') {
    *name = chosen;
    void *handle = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
    *reason = handle == NULL ? dlerror() : NULL;
    return handle;
  }
  static const char *const kNames[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};
  for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); ++i) {
    *name = kNames[i];
    void *handle = dlopen(kNames[i], RTLD_NOW | RTLD_LOCAL);
    if (handle != NULL)
      return handle;
    *reason = dlerror();
  }
  *name = "libamdhip64.so";
  return NULL;
}

static pt2c_status load_locked(void) {
  const char *name = NULL, *reason = NULL;
  void *handle = open_library(&name, &reason);
  if (handle == NULL)
    return pt2c_fail(PT2C_ERROR_UNSUPPORTED,
                     "this model needs an AMD GPU: %s could not be loaded (%s); is ROCm "
                     "(HIP) installed?",
                     name, reason != NULL ? reason : "unknown dlopen error");
  pt2c_cuda_driver driver = {.device = PT2C_DEVICE_ROCM, .api = "HIP", .vendor = "AMD"};
  const char *missing =
      pt2c_driver_resolve(handle, kSymbols, sizeof(kSymbols) / sizeof(kSymbols[0]), &driver);
  void *names = dlsym(handle, "hipGetErrorName"), *texts = dlsym(handle, "hipGetErrorString");
  if (missing == NULL && (names == NULL || texts == NULL))
    missing = names == NULL ? "hipGetErrorName" : "hipGetErrorString";
  if (missing != NULL) {
    dlclose(handle);
    return pt2c_fail(PT2C_ERROR_UNSUPPORTED,
                     "this model needs an AMD GPU: %s has no %s (HIP is too old)", name, missing);
  }
  /* POSIX guarantees that data and function pointers have the same representation. */
  memcpy(&g_error_name, &names, sizeof(names));
  memcpy(&g_error_string, &texts, sizeof(texts));
  driver.GetErrorName = error_name;
  driver.GetErrorString = error_string;
  CUresult result = driver.Init(0);
  if (result != CUDA_SUCCESS) {
    pt2c_status status = pt2c_cuda_fail(&driver, result, PT2C_ERROR_UNSUPPORTED,
                                        "this model needs an AMD GPU: hipInit failed");
    dlclose(handle);
    return status;
  }
  /* Kept open for the life of the process, as the CUDA driver is. */
  g_driver = driver;
  g_loaded = 1;
  return PT2C_OK;
}

pt2c_status pt2c_hip_driver_load(const pt2c_cuda_driver **out_driver) {
  *out_driver = NULL;
  pthread_mutex_lock(&g_lock);
  pt2c_status status = g_loaded ? PT2C_OK : load_locked();
  pthread_mutex_unlock(&g_lock);
  if (status == PT2C_OK)
    *out_driver = &g_driver;
  return status;
}
