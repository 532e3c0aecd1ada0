/* The run loop: refuse a second run of a model already running, check everything, bind
 * the caller's memory, call each step's kernel (or hand a CUDA plan to cuda/cuda_run.c). */
#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"
#include "cpu/kernel_split.h"
#include "cpu/library_steps.h"
#include "cuda/cuda_model.h"
#include "dispatch.h"
#include "error.h"
#include "guard.h"
#include "model.h"
#include "step_profile.h"
#include "symbolic.h"

/* Points INPUT and OUTPUT buffers at this run's caller memory (the inputs are read-only
 * to kernels, but every kernel argument is a void*). */
static void bind_caller_buffers(pt2c_model *model, const pt2c_tensor *inputs,
                                pt2c_tensor *outputs) {
  const pt2c_plan *plan = &model->plan;
  for (uint32_t i = 0; i < plan->header->num_buffers; ++i) {
    const pt2c_plan_buffer *buffer = &plan->buffers[i];
    if (buffer->kind == PT2C_BUFFER_INPUT)
      model->buffer_data[i] = inputs[buffer->index].data;
    else if (buffer->kind == PT2C_BUFFER_OUTPUT)
      model->buffer_data[i] = outputs[buffer->index].data;
  }
}

/* The checks every run starts with, whatever the device; binds the dynamic dimensions'
 * values (sym_values, PT2C_MAX_SYMS entries) from the inputs, `known` the bits of those
 * that are final (symbolic.h). */
static pt2c_status check_run(const pt2c_model *model, const pt2c_tensor *inputs, int32_t num_inputs,
                             pt2c_tensor *outputs, int32_t num_outputs, int64_t *sym_values,
                             uint32_t *known) {
  const pt2c_plan *plan = &model->plan;
  pt2c_status status = pt2c_sym_bind(plan, inputs, num_inputs, sym_values, known);
  if (status == PT2C_OK)
    status = pt2c_check_tensors(plan, "input", plan->inputs, plan->header->num_inputs, inputs,
                                num_inputs, sym_values);
  if (status == PT2C_OK)
    status = pt2c_check_tensors(plan, "output", plan->outputs, plan->header->num_outputs, outputs,
                                num_outputs, sym_values);
  return status;
}

/* Marks the caller's model as running, or fails if a run on it is already in progress.
 * Documented as unsafe, concurrent runs of one model used to return OK with wrong
 * outputs (or crash); this turns the misuse into an error before anything is touched.
 * One flag per handle covers a plan set too: its graphs share the handle's scratch and
 * their STATE buffers, so any two runs through one handle conflict. A flag and not a
 * mutex: waiting would hide the misuse and serialize a server that meant to run in
 * parallel; the fix is one model per thread. */
pt2c_status pt2c_model_claim(pt2c_model *model, const char *function) {
  int idle = 0;
  if (atomic_compare_exchange_strong_explicit(&model->running, &idle, 1, memory_order_acquire,
                                              memory_order_relaxed))
    return PT2C_OK;
  return pt2c_fail(PT2C_ERROR_BUSY,
                   "%s: the model is already running (a call from another thread is in "
                   "progress); a model runs one call at a time: give each thread its own "
                   "context (pt2c_context_create) or model",
                   function);
}

/* Ends what claim began; release ordering hands the run's writes to the next claimer. */
void pt2c_model_release(pt2c_model *model) {
  atomic_store_explicit(&model->running, 0, memory_order_release);
}

static pt2c_status run_device_claimed(pt2c_model *model, const pt2c_tensor *inputs,
                                      int32_t num_inputs, pt2c_tensor *outputs, int32_t num_outputs,
                                      void *stream) {
  pt2c_status status = pt2c_dispatch(model, "pt2c_model_run_device", NULL, inputs, num_inputs,
                                     &model, &inputs, &num_inputs);
  if (status != PT2C_OK)
    return status;
  if (!pt2c_plan_device_is_gpu(model->plan.header->device))
    return pt2c_fail(PT2C_ERROR_UNSUPPORTED,
                     "pt2c_model_run_device: this model runs on the CPU; use pt2c_model_run "
                     "(compile with --target cuda for a GPU model)");
  int64_t sym_values[PT2C_MAX_SYMS];
  uint32_t known;
  status = check_run(model, inputs, num_inputs, outputs, num_outputs, sym_values, &known);
  if (status != PT2C_OK)
    return status;
  return pt2c_cuda_run(model, inputs, outputs, sym_values, /*host_memory=*/0, (CUstream)stream);
}

