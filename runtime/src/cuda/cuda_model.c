/* Creating and destroying the device side of a CUDA model. */
#include "cuda_model.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dtype.h"
#include "../error.h"
#include "../rocm/hip_driver.h"
#include "../rocm/miopen_conv.h"
#include "../rocm/rocm_module.h"
#include "../shape.h"
#include "../symbolic.h"
#include "cuda_conv.h"
#include "cuda_fatbin.h"

enum { kStateAlignment = 256, kJitLogCapacity = 2048 };

/* calloc that never asks for zero bytes (it may return NULL for them). */
static void *allocate_array(size_t count, size_t element_size) {
  return calloc(count > 0 ? count : 1, element_size);
}

/* Bytes of `tensor` at the symbols' maxima (its size, when it has no dynamic dims). */
static uint64_t tensor_nbytes(const pt2c_plan *plan, const pt2c_plan_tensor *tensor) {
  int64_t maxima[PT2C_MAX_SYMS];
  int64_t dims[PT2C_MAX_RANK];
  pt2c_sym_maxima(plan, maxima);
  pt2c_sym_resolve(plan, tensor->dims, tensor->rank, maxima, dims);
  uint64_t nbytes = 0; /* the plan parser checked that this does not overflow */
  pt2c_shape_nbytes(pt2c_dtype_element_size((pt2c_dtype)tensor->dtype), tensor->rank, dims,
                    &nbytes);
  return nbytes;
}

/* cuMemAlloc of `nbytes` (none for 0 bytes: the driver rejects empty allocations). */
static pt2c_status device_alloc(const pt2c_cuda_driver *cu, uint64_t nbytes, const char *what,
                                CUdeviceptr *out) {
  *out = 0;
  if (nbytes == 0)
    return PT2C_OK;
  if (nbytes > SIZE_MAX)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "the %" PRIu64 "-byte %s is too large", nbytes,
                     what);
  CUresult result = cu->MemAlloc(out, (size_t)nbytes);
  if (result == CUDA_SUCCESS)
    return PT2C_OK;
  *out = 0;
  char message[128];
  snprintf(message, sizeof(message), "could not allocate the %" PRIu64 "-byte %s on the GPU",
           nbytes, what);
  return pt2c_cuda_fail(cu, result, pt2c_cuda_status(result), message);
}

/* Uses the device of the context current on this thread (a host that already works on
 * a GPU, e.g. PyTorch after torch.cuda.set_device), else device 0. */
static pt2c_status pick_device(struct pt2c_cuda_model *cuda) {
  const pt2c_cuda_driver *cu = cuda->cu;
  CUcontext current = NULL;
  CUresult result = cu->CtxGetCurrent(&current);
  if (result == CUDA_SUCCESS && current != NULL)
    result = cu->CtxGetDevice(&cuda->device);
  else
    result = cu->DeviceGet(&cuda->device, 0);
  char what[128];
  if (result != CUDA_SUCCESS) {
    snprintf(what, sizeof(what), "this model needs an %s GPU: no %s device is usable", cu->vendor,
             cu->api);
    return pt2c_cuda_fail(cu, result, PT2C_ERROR_UNSUPPORTED, what);
  }
  result = cu->DevicePrimaryCtxRetain(&cuda->context, cuda->device);
  if (result != CUDA_SUCCESS) {
    cuda->context = NULL;
    snprintf(what, sizeof(what), "cannot use the primary context of the %s device", cu->api);
    return pt2c_cuda_fail(cu, result, PT2C_ERROR_UNSUPPORTED, what);
  }
  return PT2C_OK;
}

/* Retains the primary context of cuda->device (a model or context of a device in use). */
static pt2c_status retain_context(struct pt2c_cuda_model *cuda) {
  CUresult result = cuda->cu->DevicePrimaryCtxRetain(&cuda->context, cuda->device);
  if (result == CUDA_SUCCESS)
    return PT2C_OK;
  cuda->context = NULL;
  return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE,
                        "cannot use the primary context of the CUDA device");
}

