/* The ABI of dynamic dimensions (pt2c.h): what a caller needs to size outputs when sizes
 * vary from run to run. */
#include "check.h"
#include "dispatch.h"
#include "error.h"
#include "model.h"
#include "symbolic.h"

/* The graph a model's calls describe: graph 0 of a plan set. */
static const pt2c_model* first_graph(const pt2c_model* model) {
  return model->num_graphs > 0 ? model->graphs[0].model : model;
}

PT2C_API int32_t pt2c_model_num_dynamic_dims(const pt2c_model* model) {
  if (model == NULL) {
    pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_num_dynamic_dims: model is null");
    return -1;
  }
  return (int32_t)first_graph(model)->plan.header->num_syms;
}

PT2C_API pt2c_status pt2c_model_dynamic_dim_info(const pt2c_model* model, int32_t index,
                                                 const char** out_name, int64_t* out_min,
                                                 int64_t* out_max) {
  if (model == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_dynamic_dim_info: model is null");
  const pt2c_plan* plan = &first_graph(model)->plan;
  if (index < 0 || (uint32_t)index >= plan->header->num_syms)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT,
                     "pt2c_model_dynamic_dim_info: index %d is out of range [0, %u)", index,
                     plan->header->num_syms);
  const pt2c_plan_sym* sym = &plan->syms[index];
  if (out_name != NULL) *out_name = pt2c_plan_string(plan, sym->name);
  if (out_min != NULL) *out_min = sym->min;
  if (out_max != NULL) *out_max = sym->max;
  return PT2C_OK;
}

PT2C_API pt2c_status pt2c_model_output_shape(const pt2c_model* model, const pt2c_tensor* inputs,
                                             int32_t num_inputs, int32_t index,
                                             int64_t* out_dims) {
  if (model == NULL || out_dims == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_output_shape: %s is null",
                     model == NULL ? "model" : "out_dims");
  const pt2c_plan* plan = &first_graph(model)->plan;
  if (index < 0 || (uint32_t)index >= plan->header->num_outputs)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT,
                     "pt2c_model_output_shape: index %d is out of range [0, %u)", index,
                     plan->header->num_outputs);
  int64_t sym_values[PT2C_MAX_SYMS];
  pt2c_status status = pt2c_sym_bind(plan, inputs, num_inputs, sym_values);
  if (status == PT2C_OK)
    status = pt2c_check_tensors(plan, "input", plan->inputs, plan->header->num_inputs, inputs,
                                num_inputs, sym_values);
  if (status != PT2C_OK) return status;
  const pt2c_plan_tensor* output = &plan->outputs[index];
  pt2c_sym_resolve(plan, output->dims, output->rank, sym_values, out_dims);
  return PT2C_OK;
}
