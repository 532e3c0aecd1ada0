/* The plan's GEMM steps (PT2C_STEP_GEMM) served by a vendor "Lt" GEMM library loaded with
 * dlopen like the driver (never a link-time dependency): cuBLASLt (libcublasLt.so.13, else
 * .so.12) for CUDA plans, hipBLASLt (libhipblaslt.so.1, else .so.0) for ROCm plans, one
 * implementation for both (blaslt_api.h). Internal.
 *
 * At create every GEMM gets its descriptors and one algorithm, picked once by the
 * library's heuristic; a GEMM that the library cannot serve (it is missing, too old, or
 * has no algorithm for it) runs the plan's fallback steps instead (our own kernels), so a
 * model never fails for want of it.
 *
 * Environment, read at create: PT2C_LIBCUBLASLT / PT2C_LIBHIPBLASLT (the library to load),
 * PT2C_CUBLASLT=0 / PT2C_HIPBLASLT=0 (never use it: every GEMM runs its fallback kernels),
 * PT2C_CUDA_TF32=1 (CUDA: let f32 GEMMs round their inputs to TF32 on tensor cores: faster,
 * about 1e-3 relative error; off by default, like torch's allow_tf32 for matmuls). */
#ifndef PT2C_RUNTIME_CUDA_GEMM_H_
#define PT2C_RUNTIME_CUDA_GEMM_H_

#include "../plan.h"
#include "cuda_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pt2c_cuda_gemms pt2c_cuda_gemms;

/* Prepares every GEMM of `plan` (the model's context is current; `buffer_address` holds
 * the device addresses of every buffer but the caller's). Never fails for lack of
 * the library (*out then serves no GEMM); fails only for out-of-memory. */
pt2c_status pt2c_cuda_gemms_create(const pt2c_cuda_driver *cu, const pt2c_plan *plan,
                                   const CUdeviceptr *buffer_address, pt2c_cuda_gemms **out);

/* A context's GEMMs (cuda_model.h's pt2c_cuda_model_share): the parent's descriptors and
 * algorithms (read-only once made), a handle and workspace of its own. */
pt2c_status pt2c_cuda_gemms_share(const pt2c_cuda_driver *cu, const pt2c_cuda_gemms *parent,
                                  pt2c_cuda_gemms **out);

void pt2c_cuda_gemms_destroy(const pt2c_cuda_driver *cu, pt2c_cuda_gemms *gemms);

/* Whether GEMM `index` runs through the library (else its fallback steps run). */
int pt2c_cuda_gemm_served(const pt2c_cuda_gemms *gemms, uint32_t index);

/* Whether the addresses (A, B, [bias,] D) have the alignment GEMM `index`'s algorithm
 * was picked for (the caller's tensors may not: then its fallback steps run). */
int pt2c_cuda_gemm_aligned(const pt2c_cuda_gemms *gemms, uint32_t index, const CUdeviceptr *buffers,
                           uint32_t num_buffers);

/* Queues GEMM `index` on `stream` with the buffers' device addresses (A, B, [bias,] D). */
pt2c_status pt2c_cuda_gemm_run(const pt2c_cuda_gemms *gemms, uint32_t index,
                               const CUdeviceptr *buffers, CUstream stream);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CUDA_GEMM_H_ */
