/* Model creation, destruction and the queries that describe inputs and outputs. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include "model.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/library_steps.h"
#include "cuda/cuda_model.h"
#include "dispatch.h"
#include "error.h"
#include "step_profile.h"

enum { kArenaAlignment = 64, kWeightsAlignment = 64 };

/* malloc/calloc may return NULL for zero bytes; never ask for zero. */
static void *allocate_array(size_t count, size_t element_size) {
  return calloc(count > 0 ? count : 1, element_size);
}

/* A model or an instance: an instance's borrowed fields are NULL (plan_copy, info_dims,
 * set_copy, profile, weights_file) or, for the packed operands, left to the parent. */
static void free_model(pt2c_model *model) {
  if (model == NULL)
    return;
  pt2c_plan_set_free(model);
  pt2c_cuda_model_destroy(model->cuda);
  if (model->parent == NULL)
    pt2c_cpu_library_steps_destroy(model->cpu_library_steps);
  if (model->plan.header != NULL)
    pt2c_step_profile_finish(model->profile, &model->plan, model->kernel_splits);
  free(model->step_arg_data);
  free(model->buffer_data);
  free(model->arena_allocation);
  free(model->state);
  free(model->plan_copy);
  free(model->info_dims);
  pt2c_weights_file_close(&model->weights_file); /* after everything that reads weights */
  free(model);
}

/* Checks the CPU kernel table the plan indexes. */
static pt2c_status check_kernel_table(const pt2c_model_source *source, const pt2c_plan *plan) {
  const pt2c_plan_header *header = plan->header;
  if (header->num_kernels > source->num_kernels)
    return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL,
                     "corrupt model: the plan uses %u kernels, the kernel table has %u",
                     header->num_kernels, source->num_kernels);
  if (header->num_kernels > 0 && source->kernels == NULL)
    return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL, "corrupt model: the kernel table is missing");
  for (uint32_t i = 0; i < header->num_kernels; ++i)
    if (source->kernels[i] == NULL)
      return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL, "corrupt model: kernel %u is null", i);
  return PT2C_OK;
}

/* Every kernel step's buffers are at least as large as its kernel was compiled for
 * (pt2c_kernel_args), so that no plan can make a kernel read or write past a buffer.
 * After check_kernel_table: step kernels index the table. */
static pt2c_status check_kernel_args(const pt2c_model_source *source, const pt2c_plan *plan) {
  if (source->kernel_arg_first == NULL || source->kernel_arg_bytes == NULL)
    return PT2C_OK;
  for (uint32_t s = 0; s < plan->header->num_steps; ++s) {
    const pt2c_plan_step *step = &plan->steps[s];
    if (step->kind != PT2C_STEP_KERNEL)
      continue;
    uint32_t first = source->kernel_arg_first[step->kernel];
    uint32_t end = source->kernel_arg_first[step->kernel + 1];
    if (end < first || end - first != step->num_args)
      return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL,
                       "corrupt model: step %u passes %u buffers, its kernel %u takes %u", s,
                       step->num_args, step->kernel, end < first ? 0 : end - first);
    for (uint32_t i = 0; i < step->num_args; ++i) {
      uint64_t needed = source->kernel_arg_bytes[first + i];
      uint32_t buffer = plan->step_args[step->first_arg + i];
      if (needed > 0 && pt2c_plan_buffer_is_dynamic(plan, buffer))
        return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL,
                         "corrupt model: step %u: kernel %u was compiled for %" PRIu64
                         " bytes in its buffer %u, the plan's buffer %u has a dynamic size",
                         s, step->kernel, needed, i, buffer);
      if (needed > plan->buffers[buffer].nbytes)
        return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL,
                         "corrupt model: step %u: kernel %u was compiled for %" PRIu64
                         " bytes in its buffer %u, the plan's buffer %u has %" PRIu64,
                         s, step->kernel, needed, i, buffer, plan->buffers[buffer].nbytes);
    }
  }
  return PT2C_OK;
}

