/* Convolution steps of ROCm plans through MIOpen (see miopen_conv.h). */
#include "miopen_conv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/conv_problem.h"
#include "../cuda/cuda_conv_layout.h"
#include "../cuda/cuda_library.h"
#include "../error.h"
#include "miopen_api.h"

/* The most workspace one solution may take (as for cuDNN), how many solutions to look at,
 * and the alignment every operand must have (what hipMalloc gives, and more than any
 * MIOpen kernel's vector loads assume). */
enum { kMaxWorkspaceBytes = 64 << 20, kMaxSolutions = 16, kAlignment = 16 };

#define ENTRY(member, name) {offsetof(miopen_api, member), name}
static const pt2c_cuda_symbol kSymbols[] = {
    ENTRY(Create, "miopenCreate"),
    ENTRY(Destroy, "miopenDestroy"),
    ENTRY(SetStream, "miopenSetStream"),
    ENTRY(CreateTensorDescriptor, "miopenCreateTensorDescriptor"),
    ENTRY(SetTensorDescriptor, "miopenSetTensorDescriptor"),
    ENTRY(DestroyTensorDescriptor, "miopenDestroyTensorDescriptor"),
    ENTRY(CreateConvolutionDescriptor, "miopenCreateConvolutionDescriptor"),
    ENTRY(InitConvolutionNdDescriptor, "miopenInitConvolutionNdDescriptor"),
    ENTRY(SetConvolutionGroupCount, "miopenSetConvolutionGroupCount"),
    ENTRY(DestroyConvolutionDescriptor, "miopenDestroyConvolutionDescriptor"),
    ENTRY(CreateActivationDescriptor, "miopenCreateActivationDescriptor"),
    ENTRY(SetActivationDescriptor, "miopenSetActivationDescriptor"),
    ENTRY(DestroyActivationDescriptor, "miopenDestroyActivationDescriptor"),
    ENTRY(ConvolutionForwardGetSolutionCount, "miopenConvolutionForwardGetSolutionCount"),
    ENTRY(ConvolutionForwardGetSolution, "miopenConvolutionForwardGetSolution"),
    ENTRY(ConvolutionForwardCompileSolution, "miopenConvolutionForwardCompileSolution"),
    ENTRY(ConvolutionForwardImmediate, "miopenConvolutionForwardImmediate"),
    ENTRY(OpTensor, "miopenOpTensor"),
    ENTRY(ActivationForward, "miopenActivationForward"),
};
#undef ENTRY