/* Whether a module load failed because this GPU has no cubin and the PTX did not JIT. */
static int is_architecture_error(CUresult result) {
  return result == CUDA_ERROR_NO_BINARY_FOR_GPU || result == CUDA_ERROR_INVALID_PTX ||
         result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
         result == CUDA_ERROR_JIT_COMPILER_NOT_FOUND;
}

static pt2c_status architecture_error(struct pt2c_cuda_model *cuda, CUresult result,
                                      const pt2c_fatbin_contents *contents, const char *log) {
  const pt2c_cuda_driver *cu = cuda->cu;
  char name[128] = "unknown GPU", built_for[200], what[768];
  int major = 0, minor = 0, driver_version = 0;
  cu->DeviceGetName(name, (int)sizeof(name), cuda->device);
  cu->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cuda->device);
  cu->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cuda->device);
  cu->DriverGetVersion(&driver_version);
  pt2c_fatbin_describe(contents, built_for, sizeof(built_for));
  int has_cubin = 0;
  for (uint32_t i = 0; i < contents->num_images; ++i)
    has_cubin |= contents->images[i].kind == PT2C_FATBIN_CUBIN &&
                 contents->images[i].sm == (uint32_t)(major * 10 + minor);
  /* With a cubin for this very GPU, the driver itself is the problem (older than the
   * toolkit that built the model); otherwise the model lacks code for this GPU. */
  const char *advice = has_cubin ? "; the driver rejected its cubin for this GPU, so it is "
                                   "probably older than the CUDA toolkit that built the "
                                   "model: update the NVIDIA driver"
                                 : "; compile the model with --target cuda:sm_";
  char sm[16] = "";
  if (!has_cubin)
    snprintf(sm, sizeof(sm), "%d%d", major, minor);
  snprintf(what, sizeof(what),
           "this model's GPU code cannot run on CUDA device %d (%s, sm_%d%d, driver API %d.%d): "
           "the model has %s, and the driver could not compile the PTX for this GPU%s%s%s%s",
           cuda->device, name, major, minor, driver_version / 1000, driver_version % 1000 / 10,
           built_for, advice, sm, log[0] != '\0' ? "; JIT log: " : "", log);
  return pt2c_cuda_fail(cu, result, PT2C_ERROR_UNSUPPORTED, what);
}

/* Looks up every kernel of the plan in the loaded module. */
static pt2c_status find_functions(struct pt2c_cuda_model *cuda, const pt2c_plan *plan) {
  const pt2c_cuda_driver *cu = cuda->cu;
  uint32_t num_kernels = plan->header->num_kernels;
  cuda->functions = allocate_array(num_kernels, sizeof(CUfunction));
  if (cuda->functions == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the kernel table");
  cuda->owns_functions = 1;
  for (uint32_t i = 0; i < num_kernels; ++i) {
    const char *name = pt2c_plan_string(plan, plan->gpu_kernels[i].name);
    CUresult result = cu->ModuleGetFunction(&cuda->functions[i], cuda->module, name);
    if (result == CUDA_ERROR_NOT_FOUND)
      return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL,
                       "corrupt model: kernel %u ('%s') is not in the model's %s", i, name,
                       cu->device == PT2C_DEVICE_ROCM ? "code object" : "fatbin");
    if (result != CUDA_SUCCESS)
      return pt2c_cuda_fail(cu, result, pt2c_cuda_status(result), "looking up a kernel failed");
  }
  return PT2C_OK;
}

/* The model's GPU code, checked before anything is loaded: a CUDA plan's fatbin, or a ROCm
 * plan's code object table. */
typedef struct gpu_code {
  pt2c_fatbin_contents fatbin;
  pt2c_rocm_code_objects code_objects;
} gpu_code;

