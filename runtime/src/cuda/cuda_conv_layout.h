/* Which tensors the cuDNN convolution steps keep channels-last (NHWC). Internal.
 *
 * Why: cuDNN's tensor-core convolution kernels read and write NHWC. Given the plan's
 * NCHW tensors, cuDNN transposes x, w and y around every call, or picks slower NCHW
 * kernels (resnet18 fp16 on an H100: 44 transposes, 130 of 475 GPU microseconds per
 * run). A tensor that only convolution steps touch (written by one as y, read by others
 * as x or z) may be stored NHWC instead: no kernel of ours, no caller and no guard reads
 * its bytes. The plan does not change; the runtime chooses at create (cuda_conv.c). */
#ifndef PT2C_RUNTIME_CUDA_CONV_LAYOUT_H_
#define PT2C_RUNTIME_CUDA_CONV_LAYOUT_H_

#include <stdint.h>

#include "../plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where each operand of a convolution step sits among the step's args (-1: absent):
 * x, w, then the bias when the epilogue has one, then z, then y. */
typedef struct pt2c_conv_args {
  int x, w, bias, z, y;
} pt2c_conv_args;

pt2c_conv_args pt2c_conv_arg_positions(const pt2c_plan_conv *c);

/* The plan buffer at `position` (a pt2c_conv_args field) of step `step`'s args. */
uint32_t pt2c_conv_buffer(const pt2c_plan *plan, uint32_t step, int position);

/* The step of each convolution: step_of[i] is the index of the PT2C_STEP_CONV step of
 * convolution i (every convolution has exactly one; the plan parser checked). */
void pt2c_conv_steps(const pt2c_plan *plan, uint32_t *step_of);

/* nhwc[b] = 1 for every plan buffer b to store channels-last, else 0. `wanted[i]`:
 * convolution i computes channels-last (cuDNN is expected to serve it). A buffer is chosen
 * when it is an arena buffer, every step that names it is a wanted convolution naming it
 * as x, z or y (a served convolution's fallback steps never run, so they do not count),
 * and no guard reads it. A wanted convolution transposes its other operands (the model's
 * input, what our kernels write or read) through scratch memory. */
void pt2c_conv_choose_layouts(const pt2c_plan *plan, const uint32_t *step_of, const uint8_t *wanted,
                              uint8_t *nhwc);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CUDA_CONV_LAYOUT_H_ */
