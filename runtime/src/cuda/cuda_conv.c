/* Convolution steps through cuDNN (see cuda_conv.h). Every tensor is a packed NCHW (or
 * NCW, NCDHW) tensor of the plan's dtype; 1-d convolutions run as 2-d ones of height 1,
 * since cuDNN's descriptors take 4 or 5 dims. */
#include "cuda_conv.h"

#include <dlfcn.h>
#include <float.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "cudnn_api.h"

/* The most workspace one algorithm may take (cuDNN's fastest algorithms for a ResNet
 * layer need a few MiB; FFT ones that want more are rarely faster). */
enum { kMaxWorkspaceBytes = 64 << 20, kAlignment = 16, kMaxDims = 2 + PT2C_CONV_MAX_SPATIAL };

#define ENTRY(member, name) {offsetof(cudnn_api, member), name}
static const struct {
  size_t offset;
  const char* name;
} kSymbols[] = {
    ENTRY(GetVersion, "cudnnGetVersion"),
    ENTRY(Create, "cudnnCreate"),
    ENTRY(Destroy, "cudnnDestroy"),
    ENTRY(SetStream, "cudnnSetStream"),
    ENTRY(CreateTensorDescriptor, "cudnnCreateTensorDescriptor"),
    ENTRY(SetTensorNdDescriptor, "cudnnSetTensorNdDescriptor"),
    ENTRY(DestroyTensorDescriptor, "cudnnDestroyTensorDescriptor"),
    ENTRY(CreateFilterDescriptor, "cudnnCreateFilterDescriptor"),
    ENTRY(SetFilterNdDescriptor, "cudnnSetFilterNdDescriptor"),
    ENTRY(DestroyFilterDescriptor, "cudnnDestroyFilterDescriptor"),
    ENTRY(CreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor"),
    ENTRY(SetConvolutionNdDescriptor, "cudnnSetConvolutionNdDescriptor"),
    ENTRY(SetConvolutionGroupCount, "cudnnSetConvolutionGroupCount"),
    ENTRY(SetConvolutionMathType, "cudnnSetConvolutionMathType"),
    ENTRY(DestroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor"),
    ENTRY(CreateActivationDescriptor, "cudnnCreateActivationDescriptor"),
    ENTRY(SetActivationDescriptor, "cudnnSetActivationDescriptor"),
    ENTRY(DestroyActivationDescriptor, "cudnnDestroyActivationDescriptor"),
    ENTRY(FindConvolutionForwardAlgorithm, "cudnnFindConvolutionForwardAlgorithm"),
    ENTRY(ConvolutionForward, "cudnnConvolutionForward"),
    ENTRY(ConvolutionBiasActivationForward, "cudnnConvolutionBiasActivationForward"),
    ENTRY(AddTensor, "cudnnAddTensor"),
};
#undef ENTRY

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static cudnn_api g_api;
static int g_state; /* 0 not tried, 1 loaded, -1 unavailable (not retried) */

/* The library's table, or NULL when there is none (or it is older than cuDNN 8, whose
 * perf records and math types differ); the handle stays open. */
static const cudnn_api* load_api(void) {
  pthread_mutex_lock(&g_lock);
  if (g_state == 0) {
    const char* name = getenv("PT2C_LIBCUDNN");
    void* handle = dlopen(name != NULL && name[0] != '\0' ? name : "libcudnn.so.9",
                          RTLD_NOW | RTLD_LOCAL);
    cudnn_api api;
    g_state = handle != NULL ? 1 : -1;
    for (size_t i = 0; g_state == 1 && i < sizeof(kSymbols) / sizeof(kSymbols[0]); ++i) {
      void* symbol = dlsym(handle, kSymbols[i].name);
      if (symbol == NULL) g_state = -1;
      else memcpy((char*)&api + kSymbols[i].offset, &symbol, sizeof(symbol));
    }
    if (g_state == 1 && api.GetVersion() < 8000) g_state = -1;
    if (g_state == 1) g_api = api;
    else if (handle != NULL) dlclose(handle);
  }
  pthread_mutex_unlock(&g_lock);
  return g_state == 1 ? &g_api : NULL;
}

/* One convolution's descriptors; `served` is 0 when its fallback steps run instead. */
typedef struct conv_entry {
  int served;
  int algo;
  cudnnTensorDescriptor_t x, y, bias;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
} conv_entry;

struct pt2c_cuda_convs {
  const cudnn_api* api; /* NULL: no convolution is served */
  cudnnHandle_t handle;
  cudnnActivationDescriptor_t relu;
  uint32_t count, served;
  const pt2c_plan_conv* records;
  conv_entry* entries;
  CUdeviceptr workspace;
  size_t workspace_size;
};

static int env_is(const char* name, const char* value) {
  const char* setting = getenv(name);
  return setting != NULL && strcmp(setting, value) == 0;
}

static int data_type(uint32_t dtype) {
  return dtype == PT2C_F16 ? CUDNN_DATA_HALF : dtype == PT2C_BF16 ? CUDNN_DATA_BFLOAT16
                                                                   : CUDNN_DATA_FLOAT;
}

/* cuDNN's spatial dims for `c`: at least 2 (a 1-d convolution gets a leading height 1). */
static int spatial_dims(const pt2c_plan_conv* c) {
  return c->spatial_rank < 2 ? 2 : (int)c->spatial_rank;
}

/* Entry d of a spatial array as cuDNN sees it (`fill` for the added height). */
static int spatial(const pt2c_plan_conv* c, const uint64_t* values, int d, int fill) {
  int added = spatial_dims(c) - (int)c->spatial_rank;
  return d < added ? fill : (int)values[d - added];
}

/* A packed tensor descriptor of dims [n, channels, sizes...] (sizes NULL: all 1). */
static int make_tensor(const cudnn_api* api, cudnnTensorDescriptor_t* out, const pt2c_plan_conv* c,
                       int n, int channels, const uint64_t* sizes) {
  int dims[kMaxDims], strides[kMaxDims], rank = 2 + spatial_dims(c);
  dims[0] = n;
  dims[1] = channels;
  for (int d = 0; d < spatial_dims(c); ++d) dims[2 + d] = sizes ? spatial(c, sizes, d, 1) : 1;
  strides[rank - 1] = 1;
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  if (api->CreateTensorDescriptor(out) != CUDNN_STATUS_SUCCESS) {
    *out = NULL;
    return 0;
  }
  return api->SetTensorNdDescriptor(*out, data_type(c->dtype), rank, dims, strides) ==
         CUDNN_STATUS_SUCCESS;
}

/* Whether every tensor's element count fits cuDNN's int strides (the plan's checks
 * bound each size, not their products). */
static int fits_int(const pt2c_plan_conv* c) {
  uint64_t x = c->batch * c->in_channels, w = c->out_channels * (c->in_channels / c->groups),
           y = c->batch * c->out_channels;
  for (int d = 0; d < PT2C_CONV_MAX_SPATIAL; ++d) {
    if (__builtin_mul_overflow(x, c->input[d], &x) || __builtin_mul_overflow(w, c->kernel[d], &w) ||
        __builtin_mul_overflow(y, c->output[d], &y))
      return 0;
  }
  return x <= INT32_MAX && w <= INT32_MAX && y <= INT32_MAX;
}

static int make_descriptors(const cudnn_api* api, const pt2c_plan_conv* c, int math,
                            conv_entry* e) {
  if (!fits_int(c)) return 0;
  int n = (int)c->batch, channels = (int)c->in_channels, k = (int)c->out_channels;
  int sp = spatial_dims(c), filter[kMaxDims], padding[PT2C_CONV_MAX_SPATIAL],
      stride[PT2C_CONV_MAX_SPATIAL], dilation[PT2C_CONV_MAX_SPATIAL];
  filter[0] = k;
  filter[1] = channels / (int)c->groups;
  for (int d = 0; d < sp; ++d) {
    filter[2 + d] = spatial(c, c->kernel, d, 1);
    padding[d] = spatial(c, c->padding, d, 0);
    stride[d] = spatial(c, c->stride, d, 1);
    dilation[d] = spatial(c, c->dilation, d, 1);
  }
  if (!make_tensor(api, &e->x, c, n, channels, c->input) ||
      !make_tensor(api, &e->y, c, n, k, c->output) ||
      (c->epilogue != PT2C_CONV_EPILOGUE_NONE && !make_tensor(api, &e->bias, c, 1, k, NULL)))
    return 0;
  if (api->CreateFilterDescriptor(&e->w) != CUDNN_STATUS_SUCCESS) {
    e->w = NULL;
    return 0;
  }
  if (api->SetFilterNdDescriptor(e->w, data_type(c->dtype), CUDNN_TENSOR_NCHW, 2 + sp, filter) !=
      CUDNN_STATUS_SUCCESS)
    return 0;
  if (api->CreateConvolutionDescriptor(&e->conv) != CUDNN_STATUS_SUCCESS) {
    e->conv = NULL;
    return 0;
  }
  /* f16 and bf16 accumulate in f32, as torch's convolutions do. */
  return api->SetConvolutionNdDescriptor(e->conv, sp, padding, stride, dilation,
                                         CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT) ==
             CUDNN_STATUS_SUCCESS &&
         api->SetConvolutionGroupCount(e->conv, (int)c->groups) == CUDNN_STATUS_SUCCESS &&
         api->SetConvolutionMathType(e->conv, math) == CUDNN_STATUS_SUCCESS;
}

/* Sets up convolution `c` and picks its algorithm; leaves e->served 0 when cuDNN has none.
 * cudnnFind runs every algorithm once on memory of its own (so this takes a few ms per
 * convolution, once per model) and returns them fastest first. With FMA math (f32
 * without TF32) only FMA algorithms are taken, as torch does when TF32 is off. */
static void prepare(pt2c_cuda_convs* convs, const pt2c_plan_conv* c, int math, conv_entry* e) {
  const cudnn_api* api = convs->api;
  if (!make_descriptors(api, c, math, e)) return;
  cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  if (api->FindConvolutionForwardAlgorithm(convs->handle, e->x, e->w, e->conv, e->y,
                                           CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned,
                                           results) != CUDNN_STATUS_SUCCESS)
    return;
  for (int i = 0; i < returned && i < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++i) {
    const cudnnConvolutionFwdAlgoPerf_t* r = &results[i];
    if (r->status != CUDNN_STATUS_SUCCESS || r->memory > kMaxWorkspaceBytes ||
        (math == CUDNN_FMA_MATH && r->mathType != CUDNN_FMA_MATH))
      continue;
    /* cuDNN picks kernels by algorithm and math type together. */
    if (api->SetConvolutionMathType(e->conv, r->mathType) != CUDNN_STATUS_SUCCESS) return;
    e->algo = r->algo;
    e->served = 1;
    if (r->memory > convs->workspace_size) convs->workspace_size = r->memory;
    return;
  }
}

pt2c_status pt2c_cuda_convs_create(const pt2c_cuda_driver* cu, const pt2c_plan* plan,
                                   pt2c_cuda_convs** out) {
  *out = NULL;
  uint32_t count = plan->header->num_convs;
  pt2c_cuda_convs* convs = calloc(1, sizeof(*convs));
  if (convs != NULL) convs->entries = calloc(count > 0 ? count : 1, sizeof(conv_entry));
  if (convs == NULL || convs->entries == NULL) {
    free(convs);
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the convolution table");
  }
  *out = convs;
  convs->count = count;
  convs->records = plan->convs;
  if (count == 0 || env_is("PT2C_CUDNN", "0")) return PT2C_OK;
  convs->api = load_api();
  const cudnn_api* api = convs->api;
  if (api != NULL && api->Create(&convs->handle) != CUDNN_STATUS_SUCCESS) convs->handle = NULL;
  if (api != NULL && convs->handle != NULL &&
      api->CreateActivationDescriptor(&convs->relu) != CUDNN_STATUS_SUCCESS)
    convs->relu = NULL;
  /* torch's fused convolution + ReLU sets the same (the ceiling is unused by RELU). */
  if (convs->relu == NULL ||
      api->SetActivationDescriptor(convs->relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN,
                                   DBL_MAX) != CUDNN_STATUS_SUCCESS) {
    /* e.g. a cuDNN too new for the driver: our kernels still run */
    if (convs->relu != NULL) api->DestroyActivationDescriptor(convs->relu);
    if (convs->handle != NULL) api->Destroy(convs->handle);
    convs->relu = NULL;
    convs->handle = NULL;
    convs->api = NULL;
    return PT2C_OK;
  }
  int tf32 = env_is("PT2C_CUDA_TF32", "1");
  for (uint32_t i = 0; i < count; ++i) {
    const pt2c_plan_conv* c = &plan->convs[i];
    int math = c->dtype != PT2C_F32 ? CUDNN_TENSOR_OP_MATH : tf32 ? CUDNN_DEFAULT_MATH
                                                                   : CUDNN_FMA_MATH;
    prepare(convs, c, math, &convs->entries[i]);
    convs->served += convs->entries[i].served;
  }
  if (convs->workspace_size == 0) return PT2C_OK;
  CUresult result = cu->MemAlloc(&convs->workspace, convs->workspace_size);
  if (result == CUDA_SUCCESS) return PT2C_OK;
  convs->workspace = 0;
  return pt2c_cuda_fail(cu, result, pt2c_cuda_status(result),
                        "could not allocate the cuDNN workspace on the GPU");
}

void pt2c_cuda_convs_destroy(const pt2c_cuda_driver* cu, pt2c_cuda_convs* convs) {
  if (convs == NULL) return;
  const cudnn_api* api = convs->api;
  for (uint32_t i = 0; api != NULL && i < convs->count; ++i) {
    conv_entry* e = &convs->entries[i];
    if (e->x) api->DestroyTensorDescriptor(e->x);
    if (e->y) api->DestroyTensorDescriptor(e->y);
    if (e->bias) api->DestroyTensorDescriptor(e->bias);
    if (e->w) api->DestroyFilterDescriptor(e->w);
    if (e->conv) api->DestroyConvolutionDescriptor(e->conv);
  }
  if (api != NULL && convs->relu != NULL) api->DestroyActivationDescriptor(convs->relu);
  if (api != NULL && convs->handle != NULL) api->Destroy(convs->handle);
  if (convs->workspace) cu->MemFree(convs->workspace);
  free(convs->entries);
  free(convs);
}

uint32_t pt2c_cuda_convs_served(const pt2c_cuda_convs* convs) {
  return convs != NULL && convs->api != NULL ? convs->served : 0;
}

int pt2c_cuda_conv_usable(const pt2c_cuda_convs* convs, uint32_t index,
                          const CUdeviceptr* buffers, uint32_t num_buffers) {
  if (convs == NULL || convs->api == NULL || !convs->entries[index].served) return 0;
  for (uint32_t i = 0; i < num_buffers; ++i)
    if (buffers[i] % kAlignment != 0) return 0;
  return 1;
}

void pt2c_cuda_conv_refuse(pt2c_cuda_convs* convs, uint32_t index) {
  if (convs == NULL || !convs->entries[index].served) return;
  convs->entries[index].served = 0;
  --convs->served;
}

pt2c_status pt2c_cuda_conv_run(const pt2c_cuda_convs* convs, uint32_t index,
                               const CUdeviceptr* buffers, CUstream stream) {
  const pt2c_plan_conv* c = &convs->records[index];
  const conv_entry* e = &convs->entries[index];
  const cudnn_api* api = convs->api;
  const void* x = (const void*)(uintptr_t)buffers[0];
  const void* w = (const void*)(uintptr_t)buffers[1];
  const void* bias = (const void*)(uintptr_t)buffers[2];
  void* workspace = (void*)(uintptr_t)convs->workspace;
  /* The scaling factors are f32 for f32, f16 and bf16 data. */
  const float one = 1.0f, zero = 0.0f;
  cudnnStatus_t status = api->SetStream(convs->handle, stream);
  if (status != CUDNN_STATUS_SUCCESS)
    return pt2c_fail(PT2C_ERROR_DEVICE, "cudnnSetStream failed (status %d)", status);
  const char* what = "cudnnConvolutionForward";
  switch ((pt2c_conv_epilogue)c->epilogue) {
    case PT2C_CONV_EPILOGUE_NONE:
    case PT2C_CONV_EPILOGUE_BIAS: {
      int has_bias = c->epilogue == PT2C_CONV_EPILOGUE_BIAS;
      void* y = (void*)(uintptr_t)buffers[has_bias ? 3 : 2];
      status = api->ConvolutionForward(convs->handle, &one, e->x, x, e->w, w, e->conv, e->algo,
                                       workspace, convs->workspace_size, &zero, e->y, y);
      if (status == CUDNN_STATUS_SUCCESS && has_bias) {
        what = "cudnnAddTensor";
        status = api->AddTensor(convs->handle, &one, e->bias, bias, &one, e->y, y);
      }
      break;
    }
    case PT2C_CONV_EPILOGUE_BIAS_RELU:
    case PT2C_CONV_EPILOGUE_BIAS_ADD_RELU: {
      /* y = relu(conv + alpha2 * z + bias); without a residual z is y itself, unread
       * since alpha2 is 0. */
      int residual = c->epilogue == PT2C_CONV_EPILOGUE_BIAS_ADD_RELU;
      void* y = (void*)(uintptr_t)buffers[residual ? 4 : 3];
      const void* z = residual ? (const void*)(uintptr_t)buffers[3] : y;
      what = "cudnnConvolutionBiasActivationForward";
      status = api->ConvolutionBiasActivationForward(
          convs->handle, &one, e->x, x, e->w, w, e->conv, e->algo, workspace,
          convs->workspace_size, residual ? &one : &zero, e->y, z, e->bias, bias, convs->relu,
          e->y, y);
      break;
    }
  }
  if (status != CUDNN_STATUS_SUCCESS)
    return pt2c_fail(PT2C_ERROR_DEVICE, "%s failed for convolution %u (status %d)", what, index,
                     status);
  return PT2C_OK;
}