static pt2c_status read_gpu_code(const pt2c_plan *plan, const pt2c_model_source *source,
                                 gpu_code *code) {
  if (plan->header->device == PT2C_DEVICE_ROCM) {
    if (!pt2c_rocm_code_objects_read(source->rocm_code_objects, source->rocm_code_objects_size,
                                     &code->code_objects))
      return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL, "corrupt model: its AMD GPU code object table "
                                                 "is missing, damaged or not 8-byte aligned");
    return PT2C_OK;
  }
  if (!pt2c_fatbin_read(source->cuda_fatbin, source->cuda_fatbin_size, &code->fatbin) ||
      ((uintptr_t)source->cuda_fatbin & 7) != 0)
    return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL,
                     "corrupt model: its CUDA fatbin is missing, damaged or not 8-byte aligned");
  return PT2C_OK;
}

/* Loads the fatbin (the driver picks the cubin for this GPU, or JIT-compiles the PTX), or
 * the code object for this AMD GPU, and looks up every kernel of the plan. */
static pt2c_status load_module(struct pt2c_cuda_model *cuda, const pt2c_plan *plan,
                               const pt2c_model_source *source, const gpu_code *code) {
  const pt2c_cuda_driver *cu = cuda->cu;
  if (cu->device == PT2C_DEVICE_ROCM) {
    pt2c_status status =
        pt2c_rocm_load_module(cu, cuda->device, &code->code_objects, &cuda->module);
    return status == PT2C_OK ? find_functions(cuda, plan) : status;
  }
  const void *fatbin = source->cuda_fatbin;
  const pt2c_fatbin_contents *contents = &code->fatbin;
  char log[kJitLogCapacity] = "";
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, (void *)(uintptr_t)sizeof(log)};
  CUresult result = cu->ModuleLoadDataEx(&cuda->module, fatbin, 2, options, values);
  if (result != CUDA_SUCCESS) {
    cuda->module = NULL;
    if (is_architecture_error(result))
      return architecture_error(cuda, result, contents, log);
    return pt2c_cuda_fail(cu, result, pt2c_cuda_status(result),
                          "loading the model's GPU code failed");
  }
  return find_functions(cuda, plan);
}

static uint64_t round_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/* The weights, uploaded once per model (its contexts use this copy). */
static pt2c_status upload_weights(struct pt2c_cuda_model *cuda, const pt2c_plan *plan,
                                  const unsigned char *host_weights) {
  const pt2c_cuda_driver *cu = cuda->cu;
  uint64_t size = plan->header->weights_size;
  pt2c_status status = device_alloc(cu, size, "weights", &cuda->weights);
  if (status != PT2C_OK)
    return status;
  CUresult result = CUDA_SUCCESS;
  if (size > 0)
    result = cu->MemcpyHtoD(cuda->weights, host_weights, (size_t)size);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cu, result, PT2C_ERROR_DEVICE, "copying the weights to the GPU failed");
  return PT2C_OK;
}

/* Copies every STATE buffer's initial bytes (in the host weights) to its device copy;
 * the context is current. */
static pt2c_status write_initial_state(struct pt2c_cuda_model *cuda, const pt2c_plan *plan,
                                       const unsigned char *host_weights) {
  for (uint32_t i = 0; i < plan->header->num_buffers; ++i) {
    const pt2c_plan_buffer *buffer = &plan->buffers[i];
    if (buffer->kind != PT2C_BUFFER_STATE || buffer->nbytes == 0)
      continue;
    CUresult result = cuda->cu->MemcpyHtoD(cuda->buffer_address[i], host_weights + buffer->offset,
                                           (size_t)buffer->nbytes);
    if (result != CUDA_SUCCESS)
      return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE,
                            "copying the model state to the GPU failed");
  }
  return PT2C_OK;
}

pt2c_status pt2c_cuda_reset_state(struct pt2c_cuda_model *cuda, const pt2c_plan *plan,
                                  const unsigned char *host_weights) {
  CUresult result = cuda->cu->CtxPushCurrent(cuda->context);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE, "cannot make the context current");
  pt2c_status status = write_initial_state(cuda, plan, host_weights);
  CUcontext popped;
  cuda->cu->CtxPopCurrent(&popped);
  return status;
}