/* Checks the weights blob the plan's WEIGHT and STATE buffers point into. */
static pt2c_status check_weights(const pt2c_model_source *source, const pt2c_plan *plan) {
  const pt2c_plan_header *header = plan->header;
  if (header->weights_size > source->weights_size)
    return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL,
                     "corrupt model: the plan expects %" PRIu64
                     " bytes of weights, the model has %" PRIu64,
                     header->weights_size, source->weights_size);
  if (header->weights_size > 0 &&
      (source->weights == NULL || (uintptr_t)source->weights % kWeightsAlignment != 0))
    return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL,
                     "corrupt model: the weights blob is missing or not %d-byte aligned",
                     kWeightsAlignment);
  return PT2C_OK;
}

/* Allocates the arena and the pointer arrays, and points WEIGHT and ARENA buffers at
 * their memory, which does not change between runs. */
static pt2c_status allocate_memory(pt2c_model *model) {
  const pt2c_plan *plan = &model->plan;
  uint64_t arena_size = plan->header->arena_size;
  if (arena_size > 0) {
    /* calloc, not aligned_alloc + memset: zeroed scratch makes a kernel that reads before
     * writing reproducible, and for large sizes calloc maps fresh zero pages instead of
     * touching every byte at create time. */
    if (arena_size > SIZE_MAX - kArenaAlignment)
      return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "the %" PRIu64 "-byte arena is too large",
                       arena_size);
    model->arena_allocation = calloc(1, (size_t)arena_size + kArenaAlignment - 1);
    if (model->arena_allocation == NULL)
      return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the %" PRIu64 "-byte arena",
                       arena_size);
    uintptr_t address = (uintptr_t)model->arena_allocation;
    model->arena = (void *)((address + kArenaAlignment - 1) & ~(uintptr_t)(kArenaAlignment - 1));
  }
  model->buffer_data = allocate_array(plan->header->num_buffers, sizeof(void *));
  model->step_arg_data = allocate_array(plan->max_step_args, sizeof(void *));
  if (model->buffer_data == NULL || model->step_arg_data == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the buffer tables");
  for (uint32_t i = 0; i < plan->header->num_buffers; ++i) {
    const pt2c_plan_buffer *buffer = &plan->buffers[i];
    /* Weights are read-only: kernels receive them through the same void* array. */
    if (buffer->kind == PT2C_BUFFER_WEIGHT)
      model->buffer_data[i] = (void *)(model->weights + buffer->offset);
    else if (buffer->kind == PT2C_BUFFER_ARENA && model->arena != NULL)
      model->buffer_data[i] = (unsigned char *)model->arena + buffer->offset;
  }
  return PT2C_OK;
}

int pt2c_sibling_state(pt2c_model *const *siblings, uint32_t num_siblings,
                       const pt2c_plan_buffer *buffer, const pt2c_model **out_model,
                       uint32_t *out_buffer) {
  for (uint32_t s = 0; s < num_siblings; ++s) {
    const pt2c_plan *plan = &siblings[s]->plan;
    for (uint32_t c = 0; c < plan->header->num_buffers; ++c) {
      const pt2c_plan_buffer *other = &plan->buffers[c];
      if (other->kind == PT2C_BUFFER_STATE && other->offset == buffer->offset &&
          other->nbytes == buffer->nbytes) {
        *out_model = siblings[s];
        *out_buffer = c;
        return 1;
      }
    }
  }
  return 0;
}

/* Gives every STATE buffer a writable copy of its initial bytes, one allocation for all
 * (64-byte aligned slots), so that runs can update it in place; one a sibling graph has
 * already is that graph's. */
