/* Offering a ROCm model's code objects to HIP (rocm_module.h). */
#include "rocm_module.h"

#include <stdio.h>

#include "../error.h"

/* HIP's answers for a code object built for another architecture. */
enum {
  kHipErrorInvalidImage = 200,
  kHipErrorNoBinaryForGpu = 209,
  kHipErrorInvalidKernelFile = 218,
};

static int is_architecture_error(CUresult result) {
  return result == kHipErrorNoBinaryForGpu || result == kHipErrorInvalidImage ||
         result == kHipErrorInvalidKernelFile;
}

pt2c_status pt2c_rocm_load_module(const pt2c_cuda_driver *hip, CUdevice device,
                                  const pt2c_rocm_code_objects *objects, CUmodule *out) {
  CUresult result = CUDA_SUCCESS;
  for (uint32_t i = 0; i < objects->count; ++i) {
    *out = NULL;
    result = hip->ModuleLoadDataEx(out, objects->objects[i].data, 0, NULL, NULL);
    if (result == CUDA_SUCCESS)
      return PT2C_OK;
    *out = NULL;
    if (!is_architecture_error(result))
      return pt2c_cuda_fail(hip, result, pt2c_cuda_status(result),
                            "loading the model's GPU code failed");
  }
  char name[128] = "unknown GPU", built_for[256], what[640];
  hip->DeviceGetName(name, (int)sizeof(name), device);
  pt2c_rocm_code_objects_describe(objects, built_for, sizeof(built_for));
  snprintf(what, sizeof(what),
           "this model's GPU code cannot run on HIP device %d (%s): the model has code objects "
           "for %s only; compile it with --target rocm:<this GPU's architecture> (the gfx "
           "name rocminfo prints)",
           device, name, built_for);
  return pt2c_cuda_fail(hip, result, PT2C_ERROR_UNSUPPORTED, what);
}
