/* The ABI of dynamic dimensions (pt2c.h): what a caller needs to size outputs when sizes
 * vary from run to run. */
#include <stdlib.h>

#include "check.h"
#include "dispatch.h"
#include "error.h"
#include "model.h"
#include "symbolic.h"

/* The graph a model's calls describe: graph 0 of a plan set. */
static const pt2c_model *first_graph(const pt2c_model *model) {
  return model->num_graphs > 0 ? model->graphs[0].model : model;
}

PT2C_API int32_t pt2c_model_num_dynamic_dims(const pt2c_model *model) {
  if (model == NULL) {
    pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_num_dynamic_dims: model is null");
    return -1;
  }
  return (int32_t)first_graph(model)->plan.header->num_syms;
}

PT2C_API pt2c_status pt2c_model_dynamic_dim_info(const pt2c_model *model, int32_t index,
                                                 const char **out_name, int64_t *out_min,
                                                 int64_t *out_max) {
  if (model == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_dynamic_dim_info: model is null");
  const pt2c_plan *plan = &first_graph(model)->plan;
  if (index < 0 || (uint32_t)index >= plan->header->num_syms)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT,
                     "pt2c_model_dynamic_dim_info: index %d is out of range [0, %u)", index,
                     plan->header->num_syms);
  const pt2c_plan_sym *sym = &plan->syms[index];
  if (out_name != NULL)
    *out_name = pt2c_plan_string(plan, sym->name);
  if (out_min != NULL)
    *out_min = sym->min;
  if (out_max != NULL)
    *out_max = sym->max;
  return PT2C_OK;
}

/* PT2C_ERROR_INVALID_ARGUMENT unless `index` names one of the plan's outputs. */
static pt2c_status check_output_index(const pt2c_plan *plan, const char *function, int32_t index) {
  if (index < 0 || (uint32_t)index >= plan->header->num_outputs)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: index %d is out of range [0, %u)", function,
                     index, plan->header->num_outputs);
  return PT2C_OK;
}

/* Output `index` of one graph's executable for inputs in its plan's order. */
static pt2c_status plan_output_shape(const pt2c_model *graph, const char *function,
                                     const pt2c_tensor *inputs, int32_t num_inputs, int32_t index,
                                     int64_t *out_dims) {
  const pt2c_plan *plan = &graph->plan;
  pt2c_status status = check_output_index(plan, function, index);
  if (status != PT2C_OK)
    return status;
  int64_t sym_values[PT2C_MAX_SYMS];
  uint32_t known;
  status = pt2c_sym_bind(plan, inputs, num_inputs, sym_values, &known);
  if (status == PT2C_OK)
    status = pt2c_check_tensors(plan, "input", plan->inputs, plan->header->num_inputs, inputs,
                                num_inputs, sym_values);
  if (status != PT2C_OK)
    return status;
  const pt2c_plan_tensor *output = &plan->outputs[index];
  pt2c_sym_resolve(plan, output->dims, output->rank, sym_values, out_dims);
  return PT2C_OK;
}

/* Graph `graph`'s output `index` for the caller's inputs (slot order). */
static pt2c_status graph_output_shape(const pt2c_model *model, const char *function, int32_t graph,
                                      const pt2c_tensor *inputs, int32_t num_inputs, int32_t index,
                                      int64_t *out_dims) {
  if (model == NULL || out_dims == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: %s is null", function,
                     model == NULL ? "model" : "out_dims");
  if (num_inputs < 0 || (inputs == NULL && num_inputs > 0))
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: %d inputs at %p", function, num_inputs,
                     (const void *)inputs);
  int32_t num_graphs = model->num_graphs > 0 ? (int32_t)model->num_graphs : 1;
  if (graph < 0 || graph >= num_graphs)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: graph %d is out of range [0, %d)", function,
                     graph, num_graphs);
  const pt2c_model *executable = NULL;
  pt2c_tensor *ordered = NULL;
  int32_t num_ordered = 0;
  pt2c_status status = pt2c_graph_inputs(model, (uint32_t)graph, inputs, num_inputs, &executable,
                                         &ordered, &num_ordered);
  if (status == PT2C_OK)
    status = plan_output_shape(executable, function, ordered, num_ordered, index, out_dims);
  free(ordered);
  return status;
}

PT2C_API pt2c_status pt2c_model_output_shape(const pt2c_model *model, const pt2c_tensor *inputs,
                                             int32_t num_inputs, int32_t index, int64_t *out_dims) {
  const char *function = "pt2c_model_output_shape";
  int32_t graph = 0;
  if (model != NULL && model->num_graphs > 0) { /* the graph a run would pick */
    pt2c_status status = pt2c_model_find_graph(model, NULL, inputs, num_inputs, &graph);
    if (status != PT2C_OK)
      return status;
  }
  return graph_output_shape(model, function, graph, inputs, num_inputs, index, out_dims);
}

PT2C_API pt2c_status pt2c_model_graph_output_shape(const pt2c_model *model, int32_t graph,
                                                   const pt2c_tensor *inputs, int32_t num_inputs,
                                                   int32_t index, int64_t *out_dims) {
  return graph_output_shape(model, "pt2c_model_graph_output_shape", graph, inputs, num_inputs,
                            index, out_dims);
}

pt2c_status pt2c_last_output_shape(const pt2c_model *model, const char *function, int32_t index,
                                   int64_t *out_dims) {
  if (model == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: model is null", function);
  const pt2c_model *graph = model->last_run;
  if (graph == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT,
                     "%s: no run has succeeded yet on this model or context", function);
  const pt2c_plan *plan = &graph->plan;
  pt2c_status status = check_output_index(plan, function, index);
  if (status != PT2C_OK)
    return status;
  const pt2c_plan_tensor *output = &plan->outputs[index];
  if (out_dims == NULL && output->rank > 0)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: out_dims is null", function);
  pt2c_sym_resolve(plan, output->dims, output->rank, graph->last_sym_values, out_dims);
  return PT2C_OK;
}

PT2C_API pt2c_status pt2c_model_last_output_shape(const pt2c_model *model, int32_t index,
                                                  int64_t *out_dims) {
  return pt2c_last_output_shape(model, "pt2c_model_last_output_shape", index, out_dims);
}
