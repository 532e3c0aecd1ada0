/* HIP, AMD's GPU runtime, loaded from libamdhip64.so with dlopen at the first ROCm model's
 * create, as the driver table the CUDA runtime code uses (../cuda/cuda_driver.h).
 * Internal.
 *
 * HIP's module API mirrors the CUDA driver API call for call (hipModuleLoadDataEx for
 * cuModuleLoadDataEx, hipModuleLaunchKernel for cuLaunchKernel, hipMalloc for cuMemAlloc,
 * ...) with the same C ABI: handles are pointers, device pointers 64-bit values, enums
 * ints, and the error numbers the runtime tests for (out of memory 2, no binary for the GPU
 * 209, not found 500) are CUDA's. So a ROCm model runs through cuda_model.c and
 * cuda_run.c with HIP's functions in the table, and no copy of them; the two error-text
 * functions, whose signatures differ, go through adapters here. */
#ifndef PT2C_RUNTIME_ROCM_HIP_DRIVER_H_
#define PT2C_RUNTIME_ROCM_HIP_DRIVER_H_

#include "../cuda/cuda_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads HIP ($PT2C_LIBAMDHIP64, else libamdhip64.so.6, .so.5 or .so) and calls hipInit
 * once per process. On failure returns PT2C_ERROR_UNSUPPORTED with a message that says
 * this model needs an AMD GPU and why it cannot have one; a later call tries again. */
pt2c_status pt2c_hip_driver_load(const pt2c_cuda_driver **out_driver);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_ROCM_HIP_DRIVER_H_ */
