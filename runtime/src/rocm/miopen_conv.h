/* The plan's convolution steps (PT2C_STEP_CONV) of ROCm plans served by MIOpen, loaded with
 * dlopen like HIP (libMIOpen.so.1, else .so; never a link-time dependency), behind the
 * same interface as cuDNN's (../cuda/conv_library.h). Internal.
 *
 * At create every convolution gets its MIOpen descriptors (packed NCHW / NCDHW tensors of
 * the plan's dtype, a 1-d convolution as a 2-d one of height 1) and one immediate-mode
 * solution: the first miopenConvolutionForwardGetSolution lists (MIOpen orders them by
 * time: measured ones from its find database, else its heuristic's estimate) within the
 * workspace limit, compiled at once (miopenConvolutionForwardCompileSolution) so that no
 * run compiles a kernel. A convolution MIOpen cannot serve (the library is missing, has no
 * solution, or refuses a call outside a graph capture) runs the plan's fallback steps
 * (our own kernels). A run queues miopenConvolutionForwardImmediate, then the epilogue:
 * the bias (and a residual z) by miopenOpTensor, a ReLU by miopenActivationForward, in
 * place on y.
 *
 * Environment, read at create: PT2C_LIBMIOPEN (the library to load), PT2C_MIOPEN=0 (never
 * use it: every convolution runs its fallback kernels). */
#ifndef PT2C_RUNTIME_ROCM_MIOPEN_CONV_H_
#define PT2C_RUNTIME_ROCM_MIOPEN_CONV_H_

#include "../cuda/conv_library.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const pt2c_conv_library pt2c_miopen_convs;

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_ROCM_MIOPEN_CONV_H_ */
