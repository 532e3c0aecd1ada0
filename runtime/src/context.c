/* Execution contexts (pt2c.h): a context is an instance of its model (model.h), which
 * borrows the model's plan, weights, kernels and packed operands and owns the memory and
 * state its runs write. */
#include <stdlib.h>

#include "error.h"
#include "model.h"

struct pt2c_context {
  pt2c_model *instance; /* owned */
};

PT2C_API pt2c_status pt2c_context_create(pt2c_model *model, pt2c_context **out_context) {
  if (out_context == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_context_create: out_context is null");
  *out_context = NULL;
  if (model == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_context_create: model is null");
  pt2c_context *context = calloc(1, sizeof(pt2c_context));
  if (context == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a context");
  /* A context of a context is one more context of the same model. */
  const pt2c_model *owner = model->parent != NULL ? model->parent : model;
  pt2c_status status = pt2c_model_instance_create(owner, NULL, 0, &context->instance);
  if (status != PT2C_OK) {
    free(context);
    return status;
  }
  *out_context = context;
  return PT2C_OK;
}

PT2C_API void pt2c_context_destroy(pt2c_context *context) {
  if (context == NULL)
    return;
  pt2c_model_destroy(context->instance);
  free(context);
}

PT2C_API pt2c_status pt2c_context_run(pt2c_context *context, const pt2c_tensor *inputs,
                                      int32_t num_inputs, pt2c_tensor *outputs,
                                      int32_t num_outputs) {
  if (context == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_context_run: context is null");
  return pt2c_run_host(context->instance, "pt2c_context_run", NULL, inputs, num_inputs, outputs,
                       num_outputs);
}

PT2C_API pt2c_status pt2c_context_run_method(pt2c_context *context, const char *method,
                                             const pt2c_tensor *inputs, int32_t num_inputs,
                                             pt2c_tensor *outputs, int32_t num_outputs) {
  if (context == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_context_run_method: context is null");
  return pt2c_run_host(context->instance, "pt2c_context_run_method", method, inputs, num_inputs,
                       outputs, num_outputs);
}

PT2C_API pt2c_status pt2c_context_read_state(pt2c_context *context, int32_t index,
                                             pt2c_tensor *out) {
  if (context == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_context_read_state: context is null");
  return pt2c_model_read_state(context->instance, index, out);
}

PT2C_API pt2c_status pt2c_context_write_state(pt2c_context *context, int32_t index,
                                              const pt2c_tensor *value) {
  if (context == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_context_write_state: context is null");
  return pt2c_model_write_state(context->instance, index, value);
}

PT2C_API pt2c_status pt2c_context_reset_state(pt2c_context *context) {
  if (context == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_context_reset_state: context is null");
  return pt2c_model_reset_state_as(context->instance, "pt2c_context_reset_state");
}

PT2C_API pt2c_status pt2c_context_last_output_shape(const pt2c_context *context, int32_t index,
                                                    int64_t *out_dims) {
  if (context == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT,
                     "pt2c_context_last_output_shape: context is null");
  return pt2c_last_output_shape(context->instance, "pt2c_context_last_output_shape", index,
                                out_dims);
}
