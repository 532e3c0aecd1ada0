/* Loading a ROCm model's GPU code: the first of its code objects (one per gfx
 * architecture) that HIP accepts for the device. Internal. */
#ifndef PT2C_RUNTIME_ROCM_MODULE_H_
#define PT2C_RUNTIME_ROCM_MODULE_H_

#include "../cuda/cuda_driver.h"
#include "rocm_code_objects.h"

#ifdef __cplusplus
extern "C" {
#endif

/* HIP checks a code object's architecture (and its xnack/sramecc settings) against the
 * device's, so the runtime need not ask for the device's name: it offers each code object
 * in turn. With none accepted, the error names the GPU and the architectures the model
 * has, and says how to compile for this GPU. The device's context is current. */
pt2c_status pt2c_rocm_load_module(const pt2c_cuda_driver *hip, CUdevice device,
                                  const pt2c_rocm_code_objects *objects, CUmodule *out);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_ROCM_MODULE_H_ */
