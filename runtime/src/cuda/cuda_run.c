/* One run of a CUDA plan: bind the tensors, launch every step's kernel, check guards. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../dtype.h"
#include "../error.h"
#include "../guard.h"
#include "../shape.h"
#include "cuda_model.h"

static uint64_t tensor_nbytes(const pt2c_tensor *tensor) {
  uint64_t nbytes = 0; /* checked against the plan before the run */
  pt2c_shape_nbytes(pt2c_dtype_element_size(tensor->dtype), (uint32_t)tensor->rank, tensor->dims,
                    &nbytes);
  return nbytes;
}

/* Points INPUT and OUTPUT buffers at the caller's device memory, or at the staging
 * buffers for host memory. */
static void bind_tensors(pt2c_model *model, const pt2c_tensor *inputs, pt2c_tensor *outputs,
                         int host_memory) {
  struct pt2c_cuda_model *cuda = model->cuda;
  const pt2c_plan *plan = &model->plan;
  uint32_t num_inputs = plan->header->num_inputs;
  for (uint32_t i = 0; i < plan->header->num_buffers; ++i) {
    const pt2c_plan_buffer *buffer = &plan->buffers[i];
    if (buffer->kind == PT2C_BUFFER_INPUT)
      cuda->buffer_address[i] = host_memory ? cuda->staging[buffer->index]
                                            : (CUdeviceptr)(uintptr_t)inputs[buffer->index].data;
    else if (buffer->kind == PT2C_BUFFER_OUTPUT)
      cuda->buffer_address[i] = host_memory ? cuda->staging[num_inputs + buffer->index]
                                            : (CUdeviceptr)(uintptr_t)outputs[buffer->index].data;
  }
}

/* Whether every caller tensor is at an address the generated kernels can take: the
 * compiler declares each kernel pointer kKernelPointerAlignment-aligned (the arena,
 * weights and staging buffers are, at 64 bytes or more) and may then move 16 bytes at a
 * time. A tensor elsewhere (a view into another one's storage) runs staged. */
static int caller_tensors_aligned(const pt2c_model *model, const pt2c_tensor *inputs,
                                  const pt2c_tensor *outputs) {
  for (uint32_t i = 0; i < model->plan.header->num_inputs; ++i)
    if ((uintptr_t)inputs[i].data % kKernelPointerAlignment != 0)
      return 0;
  for (uint32_t i = 0; i < model->plan.header->num_outputs; ++i)
    if ((uintptr_t)outputs[i].data % kKernelPointerAlignment != 0)
      return 0;
  return 1;
}

static pt2c_status copy_inputs_in(pt2c_model *model, const pt2c_tensor *inputs) {
  struct pt2c_cuda_model *cuda = model->cuda;
  for (uint32_t i = 0; i < model->plan.header->num_inputs; ++i) {
    uint64_t nbytes = tensor_nbytes(&inputs[i]);
    if (nbytes == 0)
      continue;
    CUresult result = cuda->cu->MemcpyHtoD(cuda->staging[i], inputs[i].data, (size_t)nbytes);
    if (result != CUDA_SUCCESS)
      return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE,
                            "copying an input to the GPU failed");
  }
  return PT2C_OK;
}

/* A staged device-memory run: the caller's inputs into the staging buffers (to_staging)
 * or the staged outputs and written inputs back to the caller's tensors, on `stream`. */
static pt2c_status copy_device_tensors(pt2c_model *model, const pt2c_tensor *inputs,
                                       pt2c_tensor *outputs, int to_staging, CUstream stream) {
  struct pt2c_cuda_model *cuda = model->cuda;
  const pt2c_plan_header *header = model->plan.header;
  for (uint32_t i = 0; i < header->num_inputs + header->num_outputs; ++i) {
    int is_input = i < header->num_inputs;
    const pt2c_tensor *tensor = is_input ? &inputs[i] : &outputs[i - header->num_inputs];
    int written = is_input && (model->plan.inputs[i].flags & PT2C_TENSOR_WRITTEN);
    if (to_staging ? !is_input : (is_input && !written))
      continue;
    uint64_t nbytes = tensor_nbytes(tensor);
    if (nbytes == 0)
      continue;
    CUdeviceptr caller = (CUdeviceptr)(uintptr_t)tensor->data;
    CUresult result = to_staging
                          ? cuda->cu->MemcpyDtoDAsync(cuda->staging[i], caller, nbytes, stream)
                          : cuda->cu->MemcpyDtoDAsync(caller, cuda->staging[i], nbytes, stream);
    if (result != CUDA_SUCCESS)
      return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE,
                            "copying a tensor through the staging buffers failed");
  }
  return PT2C_OK;
}

