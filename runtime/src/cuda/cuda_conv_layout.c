/* Channels-last storage for tensors only convolutions touch (see cuda_conv_layout.h). */
#include "cuda_conv_layout.h"

#include <string.h>

pt2c_conv_args pt2c_conv_arg_positions(const pt2c_plan_conv *c) {
  pt2c_conv_args a = {0, 1, -1, -1, 2};
  if (c->epilogue != PT2C_CONV_EPILOGUE_NONE)
    a.bias = a.y++;
  if (c->epilogue == PT2C_CONV_EPILOGUE_BIAS_ADD_RELU)
    a.z = a.y++;
  return a;
}

void pt2c_conv_steps(const pt2c_plan *plan, uint32_t *step_of) {
  for (uint32_t s = 0; s < plan->header->num_steps; ++s)
    if (plan->steps[s].kind == PT2C_STEP_CONV)
      step_of[plan->steps[s].kernel] = s;
}

uint32_t pt2c_conv_buffer(const pt2c_plan *plan, uint32_t step, int position) {
  return plan->step_args[plan->steps[step].first_arg + (uint32_t)position];
}

void pt2c_conv_choose_layouts(const pt2c_plan *plan, const uint32_t *step_of, const uint8_t *wanted,
                              uint8_t *nhwc) {
  const pt2c_plan_header *header = plan->header;
  memset(nhwc, 0, header->num_buffers);
  for (uint32_t i = 0; i < header->num_convs; ++i) {
    if (!wanted[i])
      continue;
    pt2c_conv_args a = pt2c_conv_arg_positions(&plan->convs[i]);
    nhwc[pt2c_conv_buffer(plan, step_of[i], a.x)] = 1;
    nhwc[pt2c_conv_buffer(plan, step_of[i], a.y)] = 1;
    if (a.z >= 0)
      nhwc[pt2c_conv_buffer(plan, step_of[i], a.z)] = 1;
  }
  /* Any other use keeps a buffer NCHW. */
  for (uint32_t s = 0; s < header->num_steps; ++s) {
    const pt2c_plan_step *step = &plan->steps[s];
    if (step->kind == PT2C_STEP_CONV && wanted[step->kernel]) {
      pt2c_conv_args a = pt2c_conv_arg_positions(&plan->convs[step->kernel]);
      nhwc[pt2c_conv_buffer(plan, s, a.w)] = 0;
      if (a.bias >= 0)
        nhwc[pt2c_conv_buffer(plan, s, a.bias)] = 0;
      s += plan->convs[step->kernel].num_fallback_steps;
      continue;
    }
    for (uint32_t k = 0; k < step->num_args; ++k)
      nhwc[plan->step_args[step->first_arg + k]] = 0;
  }
  for (uint32_t g = 0; g < header->num_guards; ++g)
    nhwc[plan->guards[g].buffer] = 0;
  for (uint32_t b = 0; b < header->num_buffers; ++b)
    if (plan->buffers[b].kind != PT2C_BUFFER_ARENA)
      nhwc[b] = 0;
}
