/* A stand-in for libcudnn.so.9 (PT2C_LIBCUDNN=libfake_cudnn.so) for the runtime's
 * convolution steps without a GPU: "device memory" is host memory (as in fake_cuda.c), and
 * the convolution calls check the descriptors the runtime set (shapes that agree, packed
 * strides, the workspace the picked algorithm needs) and compute f32 NCHW / NCDHW (or
 * channels-last: any tensor, and the filter in KRSC order; logged as "nhwc")
 * convolutions with groups, strides, padding and dilation, bias, residual and ReLU on the
 * host. They do not compute at once: they queue the work with the fake driver's
 * cuLaunchHostFunc on the handle's stream, so that a CUDA graph capture records it and
 * each graph launch runs it again, as on a GPU.
 *
 * Environment: FAKE_CUDNN_NO_ALGO=1 (cudnnFind finds no algorithm), FAKE_CUDNN_NO_NHWC=1
 * (cudnnFind refuses channels-last tensors and filters), FAKE_CUDNN_NO_FUSED=1
 * (cudnnConvolutionBiasActivationForward refuses every call), FAKE_CUDNN_RUN_MS="t1:t0"
 * (the ms a convolution with algorithm 1 or 0 takes when it runs: the fake driver's clock,
 * which its events read, moves on by that much; 0 without it), FAKE_CUDA_LOG (the
 * fake driver's log, which gets "cudnn find ..." per algorithm search and one line per
 * convolution, bias add or fused convolution when it runs). */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

enum { kSuccess = 0, kBadParam = 2000, kNotSupported = 3000, kExecutionFailed = 5000 };
enum { kMaxDims = 5, kWorkspaceBytes = 1024 };

#define FAKE_CONV_LOG_ENV "FAKE_CUDA_LOG"
#include "fake_conv_common.inc"

typedef struct tensor {
  int type, rank, dims[kMaxDims], strides[kMaxDims];
} tensor;
typedef struct filter {
  int type, format, rank, dims[kMaxDims];
} filter;
typedef struct convolution {
  int spatial, padding[3], stride[3], dilation[3], mode, compute, groups, math;
} convolution;
typedef struct activation {
  int mode, nan;
} activation;
typedef struct handle {
  void *stream;
  struct job *jobs; /* freed with the handle (a captured graph may run them again) */
} handle;

/* One queued call: copies of its descriptors and its pointers. */
typedef struct job {
  struct job *next;
  const char *kind; /* "forward", "add_tensor", "bias_act", "transform" (x to y) */
  tensor x, y, bias;
  filter w;
  convolution conv;
  int algo;
  float alpha, beta;
  const float *px, *pw, *pz, *pbias;
  float *py;
} job;

API size_t cudnnGetVersion(void) { return 91900; }
API int cudnnCreate(handle **out) {
  *out = calloc(1, sizeof(handle));
  return kSuccess;
}
API int cudnnDestroy(handle *h) {
  for (job *j = h->jobs; j != NULL;) {
    job *next = j->next;
    free(j);
    j = next;
  }
  free(h);
  return kSuccess;
}
API int cudnnSetStream(handle *h, void *stream) {
  h->stream = stream;
  return kSuccess;
}

FAKE_CREATE_DESTROY(tensor, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor)
FAKE_CREATE_DESTROY(filter, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor)
FAKE_CREATE_DESTROY(convolution, cudnnCreateConvolutionDescriptor,
                    cudnnDestroyConvolutionDescriptor)
FAKE_CREATE_DESTROY(activation, cudnnCreateActivationDescriptor, cudnnDestroyActivationDescriptor)
#undef FAKE_CREATE_DESTROY

