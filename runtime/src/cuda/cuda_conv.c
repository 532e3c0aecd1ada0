/* Convolution steps through cuDNN (see cuda_conv.h). Every tensor is a packed NCHW (or
 * NCW, NCDHW) tensor of the plan's dtype, or a packed NHWC one where
 * cuda_conv_layout.h chose channels-last; 1-d convolutions run as 2-d ones of height 1,
 * since cuDNN's descriptors take 4 or 5 dims. */
#include "cuda_conv.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dtype.h"
#include "../error.h"
#include "conv_problem.h"
#include "cuda_conv_layout.h"
#include "cuda_library.h"
#include "cuda_timing.h"
#include "cudnn_api.h"

/* The most workspace one algorithm may take (cuDNN's fastest algorithms for a ResNet
 * layer need a few MiB; FFT ones that want more are rarely faster). */
enum { kMaxWorkspaceBytes = 64 << 20, kAlignment = 16 };

#define ENTRY(member, name) {offsetof(cudnn_api, member), name}
static const pt2c_cuda_symbol kSymbols[] = {
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
    ENTRY(TransformTensor, "cudnnTransformTensor"),
};
#undef ENTRY

/* cuDNN 8 or newer: older ones' perf records and math types differ. */
static int usable(const void *api) { return ((const cudnn_api *)api)->GetVersion() >= 8000; }