/* cuMemcpyDtoH waits for the kernels queued before it on the legacy default stream, so
 * this also reports a kernel that failed while running. */
static pt2c_status copy_outputs_out(pt2c_model *model, pt2c_tensor *outputs) {
  struct pt2c_cuda_model *cuda = model->cuda;
  uint32_t num_inputs = model->plan.header->num_inputs;
  for (uint32_t i = 0; i < model->plan.header->num_outputs; ++i) {
    uint64_t nbytes = tensor_nbytes(&outputs[i]);
    if (nbytes == 0)
      continue;
    CUresult result =
        cuda->cu->MemcpyDtoH(outputs[i].data, cuda->staging[num_inputs + i], (size_t)nbytes);
    if (result != CUDA_SUCCESS)
      return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE,
                            "running the model on the GPU failed (reported while copying "
                            "its outputs back)");
  }
  return PT2C_OK;
}

/* Inputs the model writes in place (PT2C_TENSOR_WRITTEN) go back to the caller's memory. */
static pt2c_status copy_written_inputs_out(pt2c_model *model, const pt2c_tensor *inputs) {
  struct pt2c_cuda_model *cuda = model->cuda;
  for (uint32_t i = 0; i < model->plan.header->num_inputs; ++i) {
    uint64_t nbytes = tensor_nbytes(&inputs[i]);
    if (!(model->plan.inputs[i].flags & PT2C_TENSOR_WRITTEN) || nbytes == 0)
      continue;
    CUresult result = cuda->cu->MemcpyDtoH(inputs[i].data, cuda->staging[i], (size_t)nbytes);
    if (result != CUDA_SUCCESS)
      return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE,
                            "copying a written input back from the GPU failed");
  }
  return PT2C_OK;
}

/* The symbol values go to the device ahead of the steps, in stream order: kernels (and
 * CUDA graphs, whose launches stay the same for every size) read the sizes there. The
 * driver has read `sym_values` when the call returns, as for any pageable source. */
static pt2c_status copy_symbols_in(pt2c_model *model, const int64_t *sym_values, CUstream stream) {
  struct pt2c_cuda_model *cuda = model->cuda;
  if (cuda->symbols == 0)
    return PT2C_OK;
  CUresult result = cuda->cu->MemcpyHtoDAsync(
      cuda->symbols, sym_values, model->plan.header->num_syms * sizeof(int64_t), stream);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE,
                          "copying the dynamic sizes to the GPU failed");
  return PT2C_OK;
}

