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

#include "conv_library.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cuDNN's convolution steps (conv_library.h). */
extern const pt2c_conv_library pt2c_cudnn_convs;

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CUDA_CONV_H_ */