API int cudnnSetTensorNdDescriptor(tensor *t, int type, int rank, const int dims[],
                                   const int strides[]) {
  if (rank < 4 || rank > kMaxDims)
    return kBadParam;
  t->type = type;
  t->rank = rank;
  memcpy(t->dims, dims, sizeof(int) * rank);
  memcpy(t->strides, strides, sizeof(int) * rank);
  return kSuccess;
}
API int cudnnSetFilterNdDescriptor(filter *f, int type, int format, int rank, const int dims[]) {
  if (rank < 4 || rank > kMaxDims)
    return kBadParam;
  f->type = type;
  f->format = format;
  f->rank = rank;
  memcpy(f->dims, dims, sizeof(int) * rank);
  return kSuccess;
}
API int cudnnSetConvolutionNdDescriptor(convolution *c, int length, const int padding[],
                                        const int stride[], const int dilation[], int mode,
                                        int compute) {
  if (length < 2 || length > 3)
    return kBadParam;
  c->spatial = length;
  for (int d = 0; d < length; ++d) {
    if (padding[d] < 0 || stride[d] < 1 || dilation[d] < 1)
      return kBadParam;
    c->padding[d] = padding[d], c->stride[d] = stride[d], c->dilation[d] = dilation[d];
  }
  c->mode = mode;
  c->compute = compute;
  c->groups = 1;
  return kSuccess;
}
API int cudnnSetConvolutionGroupCount(convolution *c, int groups) {
  if (groups < 1)
    return kBadParam;
  c->groups = groups;
  return kSuccess;
}
API int cudnnSetConvolutionMathType(convolution *c, int math) {
  c->math = math;
  return kSuccess;
}
API int cudnnSetActivationDescriptor(activation *a, int mode, int nan, double coefficient) {
  a->mode = mode;
  a->nan = nan;
  return kSuccess;
}

/* Packed NCHW, or packed channels-last ([n, spatial..., c] order). */
static int packed(const tensor *t) {
  int nchw = 1, nhwc = t->strides[1] == 1, stride = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    nchw &= t->strides[d] == stride;
    stride *= t->dims[d];
  }
  stride = t->dims[1];
  for (int d = t->rank - 1; d >= 2; --d) {
    nhwc &= t->strides[d] == stride;
    stride *= t->dims[d];
  }
  return nchw || (nhwc && t->strides[0] == stride);
}

/* What a real cuDNN checks: f32 here (the fake computes f32 only), packed NCHW or NHWC
 * tensors and filter, and the output shape of the convolution. */
static int shapes_ok(const tensor *x, const filter *w, const convolution *c, const tensor *y) {
  if (x->type != 0 || w->type != 0 || y->type != 0 || (w->format != 0 && w->format != 1) ||
      c->mode != 1 || c->compute != 0 || x->rank != w->rank || y->rank != x->rank ||
      c->spatial != x->rank - 2 || !packed(x) || !packed(y))
    return 0;
  return fake_conv_shapes_agree(x->dims, w->dims, y->dims, x->rank, c->padding, c->stride,
                                c->dilation, c->groups);
}

/* "x=1,3,16,16 w=8,3,3,3 pad=1,1 stride=1,1 dilation=1,1 groups=1 math=3" */
static void describe(char *out, size_t size, const tensor *x, const filter *w,
                     const convolution *c) {
  char xs[48], ws[48], pad[24], stride[24], dilation[24];
  log_dims(xs, sizeof(xs), x->dims, x->rank);
  log_dims(ws, sizeof(ws), w->dims, w->rank);
  log_dims(pad, sizeof(pad), c->padding, c->spatial);
  log_dims(stride, sizeof(stride), c->stride, c->spatial);
  log_dims(dilation, sizeof(dilation), c->dilation, c->spatial);
  int at = snprintf(out, size, "x=%s w=%s pad=%s stride=%s dilation=%s groups=%d math=%d", xs, ws,
                    pad, stride, dilation, c->groups, c->math);
  if (w->format == 1 && at > 0 && (size_t)at < size)
    snprintf(out + at, size - (size_t)at, " nhwc");
}

typedef struct {
  int algo, status;
  float time;
  size_t memory;
  int determinism, math, reserved[3];
} perf;

API int cudnnFindConvolutionForwardAlgorithm(handle *h, const tensor *x, const filter *w,
                                             const convolution *c, const tensor *y, int requested,
                                             int *returned, perf *results) {
  if (!shapes_ok(x, w, c, y) || requested < 2)
    return kBadParam;
  const char *no_nhwc = getenv("FAKE_CUDNN_NO_NHWC");
  if (no_nhwc != NULL && strcmp(no_nhwc, "1") == 0 &&
      (w->format == 1 || x->strides[1] == 1 || y->strides[1] == 1))
    return kNotSupported;
  char text[256];
  describe(text, sizeof(text), x, w, c);
  log_line("cudnn find %s\n", text);
  const char *no_algo = getenv("FAKE_CUDNN_NO_ALGO");
  int status = no_algo != NULL && strcmp(no_algo, "1") == 0 ? kNotSupported : kSuccess;
  /* The fastest first: algorithm 1 (implicit precomputed GEMM) with a workspace, then
   * algorithm 0 without; both in the descriptor's math type, as cuDNN 8+ reports.
   * FAKE_CUDNN_TIMES="t1:t0,t1:t0,..." gives the two times of each search in turn (a
   * search timed while the GPU was busy), counting over the process's searches. */
  float t1 = 0.1f, t0 = 0.2f;
  const char *times = getenv("FAKE_CUDNN_TIMES");
  if (times != NULL && times[0] != '\0') {
    static int search;
    int entries = 1;
    for (const char *p = times; *p; ++p)
      entries += *p == ',';
    const char *entry = times;
    for (int i = search++ % entries; i > 0; --i)
      entry = strchr(entry, ',') + 1;
    if (sscanf(entry, "%f:%f", &t1, &t0) != 2)
      return kBadParam;
  }
  memset(results, 0, 2 * sizeof(perf));
  perf one = {1, status, t1, kWorkspaceBytes, 1, c->math, {0}};
  perf zero = {0, status, t0, 0, 1, c->math, {0}};
  results[0] = t1 <= t0 ? one : zero;
  results[1] = t1 <= t0 ? zero : one;
  *returned = 2;
  return kSuccess;
}

