/* The plan's convolution steps (PT2C_STEP_CONV) served by cuDNN, loaded with dlopen like
 * the driver and cuBLASLt (libcudnn.so.9; never a link-time dependency). Internal.
 *
 * At create every convolution gets its cuDNN descriptors and one algorithm, the fastest
 * that cudnnFindConvolutionForwardAlgorithm measures on this GPU within the workspace
 * limit; the workspace (the largest any picked algorithm needs) is allocated once. A
 * convolution cuDNN cannot serve (the library is missing, finds no algorithm at create, or
 * refuses a call outside a graph capture) runs the plan's fallback steps instead (our own
 * kernels), so a model never fails for want of cuDNN. A run queues cudnnConvolutionForward
 * (bias: + cudnnAddTensor) or, with a ReLU, the fused cudnnConvolutionBiasActivationForward
 * on the caller's stream.
 *
 * Tensors that only convolutions touch are stored channels-last (NHWC) for f16 and bf16
 * convolutions (cuda_conv_layout.h), so that cuDNN's tensor-core kernels need no
 * transposes; if cuDNN then finds no algorithm for one of them, every convolution goes
 * back to NCHW.
 *
 * Environment, read at create: PT2C_LIBCUDNN (the library to load), PT2C_CUDNN=0 (never
 * use it: every convolution runs its fallback kernels), PT2C_CUDA_TF32=1 (f32
 * convolutions may round their inputs to TF32 on tensor cores; off by default: FMA math),
 * PT2C_CUDNN_NHWC=0 (NCHW everywhere) or =1 (channels-last for f32 convolutions too). */
#ifndef PT2C_RUNTIME_CUDA_CONV_H_
#define PT2C_RUNTIME_CUDA_CONV_H_

#include "../plan.h"
#include "cuda_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pt2c_cuda_convs pt2c_cuda_convs;

/* Prepares every convolution of `plan` (the model's context is current); `host_weights`
 * is the weights blob in host memory (filters of channels-last convolutions are copied
 * from it). Never fails for lack of cuDNN (*out then serves none); fails only for
 * out-of-memory or a failed copy. */
pt2c_status pt2c_cuda_convs_create(const pt2c_cuda_driver *cu, const pt2c_plan *plan,
                                   const unsigned char *host_weights, pt2c_cuda_convs **out);

/* A context's convolutions (cuda_model.h's pt2c_cuda_model_share): the parent's
 * descriptors, algorithms and channels-last filters, a handle, workspace and scratch of
 * its own (and its own copy of which convolutions are served, which a run may lower). */
pt2c_status pt2c_cuda_convs_share(const pt2c_cuda_driver *cu, const pt2c_cuda_convs *parent,
                                  pt2c_cuda_convs **out);

void pt2c_cuda_convs_destroy(const pt2c_cuda_driver *cu, pt2c_cuda_convs *convs);

/* How many convolutions cuDNN serves. */
uint32_t pt2c_cuda_convs_served(const pt2c_cuda_convs *convs);

/* Whether convolution `index` runs through cuDNN with these buffers (x, w, [bias,] [z,] y):
 * it is served and every address has the alignment cuDNN's kernels assume. */
int pt2c_cuda_conv_usable(const pt2c_cuda_convs *convs, uint32_t index, const CUdeviceptr *buffers,
                          uint32_t num_buffers);

/* Convolution `index` is not served from now on (cuDNN refused to run it), so its
 * fallback steps run instead. Returns 0 when it cannot fall back: it works on
 * channels-last tensors, which our kernels do not read. */
int pt2c_cuda_conv_refuse(pt2c_cuda_convs *convs, uint32_t index);

/* Queues convolution `index` on `stream` with the buffers' device addresses. */
pt2c_status pt2c_cuda_conv_run(const pt2c_cuda_convs *convs, uint32_t index,
                               const CUdeviceptr *buffers, CUstream stream);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CUDA_CONV_H_ */