static pt2c_status allocate_state(pt2c_model *model, pt2c_model *const *siblings,
                                  uint32_t num_siblings) {
  const pt2c_plan *plan = &model->plan;
  uint64_t total = 0;
  const pt2c_model *holder;
  uint32_t held;
  for (uint32_t i = 0; i < plan->header->num_buffers; ++i) {
    const pt2c_plan_buffer *buffer = &plan->buffers[i];
    if (buffer->kind != PT2C_BUFFER_STATE)
      continue;
    if (pt2c_sibling_state(siblings, num_siblings, buffer, &holder, &held))
      model->buffer_data[i] = holder->buffer_data[held];
    else
      total += (buffer->nbytes + kArenaAlignment - 1) & ~(uint64_t)(kArenaAlignment - 1);
  }
  if (total == 0)
    return PT2C_OK;
  if (total > SIZE_MAX || posix_memalign(&model->state, kArenaAlignment, (size_t)total) != 0)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY,
                     "could not allocate %" PRIu64 " bytes of model state", total);
  unsigned char *next = model->state;
  for (uint32_t i = 0; i < plan->header->num_buffers; ++i) {
    const pt2c_plan_buffer *buffer = &plan->buffers[i];
    if (buffer->kind != PT2C_BUFFER_STATE ||
        pt2c_sibling_state(siblings, num_siblings, buffer, &holder, &held))
      continue;
    memcpy(next, model->weights + buffer->offset, buffer->nbytes);
    model->buffer_data[i] = next;
    next += (buffer->nbytes + kArenaAlignment - 1) & ~(uint64_t)(kArenaAlignment - 1);
  }
  return PT2C_OK;
}

/* Copies the plan into 8-byte aligned memory (records are read in place) and parses it. */
static pt2c_status load_plan(const pt2c_model_source *source, pt2c_model *model) {
  if (source->plan == NULL && source->plan_size > 0)
    return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL, "corrupt model: the plan blob is missing");
  if (source->plan_size > SIZE_MAX)
    return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL, "corrupt model: the plan size is impossible");
  model->plan_copy = malloc(source->plan_size > 0 ? (size_t)source->plan_size : 1);
  if (model->plan_copy == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not copy the %" PRIu64 "-byte plan",
                     source->plan_size);
  if (source->plan_size > 0)
    memcpy(model->plan_copy, source->plan, source->plan_size);
  pt2c_status status = pt2c_plan_parse(model->plan_copy, source->plan_size, &model->plan);
  if (status != PT2C_OK)
    return status;
  /* Sizes as callers see them: a symbolic size (an expression's code offset) is -1. */
  uint32_t num_dims = model->plan.header->num_dims;
  model->info_dims = allocate_array(num_dims, sizeof(int64_t));
  if (model->info_dims == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the shape table");
  for (uint32_t d = 0; d < num_dims; ++d)
    model->info_dims[d] = model->plan.dims[d] < 0 ? -1 : model->plan.dims[d];
  return PT2C_OK;
}