pt2c_status pt2c_cuda_copy_state(struct pt2c_cuda_model *cuda, uint32_t buffer, void *host,
                                 size_t nbytes, int read) {
  if (nbytes == 0)
    return PT2C_OK;
  CUresult result = cuda->cu->CtxPushCurrent(cuda->context);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE, "cannot make the context current");
  CUdeviceptr device = cuda->buffer_address[buffer];
  result = read ? cuda->cu->MemcpyDtoH(host, device, nbytes)
                : cuda->cu->MemcpyHtoD(device, host, nbytes);
  CUcontext popped;
  cuda->cu->CtxPopCurrent(&popped);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE, "copying the model state failed");
  return PT2C_OK;
}

/* Device memory a run writes, per model or context: the arena (zeroed, like the CPU
 * runtime's, so that results never depend on stale bytes), the STATE copies (those a
 * sibling graph has already are its) and the staging buffers of host-memory runs; and
 * every buffer's address (weights: `weights`). */
static pt2c_status allocate_run_memory(struct pt2c_cuda_model *cuda, const pt2c_plan *plan,
                                       const unsigned char *host_weights,
                                       pt2c_model *const *siblings, uint32_t num_siblings) {
  const pt2c_model *holder;
  uint32_t held;
  const pt2c_cuda_driver *cu = cuda->cu;
  const pt2c_plan_header *header = plan->header;
  CUresult result = CUDA_SUCCESS;
  pt2c_status status = device_alloc(cu, header->arena_size, "arena", &cuda->arena);
  if (status != PT2C_OK)
    return status;
  if (header->arena_size > 0)
    result = cu->MemsetD8(cuda->arena, 0, (size_t)header->arena_size);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cu, result, PT2C_ERROR_DEVICE, "clearing the arena failed");

  uint64_t state_size = 0;
  for (uint32_t i = 0; i < header->num_buffers; ++i)
    if (plan->buffers[i].kind == PT2C_BUFFER_STATE &&
        !pt2c_sibling_state(siblings, num_siblings, &plan->buffers[i], &holder, &held))
      state_size += round_up(plan->buffers[i].nbytes, kStateAlignment);
  status = device_alloc(cu, state_size, "model state", &cuda->state);
  if (status == PT2C_OK)
    status = device_alloc(cu, (uint64_t)header->num_syms * sizeof(int64_t), "symbol values",
                          &cuda->symbols);
  if (status != PT2C_OK)
    return status;

  uint64_t state_offset = 0;
  for (uint32_t i = 0; i < header->num_buffers; ++i) {
    const pt2c_plan_buffer *buffer = &plan->buffers[i];
    if (buffer->kind == PT2C_BUFFER_WEIGHT) {
      cuda->buffer_address[i] = cuda->weights + buffer->offset;
    } else if (buffer->kind == PT2C_BUFFER_ARENA) {
      cuda->buffer_address[i] = cuda->arena + buffer->offset;
    } else if (buffer->kind == PT2C_BUFFER_STATE &&
               pt2c_sibling_state(siblings, num_siblings, buffer, &holder, &held)) {
      cuda->buffer_address[i] = holder->cuda->buffer_address[held];
    } else if (buffer->kind == PT2C_BUFFER_STATE) {
      cuda->buffer_address[i] = cuda->state + state_offset;
      state_offset += round_up(buffer->nbytes, kStateAlignment);
    } else if (buffer->kind == PT2C_BUFFER_SYMBOLS) {
      cuda->buffer_address[i] = cuda->symbols;
    }
  }
  status = write_initial_state(cuda, plan, host_weights);
  if (status != PT2C_OK)
    return status;

  uint32_t num_io = header->num_inputs + header->num_outputs;
  for (uint32_t i = 0; i < num_io && status == PT2C_OK; ++i) {
    const pt2c_plan_tensor *tensor =
        i < header->num_inputs ? &plan->inputs[i] : &plan->outputs[i - header->num_inputs];
    status = device_alloc(cu, tensor_nbytes(plan, tensor), "staging buffer", &cuda->staging[i]);
  }
  return status;
}