static float convolve(const job *j, const int *yi) {
  return fake_conv_value(j->px, j->x.dims, j->x.strides, j->x.rank, j->pw, j->w.dims,
                         j->w.format == 1, j->conv.padding, j->conv.stride, j->conv.dilation,
                         j->conv.groups, yi);
}

/* y = x elementwise between two layouts of the same dims. */
static void transform(const job *j) {
  size_t count = 1;
  for (int d = 0; d < j->y.rank; ++d)
    count *= (size_t)j->y.dims[d];
  for (size_t i = 0; i < count; ++i) {
    size_t rest = i, from = 0, to = 0;
    for (int d = j->y.rank - 1; d >= 0; --d) {
      size_t index = rest % (size_t)j->y.dims[d];
      rest /= (size_t)j->y.dims[d];
      from += index * (size_t)j->x.strides[d];
      to += index * (size_t)j->y.strides[d];
    }
    j->py[to] = j->alpha * j->px[from];
  }
  log_line("cudnn transform %s\n",
           j->y.strides[1] == 1 && j->y.dims[1] > 1 ? "to_nhwc" : "to_nchw");
}

/* The fake driver's function `name` (PT2C_LIBCUDA, already loaded), or NULL. */
static void *driver_function(const char *name) {
  const char *driver = getenv("PT2C_LIBCUDA");
  void *library = driver != NULL ? dlopen(driver, RTLD_NOW | RTLD_NOLOAD) : NULL;
  if (library == NULL)
    return NULL;
  void *function = dlsym(library, name);
  dlclose(library);
  return function;
}

/* Moves the fake GPU's clock on by the time FAKE_CUDNN_RUN_MS gives algorithm `algo`. */
static void take_time(int algo) {
  const char *times = getenv("FAKE_CUDNN_RUN_MS");
  float t1 = 0, t0 = 0;
  void (*advance)(double) = (void (*)(double))driver_function("fake_gpu_advance");
  if (times != NULL && sscanf(times, "%f:%f", &t1, &t0) == 2 && advance != NULL)
    advance(algo == 1 ? t1 : t0);
}

static void run_job(void *data) {
  const job *j = data;
  const tensor *y = &j->y;
  if (strcmp(j->kind, "transform") == 0) {
    transform(j);
    return;
  }
  if (strcmp(j->kind, "add_tensor") != 0)
    take_time(j->algo);
  size_t count = 1;
  for (int d = 0; d < y->rank; ++d)
    count *= (size_t)y->dims[d];
  for (size_t i = 0; i < count; ++i) {
    int yi[kMaxDims] = {0};
    size_t rest = i;
    for (int d = y->rank - 1; d >= 0; --d) {
      yi[d] = (int)(rest % (size_t)y->dims[d]);
      rest /= (size_t)y->dims[d];
    }
    float bias = j->pbias != NULL ? j->pbias[yi[1]] : 0.0f;
    size_t at_y = 0; /* y's (and z's: the same descriptor) element for index yi */
    for (int d = 0; d < y->rank; ++d)
      at_y += (size_t)yi[d] * (size_t)y->strides[d];
    if (strcmp(j->kind, "add_tensor") == 0) {
      j->py[at_y] = j->alpha * bias + j->beta * j->py[at_y];
      continue;
    }
    float value = j->alpha * convolve(j, yi);
    if (strcmp(j->kind, "bias_act") == 0) {
      value += (j->beta != 0 ? j->beta * j->pz[at_y] : 0.0f) + bias; /* z unread when 0 */
      if (value < 0)
        value = 0;
    }
    j->py[at_y] = value;
  }
  char text[256];
  describe(text, sizeof(text), &j->x, &j->w, &j->conv);
  if (strcmp(j->kind, "add_tensor") == 0)
    log_line("cudnn add_tensor\n");
  else
    log_line("cudnn %s algo=%d %s%s\n", j->kind, j->algo, text,
             strcmp(j->kind, "bias_act") == 0 ? (j->beta != 0 ? " residual" : " relu") : "");
}