/* `capturing`: the steps go into a CUDA graph capture. */
static pt2c_status launch_steps(pt2c_model *model, CUstream stream, int capturing) {
  struct pt2c_cuda_model *cuda = model->cuda;
  const pt2c_plan *plan = &model->plan;
  for (uint32_t s = 0; s < plan->header->num_steps; ++s) {
    const pt2c_plan_step *step = &plan->steps[s];
    for (uint32_t a = 0; a < step->num_args; ++a)
      cuda->arg_values[a] = cuda->buffer_address[plan->step_args[step->first_arg + a]];
    if (step->kind == PT2C_STEP_GEMM) {
      /* cuBLASLt, and then not the fallback steps; or the fallback steps. */
      if (pt2c_cuda_gemm_served(cuda->gemms, step->kernel) &&
          pt2c_cuda_gemm_aligned(cuda->gemms, step->kernel, cuda->arg_values, step->num_args)) {
        pt2c_status status =
            pt2c_cuda_gemm_run(cuda->gemms, step->kernel, cuda->arg_values, stream);
        if (status != PT2C_OK)
          return status;
        s += plan->gemms[step->kernel].num_fallback_steps;
      }
      continue;
    }
    if (step->kind == PT2C_STEP_CONV) {
      /* cuDNN or MIOpen, and then not the fallback steps; or the fallback steps. */
      const pt2c_conv_library *library = cuda->conv_library;
      if (library->usable(cuda->convs, step->kernel, cuda->arg_values, step->num_args)) {
        pt2c_status status = library->run(cuda->convs, step->kernel, cuda->arg_values, stream);
        if (status == PT2C_OK) {
          s += plan->convs[step->kernel].num_fallback_steps;
          continue;
        }
        /* Failing inside a capture fails the capture (see warmed_up). Outside one, the
         * library refused the call and queued nothing: the fallback steps run, now and
         * later. */
        if (capturing || !library->refuse(cuda->convs, step->kernel))
          return status;
      }
      continue;
    }
    const pt2c_plan_gpu_kernel *kernel = &plan->gpu_kernels[step->kernel];
    /* The driver copies the parameter values at launch, so the next step may reuse
     * arg_values at once. */
    CUresult result =
        cuda->cu->LaunchKernel(cuda->functions[step->kernel], kernel->grid[0], kernel->grid[1],
                               kernel->grid[2], kernel->block[0], kernel->block[1],
                               kernel->block[2], kernel->shared_bytes, stream, cuda->params, NULL);
    if (result != CUDA_SUCCESS) {
      char what[160];
      snprintf(what, sizeof(what), "launching kernel '%s' (step %u) failed",
               pt2c_plan_string(plan, kernel->name), s);
      return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE, what);
    }
  }
  return PT2C_OK;
}

/* The graph captured on the current buffer addresses, or -1. */
static int find_graph(const pt2c_model *model) {
  const struct pt2c_cuda_model *cuda = model->cuda;
  uint32_t num_buffers = model->plan.header->num_buffers;
  for (uint32_t i = 0; i < cuda->num_graphs; ++i)
    if (memcmp(cuda->graph_buffers + (size_t)i * num_buffers, cuda->buffer_address,
               num_buffers * sizeof(CUdeviceptr)) == 0)
      return (int)i;
  return -1;
}

/* Captures the steps, on the model's own stream, into a new executable graph: a graph
 * of its own while fewer than kCudaGraphsPerModel are taken, else in place of the one
 * captured longest ago. Sets *index to it. */
static pt2c_status capture_graph(pt2c_model *model, int *index) {
  struct pt2c_cuda_model *cuda = model->cuda;
  const pt2c_cuda_driver *cu = cuda->cu;
  CUresult result =
      cu->StreamBeginCapture(cuda->capture_stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cu, result, PT2C_ERROR_DEVICE, "starting a CUDA graph capture failed");
  pt2c_status status = launch_steps(model, cuda->capture_stream, 1);
  /* The capture always ends, also after a failed launch, so the stream is usable again. */
  CUgraph graph = NULL;
  result = cu->StreamEndCapture(cuda->capture_stream, &graph);
  if (status == PT2C_OK && result != CUDA_SUCCESS)
    status = pt2c_cuda_fail(cu, result, PT2C_ERROR_DEVICE, "capturing the CUDA graph failed");
  CUgraphExec exec = NULL;
  if (status == PT2C_OK) {
    result = cu->GraphInstantiateWithFlags(&exec, graph, 0);
    if (result != CUDA_SUCCESS)
      status = pt2c_cuda_fail(cu, result, pt2c_cuda_status(result),
                              "instantiating the CUDA graph failed");
  }
  if (graph != NULL)
    cu->GraphDestroy(graph); /* the executable graph is a copy */
  if (status != PT2C_OK)
    return status;
  uint32_t slot = cuda->num_graphs;
  if (slot == kCudaGraphsPerModel) {
    slot = cuda->next_replaced;
    cuda->next_replaced = (slot + 1) % kCudaGraphsPerModel;
    cu->GraphExecDestroy(cuda->graphs[slot]);
  } else {
    cuda->num_graphs++;
  }
  cuda->graphs[slot] = exec;
  uint32_t num_buffers = model->plan.header->num_buffers;
  memcpy(cuda->graph_buffers + (size_t)slot * num_buffers, cuda->buffer_address,
         num_buffers * sizeof(CUdeviceptr));
  *index = (int)slot;
  return PT2C_OK;
}

/* Queues every step on `stream`: one launch of the graph captured on these buffer
 * addresses, captured now if there is none. */