PT2C_API pt2c_status pt2c_model_run_device(pt2c_model *model, const pt2c_tensor *inputs,
                                           int32_t num_inputs, pt2c_tensor *outputs,
                                           int32_t num_outputs, void *stream) {
  if (model == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_run_device: model is null");
  pt2c_status status = pt2c_model_claim(model, "pt2c_model_run_device");
  if (status != PT2C_OK)
    return status;
  status = run_device_claimed(model, inputs, num_inputs, outputs, num_outputs, stream);
  pt2c_model_release(model);
  return status;
}

/* Binds the data-dependent sizes step `step` computed (PT2C_SYM_FLAG_PRODUCED) to the
 * values it wrote, then the derived sizes those complete. A value outside the symbol's
 * range would make later kernels read or write past their buffers, so it fails the run
 * instead (a compiler bug). */
static pt2c_status bind_produced_symbols(pt2c_model *model, uint32_t step, int64_t *sym_values,
                                         uint32_t *known) {
  const pt2c_plan *plan = &model->plan;
  uint32_t bound = 0;
  for (uint32_t k = 0; k < plan->header->num_syms; ++k) {
    const pt2c_plan_sym *sym = &plan->syms[k];
    if (!pt2c_sym_computed_by(plan, &plan->steps[step], sym))
      continue;
    int64_t value;
    memcpy(&value, model->buffer_data[sym->dim], sizeof(value));
    if (value < sym->min || value > sym->max)
      return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL,
                       "step %u computed %" PRId64 " for the data-dependent size '%s', outside "
                       "its bound [%" PRId64 ", %" PRId64 "]",
                       step, value, pt2c_plan_string(plan, sym->name), sym->min, sym->max);
    sym_values[k] = value;
    bound |= 1u << k;
  }
  *known |= bound;
  return bound ? pt2c_sym_derive(plan, sym_values, known) : PT2C_OK;
}

/* The steps of a CPU plan, in order, on the bound buffers. */
static pt2c_status run_cpu_steps(pt2c_model *model, int64_t *sym_values, uint32_t known) {
  const pt2c_plan *plan = &model->plan;
  pt2c_status status = PT2C_OK;
  for (uint32_t s = 0; s < plan->header->num_steps && status == PT2C_OK; ++s) {
    const pt2c_plan_step *step = &plan->steps[s];
    for (uint32_t a = 0; a < step->num_args; ++a)
      model->step_arg_data[a] = model->buffer_data[plan->step_args[step->first_arg + a]];
    int64_t start = model->profile ? pt2c_step_profile_now() : 0;
    uint32_t step_number = s;
    if (step->kind == PT2C_STEP_GEMM || step->kind == PT2C_STEP_CONV) {
      /* Served by the microkernels, or left to the fallback steps that follow. */
      if (pt2c_cpu_library_step_run(model->cpu_library_steps, plan, step, model->step_arg_data))
        s += step->kind == PT2C_STEP_GEMM ? plan->gemms[step->kernel].num_fallback_steps
                                          : plan->convs[step->kernel].num_fallback_steps;
    } else {
      pt2c_cpu_run_kernel(model->kernels[step->kernel],
                          model->kernel_splits ? &model->kernel_splits[step->kernel] : NULL,
                          model->step_arg_data, plan->header->num_syms > 0 ? sym_values : NULL);
    }
    if (model->profile)
      pt2c_step_profile_add(model->profile, step_number, pt2c_step_profile_now() - start);
    status = bind_produced_symbols(model, step_number, sym_values, &known);
  }
  return status;
}

/* Runs one graph's executable on host memory; a successful run leaves its symbol values
 * (data-dependent sizes bound) in model->last_sym_values. */
static pt2c_status run_graph(pt2c_model *model, const pt2c_tensor *inputs, int32_t num_inputs,
                             pt2c_tensor *outputs, int32_t num_outputs) {
  const pt2c_plan *plan = &model->plan;
  int64_t sym_values[PT2C_MAX_SYMS];
  uint32_t known;
  pt2c_status status =
      check_run(model, inputs, num_inputs, outputs, num_outputs, sym_values, &known);
  if (status != PT2C_OK)
    return status;
  if (pt2c_plan_device_is_gpu(plan->header->device)) {
    status = pt2c_cuda_run(model, inputs, outputs, sym_values, /*host_memory=*/1, NULL);
  } else {
    bind_caller_buffers(model, inputs, outputs);
    status = run_cpu_steps(model, sym_values, known);
    if (status == PT2C_OK)
      status = pt2c_check_guards(model);
  }
  if (status == PT2C_OK)
    memcpy(model->last_sym_values, sym_values, sizeof(model->last_sym_values));
  return status;
}

pt2c_status pt2c_run_host(pt2c_model *model, const char *function, const char *method,
                          const pt2c_tensor *inputs, int32_t num_inputs, pt2c_tensor *outputs,
                          int32_t num_outputs) {
  if (model == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: model is null", function);
  pt2c_status status = pt2c_model_claim(model, function);
  if (status != PT2C_OK)
    return status;
  pt2c_model *graph = NULL;
  status = pt2c_dispatch(model, function, method, inputs, num_inputs, &graph, &inputs, &num_inputs);
  if (status == PT2C_OK)
    status = run_graph(graph, inputs, num_inputs, outputs, num_outputs);
  if (status == PT2C_OK)
    model->last_run = graph;
  pt2c_model_release(model);
  return status;
}

PT2C_API pt2c_status pt2c_model_run(pt2c_model *model, const pt2c_tensor *inputs,
                                    int32_t num_inputs, pt2c_tensor *outputs, int32_t num_outputs) {
  return pt2c_run_host(model, "pt2c_model_run", NULL, inputs, num_inputs, outputs, num_outputs);
}

PT2C_API pt2c_status pt2c_model_run_method(pt2c_model *model, const char *method,
                                           const pt2c_tensor *inputs, int32_t num_inputs,
                                           pt2c_tensor *outputs, int32_t num_outputs) {
  return pt2c_run_host(model, "pt2c_model_run_method", method, inputs, num_inputs, outputs,
                       num_outputs);
}