/* Queues `j` on the handle's stream through the fake driver. */
static int enqueue(handle *h, const job *from) {
  int (*launch)(void *, void (*)(void *), void *) =
      (int (*)(void *, void (*)(void *), void *))driver_function("cuLaunchHostFunc");
  job *j = malloc(sizeof(job));
  if (launch == NULL || j == NULL)
    return free(j), kExecutionFailed;
  *j = *from;
  j->next = h->jobs;
  h->jobs = j;
  return launch(h->stream, run_job, j) == 0 ? kSuccess : kExecutionFailed;
}

/* bias [1, K, 1...] for y. */
static int bias_ok(const tensor *bias, const tensor *y) {
  if (bias->rank != y->rank || bias->dims[1] != y->dims[1] || bias->type != 0 || !packed(bias))
    return 0;
  for (int d = 0; d < bias->rank; ++d)
    if (d != 1 && bias->dims[d] != 1)
      return 0;
  return 1;
}

API int cudnnConvolutionForward(handle *h, const float *alpha, const tensor *xd, const float *x,
                                const filter *wd, const float *w, const convolution *c, int algo,
                                void *workspace, size_t workspace_bytes, const float *beta,
                                const tensor *yd, float *y) {
  if (!shapes_ok(xd, wd, c, yd) || (algo != 0 && algo != 1) || *beta != 0.0f)
    return kBadParam;
  if (algo == 1 && (workspace == NULL || workspace_bytes < kWorkspaceBytes))
    return kBadParam;
  job j = {NULL, "forward", *xd, *yd, {0}, *wd, *c, algo, *alpha, 0, x, w, NULL, NULL, y};
  return enqueue(h, &j);
}

API int cudnnAddTensor(handle *h, const float *alpha, const tensor *bd, const float *bias,
                       const float *beta, const tensor *yd, float *y) {
  if (!bias_ok(bd, yd))
    return kBadParam;
  job j = {NULL,   "add_tensor", {0},  *yd,  *bd,  {0},  {0}, 0,
           *alpha, *beta,        NULL, NULL, NULL, bias, y};
  return enqueue(h, &j);
}

API int cudnnConvolutionBiasActivationForward(handle *h, const float *alpha1, const tensor *xd,
                                              const float *x, const filter *wd, const float *w,
                                              const convolution *c, int algo, void *workspace,
                                              size_t workspace_bytes, const float *alpha2,
                                              const tensor *zd, const float *z, const tensor *bd,
                                              const float *bias, const activation *act,
                                              const tensor *yd, float *y) {
  const char *refuse = getenv("FAKE_CUDNN_NO_FUSED");
  if (refuse != NULL && strcmp(refuse, "1") == 0)
    return kNotSupported;
  if (!shapes_ok(xd, wd, c, yd) || !bias_ok(bd, yd) || act->mode != 1 ||
      memcmp(zd, yd, sizeof(tensor)) != 0 || (algo != 0 && algo != 1))
    return kBadParam;
  if (algo == 1 && (workspace == NULL || workspace_bytes < kWorkspaceBytes))
    return kBadParam;
  job j = {NULL, "bias_act", *xd, *yd, *bd, *wd, *c, algo, *alpha1, *alpha2, x, w, z, bias, y};
  return enqueue(h, &j);
}

API int cudnnTransformTensor(handle *h, const float *alpha, const tensor *xd, const float *x,
                             const float *beta, const tensor *yd, float *y) {
  if (xd->rank != yd->rank || memcmp(xd->dims, yd->dims, sizeof(int) * (size_t)xd->rank) != 0 ||
      !packed(xd) || !packed(yd) || *beta != 0.0f || xd->type != 0 || yd->type != 0)
    return kBadParam;
  job j = {NULL, "transform", *xd, *yd, {0}, {0}, {0}, 0, *alpha, 0, x, NULL, NULL, NULL, y};
  return enqueue(h, &j);
}