static pt2c_status allocate_tables(struct pt2c_cuda_model *cuda, const pt2c_plan *plan) {
  const pt2c_plan_header *header = plan->header;
  cuda->num_staging = header->num_inputs + header->num_outputs;
  cuda->staging = allocate_array(cuda->num_staging, sizeof(CUdeviceptr));
  cuda->buffer_address = allocate_array(header->num_buffers, sizeof(CUdeviceptr));
  cuda->arg_values = allocate_array(plan->max_step_args, sizeof(CUdeviceptr));
  cuda->params = allocate_array(plan->max_step_args, sizeof(void *));
  cuda->graph_buffers =
      allocate_array((size_t)header->num_buffers * kCudaGraphsPerModel, sizeof(CUdeviceptr));
  if (!cuda->staging || !cuda->buffer_address || !cuda->arg_values || !cuda->params ||
      !cuda->graph_buffers)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the GPU launch tables");
  for (uint32_t i = 0; i < plan->max_step_args; ++i)
    cuda->params[i] = &cuda->arg_values[i];
  return PT2C_OK;
}

/* Graphs are on unless PT2C_CUDA_GRAPH=0 (for comparing, or for a tool that must see
 * every launch). */
static pt2c_status create_capture_stream(struct pt2c_cuda_model *cuda) {
  const char *setting = getenv("PT2C_CUDA_GRAPH");
  cuda->use_graph = !(setting != NULL && strcmp(setting, "0") == 0);
  if (!cuda->use_graph)
    return PT2C_OK;
  CUresult result = cuda->cu->StreamCreate(&cuda->capture_stream, CU_STREAM_NON_BLOCKING);
  if (result == CUDA_SUCCESS)
    return PT2C_OK;
  cuda->capture_stream = NULL;
  return pt2c_cuda_fail(cuda->cu, result, pt2c_cuda_status(result),
                        "creating a CUDA stream failed");
}

pt2c_status pt2c_cuda_model_create(pt2c_model *model, const pt2c_model_source *source) {
  gpu_code code;
  pt2c_status code_status = read_gpu_code(&model->plan, source, &code);
  if (code_status != PT2C_OK)
    return code_status;
  struct pt2c_cuda_model *cuda = calloc(1, sizeof(*cuda));
  if (cuda == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a model");
  model->cuda = cuda;
  /* A later graph of a plan set: the first graph's device, module and weights. */
  const struct pt2c_cuda_model *first = source->num_siblings > 0 ? source->siblings[0]->cuda : NULL;
  pt2c_status status = PT2C_OK;
  if (first != NULL) {
    cuda->cu = first->cu;
    cuda->device = first->device;
    status = retain_context(cuda);
  } else {
    status = model->plan.header->device == PT2C_DEVICE_ROCM ? pt2c_hip_driver_load(&cuda->cu)
                                                            : pt2c_cuda_driver_load(&cuda->cu);
    if (status == PT2C_OK)
      status = pick_device(cuda);
  }
  if (status != PT2C_OK)
    return status;

  CUresult result = cuda->cu->CtxPushCurrent(cuda->context);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE, "cannot make the context current");
  status = allocate_tables(cuda, &model->plan);
  if (first != NULL) {
    cuda->shared = 1;
    cuda->module = first->module;
    cuda->weights = first->weights;
    if (status == PT2C_OK)
      status = find_functions(cuda, &model->plan);
  } else {
    if (status == PT2C_OK)
      status = load_module(cuda, &model->plan, source, &code);
    if (status == PT2C_OK)
      status = upload_weights(cuda, &model->plan, source->weights);
  }
  if (status == PT2C_OK)
    status = allocate_run_memory(cuda, &model->plan, source->weights, source->siblings,
                                 source->num_siblings);
  cuda->conv_library =
      cuda->cu->device == PT2C_DEVICE_ROCM ? &pt2c_miopen_convs : &pt2c_cudnn_convs;
  if (status == PT2C_OK)
    status = pt2c_cuda_gemms_create(cuda->cu, &model->plan, cuda->buffer_address, &cuda->gemms);
  if (status == PT2C_OK)
    status = cuda->conv_library->create(cuda->cu, &model->plan, source->weights, &cuda->convs);
  if (status == PT2C_OK)
    status = create_capture_stream(cuda);
  CUcontext popped;
  cuda->cu->CtxPopCurrent(&popped);
  return status;
}