static pt2c_status run_steps(pt2c_model *model, CUstream stream) {
  struct pt2c_cuda_model *cuda = model->cuda;
  int with_cudnn = cuda->conv_library->served(cuda->convs) > 0;
  if (!cuda->use_graph || (with_cudnn && !cuda->warmed_up)) {
    cuda->warmed_up = 1;
    return launch_steps(model, stream, 0);
  }
  int index = find_graph(model);
  if (index < 0) {
    pt2c_status status = capture_graph(model, &index);
    if (status != PT2C_OK && with_cudnn) {
      cuda->use_graph = 0; /* see warmed_up */
      return launch_steps(model, stream, 0);
    }
    if (status != PT2C_OK)
      return status;
  }
  CUresult result = cuda->cu->GraphLaunch(cuda->graphs[index], stream);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE, "launching the CUDA graph failed");
  return PT2C_OK;
}

/* Guards read one element of a device buffer each, after the kernels have finished. */
static pt2c_status check_guards(pt2c_model *model, CUstream stream) {
  struct pt2c_cuda_model *cuda = model->cuda;
  const pt2c_plan *plan = &model->plan;
  if (plan->header->num_guards == 0)
    return PT2C_OK;
  CUresult result = cuda->cu->StreamSynchronize(stream);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE,
                          "running the model on the GPU failed");
  for (uint32_t i = 0; i < plan->header->num_guards; ++i) {
    const pt2c_plan_guard *guard = &plan->guards[i];
    uint64_t element[1] = {0}; /* at most 8 bytes, suitably aligned for any dtype */
    size_t size = pt2c_dtype_element_size((pt2c_dtype)guard->dtype);
    result = cuda->cu->MemcpyDtoH(element, cuda->buffer_address[guard->buffer], size);
    if (result != CUDA_SUCCESS)
      return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE,
                            "reading a guard value from the GPU failed");
    pt2c_status status = pt2c_check_guard_value(plan, i, element);
    if (status != PT2C_OK)
      return status;
  }
  return PT2C_OK;
}

pt2c_status pt2c_cuda_run(pt2c_model *model, const pt2c_tensor *inputs, pt2c_tensor *outputs,
                          const int64_t *sym_values, int host_memory, CUstream stream) {
  struct pt2c_cuda_model *cuda = model->cuda;
  CUresult result = cuda->cu->CtxPushCurrent(cuda->context);
  if (result != CUDA_SUCCESS)
    return pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE, "cannot make the context current");
  int staged =
      host_memory || cuda->device_staged || !caller_tensors_aligned(model, inputs, outputs);
  bind_tensors(model, inputs, outputs, staged);
  if (!staged && cuda->use_graph && cuda->num_graphs == kCudaGraphsPerModel &&
      find_graph(model) < 0) {
    cuda->device_staged = staged = 1;
    bind_tensors(model, inputs, outputs, 1);
  }
  int device_staged = staged && !host_memory;
  pt2c_status status = host_memory ? copy_inputs_in(model, inputs) : PT2C_OK;
  if (status == PT2C_OK && device_staged)
    status = copy_device_tensors(model, inputs, outputs, /*to_staging=*/1, stream);
  if (status == PT2C_OK)
    status = copy_symbols_in(model, sym_values, host_memory ? NULL : stream);
  if (status == PT2C_OK)
    status = run_steps(model, host_memory ? NULL : stream);
  if (status == PT2C_OK && device_staged)
    status = copy_device_tensors(model, inputs, outputs, /*to_staging=*/0, stream);
  if (status == PT2C_OK && host_memory)
    status = copy_outputs_out(model, outputs);
  if (status == PT2C_OK && host_memory)
    status = copy_written_inputs_out(model, inputs);
  if (status == PT2C_OK)
    status = check_guards(model, host_memory ? NULL : stream);
  /* A host-memory run is synchronous: report a failure of the last kernels here too. */
  if (status == PT2C_OK && host_memory) {
    result = cuda->cu->StreamSynchronize(NULL);
    if (result != CUDA_SUCCESS)
      status = pt2c_cuda_fail(cuda->cu, result, PT2C_ERROR_DEVICE,
                              "running the model on the GPU failed");
  }
  CUcontext popped;
  cuda->cu->CtxPopCurrent(&popped);
  return status;
}