static cudnn_api g_api;
static pt2c_cuda_library g_library = {
    .env = "PT2C_LIBCUDNN",
    .sonames = {"libcudnn.so.9"},
    .symbols = kSymbols,
    .num_symbols = sizeof(kSymbols) / sizeof(kSymbols[0]),
    .usable = usable,
    .api = &g_api,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

/* One convolution's descriptors; `served` is 0 when its fallback steps run instead.
 * A channels-last convolution (`nhwc`) computes on NHWC x, z and y and a KRSC filter
 * (`filter`, a copy made at create). It is one either because the plan says so (its
 * record's layout: the plan's kernels read and write those buffers channels-last, and so
 * does its fallback) or because the runtime chose it for an NCHW record (`chosen`). Then
 * an operand whose buffer is NCHW (`x_nchw`, ...) is transposed through scratch memory
 * around the call (descriptors `x_nchw_desc`, `y_nchw_desc`), and it has no fallback: its
 * buffers may hold NHWC bytes our kernels do not read. */
typedef struct conv_entry {
  int served;
  int algo, math;  /* cuDNN's algorithm and math type, as prepare() picked them */
  float search_ms; /* the search's time for them (PT2C_CUDNN_VERBOSE prints it) */
  float graph_ms;  /* their time in a graph; negative when not timed (a single candidate) */
  int nhwc, chosen, x_nchw, z_nchw, y_nchw;
  cudnnTensorDescriptor_t x, y, bias, x_nchw_desc, y_nchw_desc;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  CUdeviceptr filter;
} conv_entry;

typedef struct pt2c_cuda_convs {
  int shared;           /* a context's: descriptors, filters and relu are the parent's */
  const cudnn_api *api; /* NULL: no convolution is served */
  cudnnHandle_t handle;
  cudnnActivationDescriptor_t relu;
  uint32_t count, served;
  const pt2c_plan_conv *records;
  conv_entry *entries;
  CUdeviceptr workspace;
  size_t workspace_size;
  /* Channels-last copies of NCHW operands (one convolution at a time): x at `scratch`,
   * z or y at `scratch + scratch_x_bytes` (a multiple of kAlignment). */
  CUdeviceptr scratch;
  uint64_t scratch_x_bytes, scratch_y_bytes;
} pt2c_cuda_convs;

static int data_type(uint32_t dtype) {
  return dtype == PT2C_F16    ? CUDNN_DATA_HALF
         : dtype == PT2C_BF16 ? CUDNN_DATA_BFLOAT16
                              : CUDNN_DATA_FLOAT;
}

/* A packed tensor descriptor of `dims` (the problem's rank), NCHW or (`nhwc`)
 * channels-last. */
static int make_tensor(const cudnn_api *api, cudnnTensorDescriptor_t *out, const pt2c_plan_conv *c,
                       const pt2c_conv_problem *p, const int *dims, int nhwc) {
  int strides[PT2C_CONV_MAX_RANK];
  pt2c_conv_packed_strides(dims, p->rank, nhwc, strides);
  if (api->CreateTensorDescriptor(out) != CUDNN_STATUS_SUCCESS) {
    *out = NULL;
    return 0;
  }
  return api->SetTensorNdDescriptor(*out, data_type(c->dtype), p->rank, dims, strides) ==
         CUDNN_STATUS_SUCCESS;
}

static int make_descriptors(const cudnn_api *api, const pt2c_plan_conv *c, int math,
                            conv_entry *e) {
  pt2c_conv_problem p;
  if (!pt2c_conv_problem_make(c, &p))
    return 0;
  if (!make_tensor(api, &e->x, c, &p, p.x, e->nhwc) ||
      !make_tensor(api, &e->y, c, &p, p.y, e->nhwc) ||
      (c->epilogue != PT2C_CONV_EPILOGUE_NONE && !make_tensor(api, &e->bias, c, &p, p.bias, 0)) ||
      (e->x_nchw && !make_tensor(api, &e->x_nchw_desc, c, &p, p.x, 0)) ||
      ((e->y_nchw || e->z_nchw) && !make_tensor(api, &e->y_nchw_desc, c, &p, p.y, 0)))
    return 0;
  if (api->CreateFilterDescriptor(&e->w) != CUDNN_STATUS_SUCCESS) {
    e->w = NULL;
    return 0;
  }
  int format = e->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  if (api->SetFilterNdDescriptor(e->w, data_type(c->dtype), format, p.rank, p.w) !=
      CUDNN_STATUS_SUCCESS)
    return 0;
  if (api->CreateConvolutionDescriptor(&e->conv) != CUDNN_STATUS_SUCCESS) {
    e->conv = NULL;
    return 0;
  }
  /* f16 and bf16 accumulate in f32, as torch's convolutions do. */
  return api->SetConvolutionNdDescriptor(e->conv, p.spatial, p.padding, p.stride, p.dilation,
                                         CUDNN_CROSS_CORRELATION,
                                         CUDNN_DATA_FLOAT) == CUDNN_STATUS_SUCCESS &&
         api->SetConvolutionGroupCount(e->conv, p.groups) == CUDNN_STATUS_SUCCESS &&
         api->SetConvolutionMathType(e->conv, math) == CUDNN_STATUS_SUCCESS;
}

/* The device pointers one convolution call reads and writes. */
typedef struct conv_operands {
  const void *x, *w, *bias, *z;
  void *y, *workspace;
  size_t workspace_size;
} conv_operands;

/* Queues the convolution itself on NCHW or NHWC pointers as the descriptors say. */
static cudnnStatus_t convolve(const pt2c_cuda_convs *convs, const pt2c_plan_conv *c,
                              const conv_entry *e, const conv_operands *o, const char **what) {
  const cudnn_api *api = convs->api;
  const void *x = o->x, *w = o->w, *bias = o->bias, *z = o->z;
  void *y = o->y, *workspace = o->workspace;
  size_t workspace_size = o->workspace_size;
  /* The scaling factors are f32 for f32, f16 and bf16 data. */
  const float one = 1.0f, zero = 0.0f;
  *what = "cudnnConvolutionForward";
  switch ((pt2c_conv_epilogue)c->epilogue) {
  case PT2C_CONV_EPILOGUE_NONE:
  case PT2C_CONV_EPILOGUE_BIAS: {
    cudnnStatus_t status =
        api->ConvolutionForward(convs->handle, &one, e->x, x, e->w, w, e->conv, e->algo, workspace,
                                workspace_size, &zero, e->y, y);
    if (status != CUDNN_STATUS_SUCCESS || c->epilogue == PT2C_CONV_EPILOGUE_NONE)
      return status;
    *what = "cudnnAddTensor";
    return api->AddTensor(convs->handle, &one, e->bias, bias, &one, e->y, y);
  }
  case PT2C_CONV_EPILOGUE_BIAS_RELU:
  case PT2C_CONV_EPILOGUE_BIAS_ADD_RELU:
    /* y = relu(conv + alpha2 * z + bias); without a residual z is y itself, unread
     * since alpha2 is 0. */
    *what = "cudnnConvolutionBiasActivationForward";
    return api->ConvolutionBiasActivationForward(
        convs->handle, &one, e->x, x, e->w, w, e->conv, e->algo, workspace, workspace_size,
        z != NULL ? &one : &zero, e->y, z != NULL ? z : y, e->bias, bias, convs->relu, e->y, y);
  }
  return CUDNN_STATUS_SUCCESS;
}

/* How many times cudnnFind measures every algorithm; each candidate counts with its best
 * time. The first search's timings include loading each candidate's kernels (CUDA loads
 * modules lazily), and any search can be slowed throughout by something else on the GPU:
 * on an H100, one resnet18 fp16 create in eight measured 0.60 ms as the best time of a
 * convolution that other searches put at 0.09, picked a kernel without tensor cores, and
 * ran 4x slower.
 * A disturbance only adds time, so the minimum over searches is the stable estimate. */
enum { kSearches = 3 };

/* One algorithm and math type the searches returned: its best time over them and, once
 * timed, its time in a graph (negative when that failed). */
typedef struct candidate {
  cudnnConvolutionFwdAlgoPerf_t perf;
  int preferred;
  float graph_ms;
} candidate;

/* Records search result `r` in `list` (count entries): a new candidate, or a better time
 * for one found before. */
static void keep_best(candidate *list, int *count, const cudnnConvolutionFwdAlgoPerf_t *r,
                      int preferred) {
  for (int i = 0; i < *count; ++i)
    if (list[i].perf.algo == r->algo && list[i].perf.mathType == r->mathType) {
      if (r->time < list[i].perf.time)
        list[i].perf.time = r->time;
      return;
    }
  list[*count].perf = *r;
  list[*count].preferred = preferred;
  list[*count].graph_ms = -1;
  ++*count;
}

/* Whether search result `r` may be taken for a convolution set up with math type `math`:
 * with FMA math (f32 without TF32) only FMA algorithms, as torch does when TF32 is off. */
static int may_take(const cudnnConvolutionFwdAlgoPerf_t *r, int math) {
  if (r->status != CUDNN_STATUS_SUCCESS || r->memory > kMaxWorkspaceBytes)
    return 0;
  return math != CUDNN_FMA_MATH || r->mathType == CUDNN_FMA_MATH;
}

/* Whether the search's timing of `r` can be trusted against the others'. With tensor-op
 * math (f16, bf16) only tensor-op algorithms count while there are any: cudnnFind times
 * small convolutions mostly by its own overhead (0.03 to 0.12 ms for each of resnet18's,
 * whose kernels run in 4 to 20 us), so a generic kernel could win the search and then take
 * 17 to 80 us in the model (H100, cuDNN 9.19). A depthwise convolution (one input channel
 * per group) has no product for tensor cores to take: there the times decide alone
 * (EfficientNet-B0 fp16 on an H200: its 16 depthwise convolutions took 203 us per run on
 * the tensor-op pick, where torch's cuDNN runs them in 73). */
static int preferred(const cudnnConvolutionFwdAlgoPerf_t *r, int math, const pt2c_plan_conv *c) {
  return math != CUDNN_TENSOR_OP_MATH || c->in_channels == c->groups ||
         (r->mathType != CUDNN_DEFAULT_MATH && r->mathType != CUDNN_FMA_MATH);
}

/* Sorts `list` best first: preferred() ones first, each class by its search time. */
static void sort_candidates(candidate *list, int count) {
  for (int i = 1; i < count; ++i) {
    candidate moved = list[i];
    int j = i;
    for (; j > 0; --j) {
      const candidate *before = &list[j - 1];
      int ahead = moved.preferred > before->preferred ||
                  (moved.preferred == before->preferred && moved.perf.time < before->perf.time);
      if (!ahead)
        break;
      list[j] = list[j - 1];
    }
    list[j] = moved;
  }
}

/* The bytes of `count` elements of c's dtype, rounded up to kAlignment. */
static uint64_t aligned_bytes(const pt2c_plan_conv *c, uint64_t count) {
  uint64_t bytes = count * pt2c_dtype_element_size((pt2c_dtype)c->dtype);
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

/* The elements of convolution c's filter. */
static uint64_t filter_elements(const pt2c_plan_conv *c) {
  uint64_t count = c->out_channels * (c->in_channels / c->groups);
  for (uint32_t d = 0; d < c->spatial_rank; ++d)
    count *= c->kernel[d];
  return count;
}

/* Bytes of a [batch, channels, sizes...] tensor of c's dtype, rounded up to kAlignment
 * (the scratch regions follow each other). */
static uint64_t tensor_bytes(const pt2c_plan_conv *c, uint64_t channels, const uint64_t *sizes) {
  uint64_t count = c->batch * channels;
  for (uint32_t d = 0; d < c->spatial_rank; ++d)
    count *= sizes[d];
  return aligned_bytes(c, count);
}

/* One convolution call as prepare() times it. */
typedef struct timed_call {
  const pt2c_cuda_convs *convs;
  const pt2c_plan_conv *c;
  const conv_entry *e;
  conv_operands operands;
} timed_call;

static int enqueue_call(void *data, CUstream stream) {
  const timed_call *t = data;
  const char *what;
  return t->convs->api->SetStream(t->convs->handle, stream) == CUDNN_STATUS_SUCCESS &&
         convolve(t->convs, t->c, t->e, &t->operands, &what) == CUDNN_STATUS_SUCCESS;
}

/* Calls per graph when timing a candidate. */
enum { kTimedCalls = 4 };

/* Times the first `count` candidates in a graph, as the model runs them, on zeroed
 * operands of their own (e's descriptors, its math type and algorithm set in turn);
 * returns the fastest one's index, or -1 when none could be timed. */
static int time_candidates(const pt2c_cuda_driver *cu, const pt2c_cuda_convs *convs,
                           const pt2c_plan_conv *c, conv_entry *e, candidate *list, int count) {
  pt2c_conv_args a = pt2c_conv_arg_positions(c);
  uint64_t x_bytes = tensor_bytes(c, c->in_channels, c->input),
           y_bytes = tensor_bytes(c, c->out_channels, c->output),
           w_bytes = aligned_bytes(c, filter_elements(c)),
           bias_bytes = a.bias >= 0 ? aligned_bytes(c, c->out_channels) : 0,
           z_bytes = a.z >= 0 ? y_bytes : 0, workspace = 0;
  for (int i = 0; i < count; ++i)
    if (list[i].perf.memory > workspace)
      workspace = list[i].perf.memory;
  uint64_t total = x_bytes + y_bytes + w_bytes + bias_bytes + z_bytes + workspace;
  CUdeviceptr base = 0;
  if (cu->MemAlloc(&base, (size_t)total) != CUDA_SUCCESS)
    return -1;
  int pick = -1;
  if (cu->MemsetD8(base, 0, (size_t)total) == CUDA_SUCCESS) {
    CUdeviceptr at = base;
    timed_call call = {convs, c, e, {0}};
    call.operands.x = (const void *)(uintptr_t)at;
    call.operands.w = (const void *)(uintptr_t)(at += x_bytes);
    call.operands.y = (void *)(uintptr_t)(at += w_bytes);
    at += y_bytes;
    call.operands.bias = bias_bytes > 0 ? (const void *)(uintptr_t)at : NULL;
    at += bias_bytes;
    call.operands.z = z_bytes > 0 ? (const void *)(uintptr_t)at : NULL;
    at += z_bytes;
    call.operands.workspace = workspace > 0 ? (void *)(uintptr_t)at : NULL;
    call.operands.workspace_size = (size_t)workspace;
    for (int i = 0; i < count; ++i) {
      e->algo = list[i].perf.algo;
      float ms = 0;
      if (convs->api->SetConvolutionMathType(e->conv, list[i].perf.mathType) ==
              CUDNN_STATUS_SUCCESS &&
          pt2c_cuda_time_calls(cu, enqueue_call, &call, kTimedCalls, &ms)) {
        list[i].graph_ms = ms;
        if (pick < 0 || ms < list[pick].graph_ms)
          pick = i;
      }
    }
    /* Later searches run on the handle's own stream; the timing stream is gone. */
    convs->api->SetStream(convs->handle, NULL);
  }
  cu->MemFree(base);
  return pick;
}

/* How prepare() picks: `cu` times candidates in a graph unless `timed` is 0; `verbose`
 * prints each candidate's times. */
typedef struct pick_options {
  const pt2c_cuda_driver *cu;
  int timed, verbose;
} pick_options;

/* Sets up convolution `c` and picks its algorithm; leaves e->served 0 when cuDNN has none.
 * cudnnFind runs every algorithm on memory of its own (so this takes a few ms per
 * convolution, once per model) and the candidates are those that may_take() accepts, with
 * their best time over kSearches searches: the preferred() ones when there are any. Their
 * times in a graph decide (time_candidates); the search's times only where that failed. */
static void prepare(pt2c_cuda_convs *convs, const pt2c_plan_conv *c, int math, conv_entry *e,
                    const pick_options *options) {
  const cudnn_api *api = convs->api;
  if (!make_descriptors(api, c, math, e))
    return;
  cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  /* Each search returns at most one entry per algorithm and math type. */
  candidate list[kSearches * CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int count = 0;
  for (int search = 0; search < kSearches; ++search) {
    int returned = 0;
    if (api->FindConvolutionForwardAlgorithm(convs->handle, e->x, e->w, e->conv, e->y,
                                             CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned,
                                             results) != CUDNN_STATUS_SUCCESS)
      return;
    for (int i = 0; i < returned && i < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++i) {
      const cudnnConvolutionFwdAlgoPerf_t *r = &results[i];
      if (may_take(r, math))
        keep_best(list, &count, r, preferred(r, math, c));
    }
  }
  if (count == 0)
    return;
  sort_candidates(list, count);
  int timed = 1;
  while (timed < count && list[timed].preferred == list[0].preferred)
    ++timed;
  int chosen =
      timed > 1 && options->timed ? time_candidates(options->cu, convs, c, e, list, timed) : -1;
  const candidate *pick = &list[chosen >= 0 ? chosen : 0];
  for (int i = 0; options->verbose && i < count; ++i)
    fprintf(stderr,
            "pt2c:   candidate algorithm %d, math %d: %.4f ms in the search, %.4f ms "
            "in a graph%s\n",
            list[i].perf.algo, list[i].perf.mathType, list[i].perf.time, list[i].graph_ms,
            &list[i] == pick ? " (picked)" : "");
  /* cuDNN picks kernels by algorithm and math type together. */
  if (api->SetConvolutionMathType(e->conv, pick->perf.mathType) != CUDNN_STATUS_SUCCESS)
    return;
  e->algo = pick->perf.algo;
  e->math = pick->perf.mathType;
  e->search_ms = pick->perf.time;
  e->graph_ms = pick->graph_ms;
  e->served = 1;
  if (pick->perf.memory > convs->workspace_size)
    convs->workspace_size = pick->perf.memory;
}

static void destroy_descriptors(const cudnn_api *api, conv_entry *e) {
  cudnnTensorDescriptor_t *tensors[] = {&e->x, &e->y, &e->bias, &e->x_nchw_desc, &e->y_nchw_desc};
  for (size_t i = 0; i < sizeof(tensors) / sizeof(tensors[0]); ++i) {
    if (*tensors[i])
      api->DestroyTensorDescriptor(*tensors[i]);
    *tensors[i] = NULL;
  }
  if (e->w)
    api->DestroyFilterDescriptor(e->w);
  if (e->conv)
    api->DestroyConvolutionDescriptor(e->conv);
  e->w = NULL;
  e->conv = NULL;
}

/* Whether convolution `c` (step `step`) should compute channels-last:
 * PT2C_CUDNN_NHWC=0 never, =1 always, else for f16 and bf16 (tensor-core kernels; f32
 * with FMA math has fast NCHW kernels). Also for an image's 3 input channels, where cuDNN
 * has only generic kernels either way: on an H100, ViT-B/16's patch embedding was 4%
 * faster end to end channels-last, resnet18's first convolution as fast. Only 2-d
 * convolutions with a weight as the filter (transposed once at create). */
static int filter_is_weight(const pt2c_plan *plan, uint32_t step, const pt2c_plan_conv *c) {
  int w = pt2c_conv_arg_positions(c).w;
  return plan->buffers[pt2c_conv_buffer(plan, step, w)].kind == PT2C_BUFFER_WEIGHT;
}

static int wants_nhwc(const pt2c_plan *plan, uint32_t step, const pt2c_plan_conv *c) {
  const char *setting = getenv("PT2C_CUDNN_NHWC");
  int forced = setting != NULL && strcmp(setting, "1") == 0;
  if ((setting != NULL && strcmp(setting, "0") == 0) || c->spatial_rank != 2 ||
      c->layout != PT2C_CONV_LAYOUT_NCHW || (!forced && c->dtype == PT2C_F32))
    return 0;
  return filter_is_weight(plan, step, c);
}

/* Whether `sizes` (the spatial sizes of a convolution's input or output) are all 1. */
static int single_pixel(const uint64_t *sizes, uint32_t rank) {
  for (uint32_t d = 0; d < rank; ++d)
    if (sizes[d] != 1)
      return 0;
  return 1;
}

/* Picks descriptors and algorithms for every convolution: channels-last for `wanted`
 * ones, with `nhwc` (per buffer) telling which of their operands are stored NHWC, and for
 * channels-last records (served only with their filter a weight, which is copied to KRSC
 * order). Returns 0 when a wanted convolution found no algorithm (it has no fallback). */
static int prepare_all(const pt2c_cuda_driver *cu, pt2c_cuda_convs *convs, const pt2c_plan *plan,
                       const uint32_t *step_of, const uint8_t *wanted, const uint8_t *nhwc) {
  int tf32 = pt2c_cuda_env_is("PT2C_CUDA_TF32", "1"),
      verbose = pt2c_cuda_env_is("PT2C_CUDNN_VERBOSE", "1");
  pick_options options = {cu, !pt2c_cuda_env_is("PT2C_CUDNN_TIMING", "0"), verbose};
  convs->served = 0;
  convs->workspace_size = 0;
  convs->scratch_x_bytes = convs->scratch_y_bytes = 0;
  for (uint32_t i = 0; i < convs->count; ++i) {
    const pt2c_plan_conv *c = &plan->convs[i];
    conv_entry *e = &convs->entries[i];
    pt2c_conv_args a = pt2c_conv_arg_positions(c);
    destroy_descriptors(convs->api, e);
    e->served = 0;
    e->graph_ms = -1;
    int planned = c->layout == PT2C_CONV_LAYOUT_CHANNELS_LAST;
    e->nhwc = wanted[i] || planned;
    e->chosen = wanted[i];
    /* A tensor of one pixel has the same bytes either way: nothing to transpose (each
     * squeeze-excitation block's two 1x1 convolutions on its pooled [N, C, 1, 1]). */
    int x_pixel = single_pixel(c->input, c->spatial_rank),
        y_pixel = single_pixel(c->output, c->spatial_rank);
    e->x_nchw = e->chosen && !x_pixel && !nhwc[pt2c_conv_buffer(plan, step_of[i], a.x)];
    e->z_nchw = e->chosen && !y_pixel && a.z >= 0 && !nhwc[pt2c_conv_buffer(plan, step_of[i], a.z)];
    e->y_nchw = e->chosen && !y_pixel && !nhwc[pt2c_conv_buffer(plan, step_of[i], a.y)];
    int math = c->dtype != PT2C_F32 ? CUDNN_TENSOR_OP_MATH
               : tf32               ? CUDNN_DEFAULT_MATH
                                    : CUDNN_FMA_MATH;
    if (!planned || filter_is_weight(plan, step_of[i], c))
      prepare(convs, c, math, e, &options);
    convs->served += e->served;
    if (verbose)
      fprintf(stderr,
              "pt2c: cuDNN convolution %u: %s%s%s%s, %s (algorithm %d, math %d, %.4f ms "
              "in the search, %.4f ms in a graph)\n",
              i, e->nhwc ? "NHWC" : "NCHW", e->x_nchw ? ", x from NCHW" : "",
              e->z_nchw ? ", z from NCHW" : "", e->y_nchw ? ", y to NCHW" : "",
              e->served ? "served" : "not served", e->algo, e->math, e->search_ms, e->graph_ms);
    if (!e->chosen)
      continue;
    if (!e->served)
      return 0;
    uint64_t x_bytes = tensor_bytes(c, c->in_channels, c->input),
             y_bytes = tensor_bytes(c, c->out_channels, c->output);
    if (e->x_nchw && x_bytes > convs->scratch_x_bytes)
      convs->scratch_x_bytes = x_bytes;
    if ((e->y_nchw || e->z_nchw) && y_bytes > convs->scratch_y_bytes)
      convs->scratch_y_bytes = y_bytes;
  }
  return 1;
}

/* The KRSC copy of convolution c's KCRS filter (a weight: `host` is its bytes), on the
 * GPU. */
static pt2c_status upload_nhwc_filter(const pt2c_cuda_driver *cu, const pt2c_plan_conv *c,
                                      const unsigned char *host, CUdeviceptr *out) {
  size_t element = pt2c_dtype_element_size((pt2c_dtype)c->dtype);
  size_t k = c->out_channels, channels = c->in_channels / c->groups, taps = 1;
  for (uint32_t d = 0; d < c->spatial_rank; ++d)
    taps *= c->kernel[d];
  size_t nbytes = k * channels * taps * element;
  unsigned char *krsc = malloc(nbytes > 0 ? nbytes : 1);
  if (krsc == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a filter's NHWC copy");
  for (size_t o = 0; o < k; ++o)
    for (size_t ch = 0; ch < channels; ++ch)
      for (size_t t = 0; t < taps; ++t)
        memcpy(krsc + ((o * taps + t) * channels + ch) * element,
               host + ((o * channels + ch) * taps + t) * element, element);
  CUresult result = cu->MemAlloc(out, nbytes);
  if (result == CUDA_SUCCESS)
    result = cu->MemcpyHtoD(*out, krsc, nbytes);
  free(krsc);
  if (result == CUDA_SUCCESS)
    return PT2C_OK;
  return pt2c_cuda_fail(cu, result, pt2c_cuda_status(result),
                        "could not copy a convolution filter to the GPU in NHWC order");
}

/* Channels-last where it pays (wants_nhwc, cuda_conv_layout.h), else NCHW everywhere; then
 * the filters of the channels-last convolutions. */
static pt2c_status choose_layouts_and_prepare(const pt2c_cuda_driver *cu, pt2c_cuda_convs *convs,
                                              const pt2c_plan *plan,
                                              const unsigned char *host_weights) {
  uint32_t count = convs->count, num_buffers = plan->header->num_buffers;
  uint32_t *step_of = calloc(count, sizeof(uint32_t));
  uint8_t *wanted = calloc(count, 1);
  uint8_t *nhwc = calloc(num_buffers > 0 ? num_buffers : 1, 1);
  if (step_of == NULL || wanted == NULL || nhwc == NULL) {
    free(step_of), free(wanted), free(nhwc);
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the convolution layouts");
  }
  pt2c_conv_steps(plan, step_of);
  for (uint32_t i = 0; i < count; ++i)
    wanted[i] = (uint8_t)wants_nhwc(plan, step_of[i], &plan->convs[i]);
  pt2c_conv_choose_layouts(plan, step_of, wanted, nhwc);
  if (!prepare_all(cu, convs, plan, step_of, wanted, nhwc)) {
    memset(wanted, 0, count);
    memset(nhwc, 0, num_buffers);
    prepare_all(cu, convs, plan, step_of, wanted, nhwc);
  }
  uint64_t scratch = convs->scratch_x_bytes + convs->scratch_y_bytes;
  pt2c_status status = PT2C_OK;
  if (scratch > 0) {
    CUresult result = cu->MemAlloc(&convs->scratch, (size_t)scratch);
    if (result != CUDA_SUCCESS) {
      convs->scratch = 0;
      status = pt2c_cuda_fail(cu, result, pt2c_cuda_status(result),
                              "could not allocate the convolutions' NHWC scratch memory");
    }
  }
  for (uint32_t i = 0; i < count && status == PT2C_OK; ++i) {
    conv_entry *e = &convs->entries[i];
    if (!e->nhwc || !e->served)
      continue;
    int position = pt2c_conv_arg_positions(&plan->convs[i]).w;
    const pt2c_plan_buffer *w = &plan->buffers[pt2c_conv_buffer(plan, step_of[i], position)];
    status = upload_nhwc_filter(cu, &plan->convs[i], host_weights + w->offset, &e->filter);
  }
  free(step_of), free(wanted), free(nhwc);
  return status;
}

/* An empty table of `count` convolutions. */
static pt2c_status allocate_table(uint32_t count, pt2c_cuda_convs **out) {
  void *entries;
  pt2c_cuda_convs *convs =
      pt2c_cuda_table_alloc(sizeof(*convs), count, sizeof(conv_entry), &entries);
  if (convs == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the convolution table");
  convs->entries = entries;
  convs->count = count;
  *out = convs;
  return PT2C_OK;
}

static pt2c_status create_table(const pt2c_cuda_driver *cu, const pt2c_plan *plan,
                                const unsigned char *host_weights, pt2c_cuda_convs **out) {
  *out = NULL;
  uint32_t count = plan->header->num_convs;
  for (uint32_t i = 0; i < count; ++i)
    if (plan->convs[i].epilogue == PT2C_CONV_EPILOGUE_BIAS_SILU)
      return pt2c_fail(PT2C_ERROR_UNSUPPORTED,
                       "convolution %u has a SiLU epilogue, which only CPU plans use", i);
  pt2c_status status = allocate_table(count, out);
  if (status != PT2C_OK)
    return status;
  pt2c_cuda_convs *convs = *out;
  convs->records = plan->convs;
  if (count == 0 || pt2c_cuda_env_is("PT2C_CUDNN", "0"))
    return PT2C_OK;
  convs->api = pt2c_cuda_library_load(&g_library);
  const cudnn_api *api = convs->api;
  if (api != NULL && api->Create(&convs->handle) != CUDNN_STATUS_SUCCESS)
    convs->handle = NULL;
  if (api != NULL && convs->handle != NULL &&
      api->CreateActivationDescriptor(&convs->relu) != CUDNN_STATUS_SUCCESS)
    convs->relu = NULL;
  /* torch's fused convolution + ReLU sets the same (the ceiling is unused by RELU). */
  if (convs->relu == NULL ||
      api->SetActivationDescriptor(convs->relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN,
                                   DBL_MAX) != CUDNN_STATUS_SUCCESS) {
    /* e.g. a cuDNN too new for the driver: our kernels still run */
    if (convs->relu != NULL)
      api->DestroyActivationDescriptor(convs->relu);
    if (convs->handle != NULL)
      api->Destroy(convs->handle);
    convs->relu = NULL;
    convs->handle = NULL;
    convs->api = NULL;
    return PT2C_OK;
  }
  status = choose_layouts_and_prepare(cu, convs, plan, host_weights);
  if (status != PT2C_OK)
    return status;
  return pt2c_cuda_workspace_alloc(cu, convs->workspace_size, &convs->workspace,
                                   "could not allocate the cuDNN workspace on the GPU");
}

static pt2c_status share_table(const pt2c_cuda_driver *cu, const pt2c_cuda_convs *parent,
                               pt2c_cuda_convs **out) {
  *out = NULL;
  uint32_t count = parent->count;
  pt2c_status status = allocate_table(count, out);
  if (status != PT2C_OK)
    return status;
  pt2c_cuda_convs *convs = *out;
  convs->shared = 1;
  convs->records = parent->records;
  if (parent->api == NULL)
    return PT2C_OK;
  if (count > 0)
    memcpy(convs->entries, parent->entries, sizeof(conv_entry) * count);
  convs->served = parent->served;
  convs->relu = parent->relu;
  if (parent->api->Create(&convs->handle) != CUDNN_STATUS_SUCCESS)
    return pt2c_fail(PT2C_ERROR_DEVICE, "cuDNN could not make a handle for a context");
  convs->api = parent->api;
  convs->workspace_size = parent->workspace_size;
  convs->scratch_x_bytes = parent->scratch_x_bytes;
  convs->scratch_y_bytes = parent->scratch_y_bytes;
  uint64_t scratch = convs->scratch_x_bytes + convs->scratch_y_bytes;
  CUresult result = CUDA_SUCCESS;
  if (convs->workspace_size > 0)
    result = cu->MemAlloc(&convs->workspace, convs->workspace_size);
  if (result == CUDA_SUCCESS && scratch > 0)
    result = cu->MemAlloc(&convs->scratch, (size_t)scratch);
  if (result == CUDA_SUCCESS)
    return PT2C_OK;
  return pt2c_cuda_fail(cu, result, pt2c_cuda_status(result),
                        "could not allocate a context's cuDNN workspace or scratch on the GPU");
}

static pt2c_status convs_create(const pt2c_cuda_driver *cu, const pt2c_plan *plan,
                                const unsigned char *host_weights, void **out) {
  pt2c_cuda_convs *convs = NULL;
  pt2c_status status = create_table(cu, plan, host_weights, &convs);
  *out = convs;
  return status;
}

static pt2c_status convs_share(const pt2c_cuda_driver *cu, const void *parent, void **out) {
  pt2c_cuda_convs *convs = NULL;
  pt2c_status status = share_table(cu, parent, &convs);
  *out = convs;
  return status;
}

static void convs_destroy(const pt2c_cuda_driver *cu, void *table) {
  pt2c_cuda_convs *convs = table;
  if (convs == NULL)
    return;
  const cudnn_api *api = convs->api;
  for (uint32_t i = 0; !convs->shared && i < convs->count; ++i) {
    if (api != NULL)
      destroy_descriptors(api, &convs->entries[i]);
    if (convs->entries[i].filter)
      cu->MemFree(convs->entries[i].filter);
  }
  if (api != NULL && convs->relu != NULL && !convs->shared)
    api->DestroyActivationDescriptor(convs->relu);
  if (api != NULL && convs->handle != NULL)
    api->Destroy(convs->handle);
  if (convs->workspace)
    cu->MemFree(convs->workspace);
  if (convs->scratch)
    cu->MemFree(convs->scratch);
  free(convs->entries);
  free(convs);
}

static uint32_t convs_served(const void *table) {
  const pt2c_cuda_convs *convs = table;
  return convs != NULL && convs->api != NULL ? convs->served : 0;
}

static int conv_usable(const void *table, uint32_t index, const CUdeviceptr *buffers,
                       uint32_t num_buffers) {
  const pt2c_cuda_convs *convs = table;
  if (convs == NULL || convs->api == NULL || !convs->entries[index].served)
    return 0;
  /* Convolutions the runtime made channels-last must run (no fallback);
   * cudnnTransformTensor takes any address, and what the convolution reads directly is
   * arena or scratch memory. */
  return convs->entries[index].chosen || pt2c_cuda_all_aligned(buffers, num_buffers, kAlignment);
}

static int conv_refuse(void *table, uint32_t index) {
  pt2c_cuda_convs *convs = table;
  if (convs == NULL || !convs->entries[index].served)
    return 1;
  if (convs->entries[index].chosen)
    return 0;
  convs->entries[index].served = 0;
  --convs->served;
  return 1;
}

static pt2c_status conv_run(const void *table, uint32_t index, const CUdeviceptr *buffers,
                            CUstream stream) {
  const pt2c_cuda_convs *convs = table;
  const pt2c_plan_conv *c = &convs->records[index];
  const conv_entry *e = &convs->entries[index];
  const cudnn_api *api = convs->api;
  pt2c_conv_args a = pt2c_conv_arg_positions(c);
  const void *x = (const void *)(uintptr_t)buffers[a.x];
  const void *w = (const void *)(uintptr_t)(e->filter ? e->filter : buffers[a.w]);
  const void *bias = a.bias >= 0 ? (const void *)(uintptr_t)buffers[a.bias] : NULL;
  const void *z = a.z >= 0 ? (const void *)(uintptr_t)buffers[a.z] : NULL;
  void *y = (void *)(uintptr_t)buffers[a.y];
  const float one = 1.0f, zero = 0.0f;
  cudnnStatus_t status = api->SetStream(convs->handle, stream);
  if (status != CUDNN_STATUS_SUCCESS)
    return pt2c_fail(PT2C_ERROR_DEVICE, "cudnnSetStream failed (status %d)", status);
  /* NCHW operands of a channels-last convolution go through scratch: x into its own, y
   * (and z, read and then overwritten in place) into the other. */
  void *scratch_x = (void *)(uintptr_t)convs->scratch;
  void *scratch_y = (void *)(uintptr_t)(convs->scratch + convs->scratch_x_bytes);
  const char *what = "cudnnTransformTensor";
  void *out = e->y_nchw ? scratch_y : y;
  if (e->x_nchw) {
    status = api->TransformTensor(convs->handle, &one, e->x_nchw_desc, x, &zero, e->x, scratch_x);
    x = scratch_x;
  }
  if (status == CUDNN_STATUS_SUCCESS && e->z_nchw) {
    status = api->TransformTensor(convs->handle, &one, e->y_nchw_desc, z, &zero, e->y, out);
    z = out;
  }
  if (status == CUDNN_STATUS_SUCCESS) {
    conv_operands o = {
        x, w, bias, z, out, (void *)(uintptr_t)convs->workspace, convs->workspace_size};
    status = convolve(convs, c, e, &o, &what);
  }
  if (status == CUDNN_STATUS_SUCCESS && e->y_nchw) {
    what = "cudnnTransformTensor";
    status = api->TransformTensor(convs->handle, &one, e->y, out, &zero, e->y_nchw_desc, y);
  }
  if (status != CUDNN_STATUS_SUCCESS)
    return pt2c_fail(PT2C_ERROR_DEVICE, "%s failed for convolution %u (status %d)", what, index,
                     status);
  return PT2C_OK;
}

const pt2c_conv_library pt2c_cudnn_convs = {
    .create = convs_create,
    .share = convs_share,
    .destroy = convs_destroy,
    .served = convs_served,
    .usable = conv_usable,
    .refuse = conv_refuse,
    .run = conv_run,
};