static miopen_api g_api;
static pt2c_cuda_library g_library = {
    .env = "PT2C_LIBMIOPEN",
    .sonames = {"libMIOpen.so.1", "libMIOpen.so"},
    .symbols = kSymbols,
    .num_symbols = sizeof(kSymbols) / sizeof(kSymbols[0]),
    .api = &g_api,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

/* One convolution's descriptors and solution; `served` is 0 when its fallback steps run. */
typedef struct conv_entry {
  int served;
  uint64_t solution;
  miopenTensorDescriptor_t x, w, y, bias;
  miopenConvolutionDescriptor_t conv;
} conv_entry;

typedef struct miopen_convs {
  int shared;            /* a context's: descriptors and relu are the parent's */
  const miopen_api *api; /* NULL: no convolution is served */
  miopenHandle_t handle;
  miopenActivationDescriptor_t relu;
  uint32_t count, served;
  const pt2c_plan_conv *records;
  conv_entry *entries;
  CUdeviceptr workspace;
  size_t workspace_size;
} miopen_convs;

static int data_type(uint32_t dtype) {
  return dtype == PT2C_F16 ? miopenHalf : dtype == PT2C_BF16 ? miopenBFloat16 : miopenFloat;
}

static int make_tensor(const miopen_api *api, miopenTensorDescriptor_t *out, int type, int rank,
                       const int *dims) {
  int strides[PT2C_CONV_MAX_RANK];
  pt2c_conv_packed_strides(dims, rank, 0, strides);
  if (api->CreateTensorDescriptor(out) != miopenStatusSuccess) {
    *out = NULL;
    return 0;
  }
  return api->SetTensorDescriptor(*out, type, rank, dims, strides) == miopenStatusSuccess;
}

static int make_descriptors(const miopen_api *api, const pt2c_plan_conv *c, conv_entry *e) {
  pt2c_conv_problem p;
  int type = data_type(c->dtype);
  if (!pt2c_conv_problem_make(c, &p) || !make_tensor(api, &e->x, type, p.rank, p.x) ||
      !make_tensor(api, &e->w, type, p.rank, p.w) || !make_tensor(api, &e->y, type, p.rank, p.y) ||
      (c->epilogue != PT2C_CONV_EPILOGUE_NONE && !make_tensor(api, &e->bias, type, p.rank, p.bias)))
    return 0;
  if (api->CreateConvolutionDescriptor(&e->conv) != miopenStatusSuccess) {
    e->conv = NULL;
    return 0;
  }
  return api->InitConvolutionNdDescriptor(e->conv, p.spatial, p.padding, p.stride, p.dilation,
                                          miopenConvolution) == miopenStatusSuccess &&
         api->SetConvolutionGroupCount(e->conv, p.groups) == miopenStatusSuccess;
}

static void destroy_descriptors(const miopen_api *api, conv_entry *e) {
  miopenTensorDescriptor_t *tensors[] = {&e->x, &e->w, &e->y, &e->bias};
  for (size_t i = 0; i < sizeof(tensors) / sizeof(tensors[0]); ++i)
    if (*tensors[i] != NULL)
      api->DestroyTensorDescriptor(*tensors[i]);
  if (e->conv != NULL)
    api->DestroyConvolutionDescriptor(e->conv);
  memset(e, 0, sizeof(*e));
}

/* Sets up convolution `c` and picks its solution: the first MIOpen lists within the
 * workspace limit that compiles. Leaves e->served 0 when there is none. */
static void prepare(miopen_convs *convs, const pt2c_plan_conv *c, conv_entry *e) {
  const miopen_api *api = convs->api;
  if (!make_descriptors(api, c, e))
    return;
  miopenConvSolution_t solutions[kMaxSolutions];
  size_t count = 0;
  if (api->ConvolutionForwardGetSolution(convs->handle, e->w, e->x, e->conv, e->y, kMaxSolutions,
                                         &count, solutions) != miopenStatusSuccess)
    return;
  for (size_t i = 0; i < count && i < kMaxSolutions && !e->served; ++i) {
    if (solutions[i].workspace_size > kMaxWorkspaceBytes ||
        api->ConvolutionForwardCompileSolution(convs->handle, e->w, e->x, e->conv, e->y,
                                               solutions[i].solution_id) != miopenStatusSuccess)
      continue;
    e->served = 1;
    e->solution = solutions[i].solution_id;
    if (solutions[i].workspace_size > convs->workspace_size)
      convs->workspace_size = solutions[i].workspace_size;
  }
}

/* An empty table of `count` convolutions. */
static pt2c_status allocate_table(uint32_t count, miopen_convs **out) {
  void *entries;
  miopen_convs *convs = pt2c_cuda_table_alloc(sizeof(*convs), count, sizeof(conv_entry), &entries);
  if (convs == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the convolution table");
  convs->entries = entries;
  convs->count = count;
  *out = convs;
  return PT2C_OK;
}

/* The library, a handle and the ReLU descriptor; 0 (with nothing held) when any fails. */
static int open_library(miopen_convs *convs) {
  const miopen_api *api = pt2c_cuda_library_load(&g_library);
  if (api == NULL)
    return 0;
  if (api->Create(&convs->handle) != miopenStatusSuccess) {
    convs->handle = NULL;
    return 0;
  }
  if (api->CreateActivationDescriptor(&convs->relu) == miopenStatusSuccess &&
      api->SetActivationDescriptor(convs->relu, miopenActivationRELU, 0.0, 0.0, 0.0) ==
          miopenStatusSuccess) {
    convs->api = api;
    return 1;
  }
  if (convs->relu != NULL)
    api->DestroyActivationDescriptor(convs->relu);
  api->Destroy(convs->handle);
  convs->relu = NULL;
  convs->handle = NULL;
  return 0;
}

static pt2c_status create_table(const pt2c_cuda_driver *cu, const pt2c_plan *plan,
                                miopen_convs **out) {
  uint32_t count = plan->header->num_convs;
  for (uint32_t i = 0; i < count; ++i) {
    if (plan->convs[i].epilogue == PT2C_CONV_EPILOGUE_BIAS_SILU)
      return pt2c_fail(PT2C_ERROR_UNSUPPORTED,
                       "convolution %u has a SiLU epilogue, which only CPU plans use", i);
    if (plan->convs[i].layout != PT2C_CONV_LAYOUT_NCHW)
      return pt2c_fail(PT2C_ERROR_UNSUPPORTED,
                       "convolution %u is channels-last, which only CUDA plans use", i);
  }
  pt2c_status status = allocate_table(count, out);
  if (status != PT2C_OK)
    return status;
  miopen_convs *convs = *out;
  convs->records = plan->convs;
  if (count == 0 || pt2c_cuda_env_is("PT2C_MIOPEN", "0") || !open_library(convs))
    return PT2C_OK;
  for (uint32_t i = 0; i < count; ++i) {
    prepare(convs, &plan->convs[i], &convs->entries[i]);
    convs->served += (uint32_t)convs->entries[i].served;
  }
  return pt2c_cuda_workspace_alloc(cu, convs->workspace_size, &convs->workspace,
                                   "could not allocate the MIOpen workspace on the GPU");
}

static pt2c_status convs_create(const pt2c_cuda_driver *cu, const pt2c_plan *plan,
                                const unsigned char *host_weights, void **out) {
  miopen_convs *convs = NULL;
  pt2c_status status = create_table(cu, plan, &convs);
  *out = convs;
  return status;
}

static pt2c_status convs_share(const pt2c_cuda_driver *cu, const void *parent_table, void **out) {
  const miopen_convs *parent = parent_table;
  miopen_convs *convs = NULL;
  pt2c_status status = allocate_table(parent->count, &convs);
  *out = convs;
  if (status != PT2C_OK)
    return status;
  convs->shared = 1;
  convs->records = parent->records;
  if (parent->api == NULL)
    return PT2C_OK;
  if (parent->count > 0)
    memcpy(convs->entries, parent->entries, sizeof(conv_entry) * parent->count);
  convs->served = parent->served;
  convs->relu = parent->relu;
  if (parent->api->Create(&convs->handle) != miopenStatusSuccess)
    return pt2c_fail(PT2C_ERROR_DEVICE, "MIOpen could not make a handle for a context");
  convs->api = parent->api;
  convs->workspace_size = parent->workspace_size;
  return pt2c_cuda_workspace_alloc(cu, convs->workspace_size, &convs->workspace,
                                   "could not allocate a context's MIOpen workspace on the GPU");
}

static void convs_destroy(const pt2c_cuda_driver *cu, void *table) {
  miopen_convs *convs = table;
  if (convs == NULL)
    return;
  const miopen_api *api = convs->api;
  for (uint32_t i = 0; api != NULL && !convs->shared && i < convs->count; ++i)
    destroy_descriptors(api, &convs->entries[i]);
  if (api != NULL && convs->relu != NULL && !convs->shared)
    api->DestroyActivationDescriptor(convs->relu);
  if (api != NULL && convs->handle != NULL)
    api->Destroy(convs->handle);
  if (convs->workspace)
    cu->MemFree(convs->workspace);
  free(convs->entries);
  free(convs);
}

static uint32_t convs_served(const void *table) {
  const miopen_convs *convs = table;
  return convs != NULL && convs->api != NULL ? convs->served : 0;
}

static int conv_usable(const void *table, uint32_t index, const CUdeviceptr *buffers,
                       uint32_t num_buffers) {
  const miopen_convs *convs = table;
  return convs != NULL && convs->api != NULL && convs->entries[index].served &&
         pt2c_cuda_all_aligned(buffers, num_buffers, kAlignment);
}

static int conv_refuse(void *table, uint32_t index) {
  miopen_convs *convs = table;
  if (convs != NULL && convs->entries[index].served) {
    convs->entries[index].served = 0;
    --convs->served;
  }
  return 1; /* NCHW everywhere: the fallback steps read the same tensors */
}

/* y = epilogue(convolution): the bias (+ z) added in place, then the ReLU. */
static pt2c_status conv_run(const void *table, uint32_t index, const CUdeviceptr *buffers,
                            CUstream stream) {
  const miopen_convs *convs = table;
  const pt2c_plan_conv *c = &convs->records[index];
  const conv_entry *e = &convs->entries[index];
  const miopen_api *api = convs->api;
  pt2c_conv_args a = pt2c_conv_arg_positions(c);
  const void *x = (const void *)(uintptr_t)buffers[a.x];
  const void *w = (const void *)(uintptr_t)buffers[a.w];
  const void *bias = a.bias >= 0 ? (const void *)(uintptr_t)buffers[a.bias] : NULL;
  const void *z = a.z >= 0 ? (const void *)(uintptr_t)buffers[a.z] : NULL;
  void *y = (void *)(uintptr_t)buffers[a.y];
  /* The scaling factors are f32 for f32, f16 and bf16 data. */
  const float one = 1.0f, zero = 0.0f;
  const char *what = "miopenSetStream";
  miopenStatus_t status = api->SetStream(convs->handle, stream);
  if (status == miopenStatusSuccess) {
    what = "miopenConvolutionForwardImmediate";
    status = api->ConvolutionForwardImmediate(convs->handle, e->w, w, e->x, x, e->conv, e->y, y,
                                              (void *)(uintptr_t)convs->workspace,
                                              convs->workspace_size, e->solution);
  }
  if (status == miopenStatusSuccess && bias != NULL) {
    /* y = y + bias, or with a residual y = (z + bias) + y. */
    what = "miopenOpTensor";
    status = api->OpTensor(convs->handle, miopenTensorOpAdd, &one, e->y, z != NULL ? z : y, &one,
                           e->bias, bias, z != NULL ? &one : &zero, e->y, y);
  }
  int relu = c->epilogue == PT2C_CONV_EPILOGUE_BIAS_RELU ||
             c->epilogue == PT2C_CONV_EPILOGUE_BIAS_ADD_RELU;
  if (status == miopenStatusSuccess && relu) {
    what = "miopenActivationForward";
    status = api->ActivationForward(convs->handle, convs->relu, &one, e->y, y, &zero, e->y, y);
  }
  if (status != miopenStatusSuccess)
    return pt2c_fail(PT2C_ERROR_DEVICE, "%s failed for convolution %u (status %d)", what, index,
                     status);
  return PT2C_OK;
}

const pt2c_conv_library pt2c_miopen_convs = {
    .create = convs_create,
    .share = convs_share,
    .destroy = convs_destroy,
    .served = convs_served,
    .usable = conv_usable,
    .refuse = conv_refuse,
    .run = conv_run,
};
