/* Model state between requests (pt2c.h, "Model state"): the buffers a model writes in
 * place (a KV cache, a step counter) put back to their initial values, so that a new
 * sequence starts without creating the model again, or read and written by name (a
 * saved cache restored). */
#include <string.h>

#include "check.h"
#include "cuda/cuda_model.h"
#include "dispatch.h"
#include "error.h"
#include "model.h"
#include "symbolic.h"

/* One executable's STATE buffers. Graphs of a plan set that share a buffer (model.c,
 * pt2c_sibling_state) write the same bytes twice, which is harmless. */
static pt2c_status reset_executable(pt2c_model *model) {
  const pt2c_plan *plan = &model->plan;
  if (model->cuda != NULL)
    return pt2c_cuda_reset_state(model->cuda, plan, model->weights);
  for (uint32_t i = 0; i < plan->header->num_buffers; ++i) {
    const pt2c_plan_buffer *buffer = &plan->buffers[i];
    if (buffer->kind == PT2C_BUFFER_STATE && buffer->nbytes > 0)
      memcpy(model->buffer_data[i], model->weights + buffer->offset, (size_t)buffer->nbytes);
  }
  return PT2C_OK;
}

pt2c_status pt2c_model_reset_state_as(pt2c_model *model, const char *function) {
  pt2c_status status = pt2c_model_claim(model, function);
  if (status != PT2C_OK)
    return status;
  if (model->num_graphs == 0) {
    status = reset_executable(model);
  } else {
    for (uint32_t g = 0; g < model->num_graphs && status == PT2C_OK; ++g)
      status = reset_executable(model->graphs[g].model);
  }
  pt2c_model_release(model);
  return status;
}

PT2C_API pt2c_status pt2c_model_reset_state(pt2c_model *model) {
  if (model == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_reset_state: model is null");
  return pt2c_model_reset_state_as(model, "pt2c_model_reset_state");
}

/* ---- named state ------------------------------------------------------------------- */

/* One state of the model: the executable whose state table names it first, and that
 * record. The graphs of a plan set share each state's memory (pt2c_sibling_state), so
 * the first graph that has it stands for all. */
typedef struct state_ref {
  pt2c_model *executable;
  const pt2c_plan_tensor *record;
} state_ref;

static uint32_t num_executables(const pt2c_model *model) {
  return model->num_graphs > 0 ? model->num_graphs : 1;
}

static pt2c_model *executable(const pt2c_model *model, uint32_t g) {
  return model->num_graphs > 0 ? model->graphs[g].model : (pt2c_model *)model;
}

static const char *state_name(const pt2c_model *executable, const pt2c_plan_tensor *record) {
  return pt2c_plan_string(&executable->plan, record->name);
}

/* Whether a graph before `g` names a state `name`. */
static int named_before(const pt2c_model *model, uint32_t g, const char *name) {
  for (uint32_t e = 0; e < g; ++e) {
    const pt2c_model *earlier = executable(model, e);
    for (uint32_t i = 0; i < earlier->plan.header->num_states; ++i)
      if (strcmp(state_name(earlier, &earlier->plan.states[i]), name) == 0)
        return 1;
  }
  return 0;
}

/* Visits the model's states in order; stops at number `index` (-1: counts them all). */
static int32_t walk_states(const pt2c_model *model, int32_t index, state_ref *out) {
  int32_t count = 0;
  for (uint32_t g = 0; g < num_executables(model); ++g) {
    pt2c_model *graph = executable(model, g);
    for (uint32_t i = 0; i < graph->plan.header->num_states; ++i) {
      const pt2c_plan_tensor *record = &graph->plan.states[i];
      if (named_before(model, g, state_name(graph, record)))
        continue;
      if (count == index) {
        out->executable = graph;
        out->record = record;
        return count;
      }
      ++count;
    }
  }
  return count;
}

static pt2c_status find_state(const pt2c_model *model, const char *function, int32_t index,
                              state_ref *out) {
  if (model == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: model is null", function);
  int32_t count = walk_states(model, -1, NULL);
  if (index < 0 || index >= count)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: state %d is out of range [0, %d)", function,
                     index, count);
  walk_states(model, index, out);
  return PT2C_OK;
}

PT2C_API int32_t pt2c_model_num_states(const pt2c_model *model) {
  if (model == NULL) {
    pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_num_states: model is null");
    return -1;
  }
  return walk_states(model, -1, NULL);
}

PT2C_API pt2c_status pt2c_model_state_info(const pt2c_model *model, int32_t index,
                                           pt2c_tensor_info *out_info) {
  state_ref state;
  pt2c_status status = find_state(model, "pt2c_model_state_info", index, &state);
  if (status != PT2C_OK)
    return status;
  if (out_info == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_state_info: out_info is null");
  out_info->name = state_name(state.executable, state.record);
  out_info->dtype = (pt2c_dtype)state.record->dtype;
  out_info->rank = (int32_t)state.record->rank;
  out_info->dims = state.executable->info_dims + state.record->dims;
  return PT2C_OK;
}

/* Copies between the caller's host tensor and state `index` (read: into the tensor),
 * after checking its dtype and sizes; a call like a run (BUSY while one is in progress). */
static pt2c_status copy_state(pt2c_model *model, const char *function, int32_t index,
                              const pt2c_tensor *tensor, int read) {
  state_ref state;
  pt2c_status status = find_state(model, function, index, &state);
  if (status != PT2C_OK)
    return status;
  if (tensor == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: the tensor is null", function);
  const pt2c_plan *plan = &state.executable->plan;
  int64_t no_symbols[PT2C_MAX_SYMS] = {0}; /* state sizes are static */
  status = pt2c_check_tensors(plan, "state", state.record, 1, tensor, 1, no_symbols);
  if (status != PT2C_OK)
    return status;
  status = pt2c_model_claim(model, function);
  if (status != PT2C_OK)
    return status;
  uint32_t b = state.record->buffer;
  size_t nbytes = (size_t)plan->buffers[b].nbytes;
  struct pt2c_cuda_model *cuda = state.executable->cuda;
  if (cuda == NULL) {
    if (read)
      memcpy(tensor->data, state.executable->buffer_data[b], nbytes);
    else
      memcpy(state.executable->buffer_data[b], tensor->data, nbytes);
  } else {
    status = pt2c_cuda_copy_state(cuda, b, tensor->data, nbytes, read);
  }
  pt2c_model_release(model);
  return status;
}

PT2C_API pt2c_status pt2c_model_read_state(pt2c_model *model, int32_t index, pt2c_tensor *out) {
  return copy_state(model, "pt2c_model_read_state", index, out, /*read=*/1);
}

PT2C_API pt2c_status pt2c_model_write_state(pt2c_model *model, int32_t index,
                                            const pt2c_tensor *value) {
  return copy_state(model, "pt2c_model_write_state", index, value, /*read=*/0);
}