pt2c_status pt2c_model_create_from(const pt2c_model_source *source, pt2c_model **out_model) {
  if (out_model == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_create: out_model is null");
  *out_model = NULL;
  if (source == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_create: source is null");
  pt2c_model *model = calloc(1, sizeof(pt2c_model));
  if (model == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a model");
  model->weights = source->weights;
  model->kernels = source->kernels;
  model->kernel_splits = source->kernel_splits;
  if (pt2c_is_plan_set(source->plan, source->plan_size)) { /* several graphs */
    pt2c_status status = pt2c_plan_set_create(source, model);
    if (status != PT2C_OK) {
      free_model(model);
      return status;
    }
    *out_model = model;
    return PT2C_OK;
  }
  pt2c_status status = load_plan(source, model);
  if (status == PT2C_OK)
    status = check_weights(source, &model->plan);
  /* CUDA and ROCm plans: cuda/cuda_model.c, with the CUDA driver or HIP. */
  if (status == PT2C_OK && pt2c_plan_device_is_gpu(model->plan.header->device)) {
    status = pt2c_cuda_model_create(model, source);
  } else if (status == PT2C_OK) {
    status = check_kernel_table(source, &model->plan);
    if (status == PT2C_OK)
      status = check_kernel_args(source, &model->plan);
    if (status == PT2C_OK)
      status = allocate_memory(model);
    if (status == PT2C_OK)
      status = allocate_state(model, source->siblings, source->num_siblings);
    if (status == PT2C_OK)
      status = pt2c_cpu_library_steps_create(&model->plan, model->buffer_data,
                                             &model->cpu_library_steps);
    if (status == PT2C_OK)
      model->profile = pt2c_step_profile_create(&model->plan);
  }
  if (status != PT2C_OK) {
    free_model(model);
    return status;
  }
  *out_model = model;
  return PT2C_OK;
}

pt2c_status pt2c_model_instance_create(const pt2c_model *parent, pt2c_model *const *siblings,
                                       uint32_t num_siblings, pt2c_model **out_instance) {
  *out_instance = NULL;
  pt2c_model *model = calloc(1, sizeof(pt2c_model));
  if (model == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a context");
  model->parent = parent;
  model->weights = parent->weights;
  model->kernels = parent->kernels;
  model->kernel_splits = parent->kernel_splits;
  pt2c_status status;
  if (parent->num_graphs > 0) {
    status = pt2c_plan_set_instance(parent, model);
  } else if (parent->cuda != NULL) {
    model->plan = parent->plan;
    status = pt2c_cuda_model_share(model, parent->cuda, siblings, num_siblings);
  } else {
    model->plan = parent->plan;                           /* views into the parent's copy */
    model->cpu_library_steps = parent->cpu_library_steps; /* read-only once made */
    status = allocate_memory(model);
    if (status == PT2C_OK)
      status = allocate_state(model, siblings, num_siblings);
  }
  if (status != PT2C_OK) {
    free_model(model);
    return status;
  }
  *out_instance = model;
  return PT2C_OK;
}

PT2C_API void pt2c_model_destroy(pt2c_model *model) { free_model(model); }

PT2C_API uint32_t pt2c_abi_version(void) { return PT2C_ABI_VERSION; }

PT2C_API pt2c_device pt2c_model_device(const pt2c_model *model) {
  if (model == NULL) {
    pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_device: model is null");
    return PT2C_DEVICE_CPU;
  }
  if (model->num_graphs > 0)
    return pt2c_model_device(model->graphs[0].model);
  return (pt2c_device)model->plan.header->device;
}

PT2C_API int32_t pt2c_model_num_inputs(const pt2c_model *model) {
  if (model == NULL) {
    pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_num_inputs: model is null");
    return -1;
  }
  if (model->num_graphs > 0)
    return (int32_t)model->graphs[0].num_slots;
  return (int32_t)model->plan.header->num_inputs;
}

PT2C_API int32_t pt2c_model_num_outputs(const pt2c_model *model) {
  if (model == NULL) {
    pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_num_outputs: model is null");
    return -1;
  }
  if (model->num_graphs > 0)
    return pt2c_model_num_outputs(model->graphs[0].model);
  return (int32_t)model->plan.header->num_outputs;
}

/* Shared body of input_info and output_info. */
static pt2c_status describe(const pt2c_model *model, const char *function, int32_t index,
                            const pt2c_plan_tensor *tensors, uint32_t count,
                            pt2c_tensor_info *out_info) {
  if (model == NULL || out_info == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: %s is null", function,
                     model == NULL ? "model" : "out_info");
  if (index < 0 || (uint32_t)index >= count)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: index %d is out of range [0, %u)", function,
                     index, count);
  const pt2c_plan_tensor *tensor = &tensors[index];
  out_info->name = pt2c_plan_string(&model->plan, tensor->name);
  out_info->dtype = (pt2c_dtype)tensor->dtype;
  out_info->rank = (int32_t)tensor->rank;
  out_info->dims = model->info_dims + tensor->dims;
  return PT2C_OK;
}

PT2C_API pt2c_status pt2c_model_input_info(const pt2c_model *model, int32_t index,
                                           pt2c_tensor_info *out_info) {
  if (model != NULL && model->num_graphs > 0) /* graph 0's slots */
    return pt2c_model_graph_input_info(model, 0, index, out_info);
  return describe(model, "pt2c_model_input_info", index, model ? model->plan.inputs : NULL,
                  model ? model->plan.header->num_inputs : 0, out_info);
}

PT2C_API pt2c_status pt2c_model_output_info(const pt2c_model *model, int32_t index,
                                            pt2c_tensor_info *out_info) {
  if (model != NULL && model->num_graphs > 0)
    return pt2c_model_output_info(model->graphs[0].model, index, out_info);
  return describe(model, "pt2c_model_output_info", index, model ? model->plan.outputs : NULL,
                  model ? model->plan.header->num_outputs : 0, out_info);
}