pt2c_status pt2c_cuda_model_share(pt2c_model *instance, const struct pt2c_cuda_model *parent,
                                  pt2c_model *const *siblings, uint32_t num_siblings) {
  struct pt2c_cuda_model *cuda = calloc(1, sizeof(*cuda));
  if (cuda == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a context");
  instance->cuda = cuda;
  cuda->shared = 1;
  cuda->cu = parent->cu;
  cuda->device = parent->device;
  pt2c_status status = retain_context(cuda);
  if (status != PT2C_OK)
    return status;
  CUresult result = cuda->cu->CtxPushCurrent(cuda->context);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE, "cannot make the context current");
  cuda->module = parent->module;
  cuda->functions = parent->functions;
  cuda->weights = parent->weights;
  status = allocate_tables(cuda, &instance->plan);
  if (status == PT2C_OK)
    status = allocate_run_memory(cuda, &instance->plan, instance->weights, siblings, num_siblings);
  cuda->conv_library = parent->conv_library;
  if (status == PT2C_OK)
    status = pt2c_cuda_gemms_share(cuda->cu, parent->gemms, &cuda->gemms);
  if (status == PT2C_OK)
    status = cuda->conv_library->share(cuda->cu, parent->convs, &cuda->convs);
  if (status == PT2C_OK)
    status = create_capture_stream(cuda);
  CUcontext popped;
  cuda->cu->CtxPopCurrent(&popped);
  return status;
}

void pt2c_cuda_model_destroy(struct pt2c_cuda_model *cuda) {
  if (cuda == NULL)
    return;
  const pt2c_cuda_driver *cu = cuda->cu;
  if (cuda->context != NULL && cu->CtxPushCurrent(cuda->context) == CUDA_SUCCESS) {
    /* Errors are ignored: there is nobody to report them to, and the memory is the
     * context's either way. */
    for (uint32_t i = 0; cuda->staging != NULL && i < cuda->num_staging; ++i)
      if (cuda->staging[i])
        cu->MemFree(cuda->staging[i]);
    if (cuda->weights && !cuda->shared)
      cu->MemFree(cuda->weights);
    if (cuda->arena)
      cu->MemFree(cuda->arena);
    if (cuda->state)
      cu->MemFree(cuda->state);
    if (cuda->symbols)
      cu->MemFree(cuda->symbols);
    for (uint32_t i = 0; i < cuda->num_graphs; ++i)
      cu->GraphExecDestroy(cuda->graphs[i]);
    pt2c_cuda_gemms_destroy(cu, cuda->gemms);
    if (cuda->conv_library != NULL)
      cuda->conv_library->destroy(cu, cuda->convs);
    if (cuda->capture_stream)
      cu->StreamDestroy(cuda->capture_stream);
    if (cuda->module && !cuda->shared)
      cu->ModuleUnload(cuda->module);
    CUcontext popped;
    cu->CtxPopCurrent(&popped);
  }
  if (cuda->context != NULL)
    cu->DevicePrimaryCtxRelease(cuda->device);
  free(cuda->graph_buffers);
  free(cuda->params);
  free(cuda->arg_values);
  free(cuda->buffer_address);
  free(cuda->staging);
  if (cuda->owns_functions)
    free(cuda->functions);
  free(cuda);
}
