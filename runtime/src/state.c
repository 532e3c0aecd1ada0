/* Model state between requests (pt2c.h, "Model state"): putting the buffers a model
 * writes in place (a KV cache, a step counter) back to their initial values, so that a
 * new sequence starts without creating the model again. */
#include <string.h>

#include "cuda/cuda_model.h"
#include "dispatch.h"
#include "error.h"
#include "model.h"

/* One executable's STATE buffers. Graphs of a plan set that share a buffer (dispatch.c,
 * share_state) write the same bytes twice, which is harmless. */
static pt2c_status reset_executable(pt2c_model* model) {
  const pt2c_plan* plan = &model->plan;
  if (model->cuda != NULL) return pt2c_cuda_reset_state(model->cuda, plan, model->weights);
  for (uint32_t i = 0; i < plan->header->num_buffers; ++i) {
    const pt2c_plan_buffer* buffer = &plan->buffers[i];
    if (buffer->kind == PT2C_BUFFER_STATE && buffer->nbytes > 0)
      memcpy(model->buffer_data[i], model->weights + buffer->offset, (size_t)buffer->nbytes);
  }
  return PT2C_OK;
}

pt2c_status pt2c_model_reset_state_as(pt2c_model* model, const char* function) {
  pt2c_status status = pt2c_model_claim(model, function);
  if (status != PT2C_OK) return status;
  if (model->num_graphs == 0) {
    status = reset_executable(model);
  } else {
    for (uint32_t g = 0; g < model->num_graphs && status == PT2C_OK; ++g)
      status = reset_executable(model->graphs[g].model);
  }
  pt2c_model_release(model);
  return status;
}

PT2C_API pt2c_status pt2c_model_reset_state(pt2c_model* model) {
  if (model == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_reset_state: model is null");
  return pt2c_model_reset_state_as(model, "pt2c_model_reset_state");
}
