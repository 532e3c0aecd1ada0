/* A stand-in for libMIOpen.so (PT2C_LIBMIOPEN=libfake_miopen.so) for the convolution steps
 * of ROCm plans without an AMD GPU: "device memory" is the fake HIP's host memory, and the
 * calls check what the runtime set (MIOpen's numbers: miopenFloat 1, miopenConvolution 0,
 * miopenTensorOpAdd 0, miopenActivationRELU 3; the weights descriptor first in the
 * immediate-mode calls; shapes that agree; packed tensors; the solution it listed,
 * compiled before use; its workspace) and compute f32 NCHW / NCDHW convolutions with
 * groups, strides, padding and dilation, the bias or residual add and the ReLU on the host,
 * at the call.
 *
 * Environment: FAKE_MIOPEN_NO_SOLUTION=1 (no solution is listed), FAKE_MIOPEN_FORWARD_ERROR=N
 * (miopenConvolutionForwardImmediate returns N), FAKE_HIP_LOG (the fake HIP's log, which
 * gets "miopen solution ...", "miopen forward ...", "miopen op_tensor ..." and "miopen
 * activation ..." lines). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

enum { kSuccess = 0, kBadParm = 3, kNotImplemented = 6 };
enum { kFloat = 1, kConvolution = 0, kOpAdd = 0, kRelu = 3 };
enum { kMaxDims = 5, kWorkspaceBytes = 1024 };
static const uint64_t kSolutionId = 24301;

#define FAKE_CONV_LOG_ENV "FAKE_HIP_LOG"
#include "fake_conv_common.inc"

typedef struct tensor {
  int type, rank, dims[kMaxDims], strides[kMaxDims];
} tensor;
typedef struct convolution {
  int spatial, padding[3], stride[3], dilation[3], mode, groups;
} convolution;
typedef struct activation {
  int mode;
} activation;
typedef struct handle {
  void *stream;
  int compiled; /* CompileSolution was called for the listed solution */
} handle;
typedef struct {
  float time;
  size_t workspace_size;
  uint64_t solution_id;
  int algorithm;
} solution;

static int g_forwards;
API int fake_miopen_forwards(void) { return g_forwards; }

API int miopenCreate(handle **out) {
  *out = calloc(1, sizeof(handle));
  return kSuccess;
}
API int miopenDestroy(handle *h) {
  free(h);
  return kSuccess;
}
API int miopenSetStream(handle *h, void *stream) {
  h->stream = stream;
  return kSuccess;
}

FAKE_CREATE_DESTROY(tensor, miopenCreateTensorDescriptor, miopenDestroyTensorDescriptor)
FAKE_CREATE_DESTROY(convolution, miopenCreateConvolutionDescriptor,
                    miopenDestroyConvolutionDescriptor)
FAKE_CREATE_DESTROY(activation, miopenCreateActivationDescriptor, miopenDestroyActivationDescriptor)
#undef FAKE_CREATE_DESTROY

API int miopenSetTensorDescriptor(tensor *t, int type, int rank, const int *dims,
                                  const int *strides) {
  if (rank < 4 || rank > kMaxDims || dims == NULL || strides == NULL)
    return kBadParm;
  t->type = type;
  t->rank = rank;
  memcpy(t->dims, dims, sizeof(int) * (size_t)rank);
  memcpy(t->strides, strides, sizeof(int) * (size_t)rank);
  return kSuccess;
}

API int miopenInitConvolutionNdDescriptor(convolution *c, int spatial, const int *padding,
                                          const int *stride, const int *dilation, int mode) {
  if (spatial < 2 || spatial > 3)
    return kBadParm;
  c->spatial = spatial;
  for (int d = 0; d < spatial; ++d) {
    if (padding[d] < 0 || stride[d] < 1 || dilation[d] < 1)
      return kBadParm;
    c->padding[d] = padding[d], c->stride[d] = stride[d], c->dilation[d] = dilation[d];
  }
  c->mode = mode;
  c->groups = 1;
  return kSuccess;
}
API int miopenSetConvolutionGroupCount(convolution *c, int groups) {
  if (groups < 1)
    return kBadParm;
  c->groups = groups;
  return kSuccess;
}
API int miopenSetActivationDescriptor(activation *a, int mode, double alpha, double beta,
                                      double gamma) {
  a->mode = mode;
  return kSuccess;
}

/* Packed NCHW strides. */
static int packed(const tensor *t) {
  int stride = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    if (t->strides[d] != stride)
      return 0;
    stride *= t->dims[d];
  }
  return 1;
}

/* f32 (all the fake computes), packed tensors, a cross-correlation, agreeing shapes. */
static int shapes_ok(const tensor *w, const tensor *x, const convolution *c, const tensor *y) {
  if (x->type != kFloat || w->type != kFloat || y->type != kFloat || c->mode != kConvolution ||
      x->rank != w->rank || y->rank != x->rank || c->spatial != x->rank - 2 || !packed(x) ||
      !packed(w) || !packed(y))
    return 0;
  return fake_conv_shapes_agree(x->dims, w->dims, y->dims, x->rank, c->padding, c->stride,
                                c->dilation, c->groups);
}

/* "x=1,3,16,16 w=8,3,3,3 y=1,8,16,16 pad=1,1 stride=1,1 dilation=1,1 groups=1" */
static void describe(char *out, size_t size, const tensor *x, const tensor *w, const tensor *y,
                     const convolution *c) {
  char xs[48], ws[48], ys[48], pad[24], stride[24], dilation[24];
  log_dims(xs, sizeof(xs), x->dims, x->rank);
  log_dims(ws, sizeof(ws), w->dims, w->rank);
  log_dims(ys, sizeof(ys), y->dims, y->rank);
  log_dims(pad, sizeof(pad), c->padding, c->spatial);
  log_dims(stride, sizeof(stride), c->stride, c->spatial);
  log_dims(dilation, sizeof(dilation), c->dilation, c->spatial);
  snprintf(out, size, "x=%s w=%s y=%s pad=%s stride=%s dilation=%s groups=%d", xs, ws, ys, pad,
           stride, dilation, c->groups);
}

static int no_solution(void) {
  const char *setting = getenv("FAKE_MIOPEN_NO_SOLUTION");
  return setting != NULL && strcmp(setting, "1") == 0;
}

API int miopenConvolutionForwardGetSolutionCount(handle *h, const tensor *w, const tensor *x,
                                                 const convolution *c, const tensor *y,
                                                 size_t *count) {
  if (!shapes_ok(w, x, c, y))
    return kBadParm;
  *count = no_solution() ? 0 : 1;
  return kSuccess;
}

API int miopenConvolutionForwardGetSolution(handle *h, const tensor *w, const tensor *x,
                                            const convolution *c, const tensor *y, size_t max_count,
                                            size_t *count, solution *solutions) {
  if (!shapes_ok(w, x, c, y) || max_count < 1)
    return kBadParm;
  char text[256];
  describe(text, sizeof(text), x, w, y, c);
  log_line("miopen solution %s\n", text);
  *count = no_solution() ? 0 : 1;
  solutions[0] = (solution){0.05f, kWorkspaceBytes, kSolutionId, 1 /* direct */};
  return kSuccess;
}

API int miopenConvolutionForwardCompileSolution(handle *h, const tensor *w, const tensor *x,
                                                const convolution *c, const tensor *y,
                                                uint64_t id) {
  if (!shapes_ok(w, x, c, y) || id != kSolutionId)
    return kBadParm;
  h->compiled = 1;
  return kSuccess;
}

API int miopenConvolutionForwardImmediate(handle *h, const tensor *wd, const float *w,
                                          const tensor *xd, const float *x, const convolution *c,
                                          const tensor *yd, float *y, void *workspace,
                                          size_t workspace_bytes, uint64_t id) {
  const char *error = getenv("FAKE_MIOPEN_FORWARD_ERROR");
  if (error != NULL && error[0] != '\0')
    return atoi(error);
  if (!shapes_ok(wd, xd, c, yd) || id != kSolutionId || !h->compiled || workspace == NULL ||
      workspace_bytes < kWorkspaceBytes)
    return kBadParm;
  size_t count = 1;
  for (int d = 0; d < yd->rank; ++d)
    count *= (size_t)yd->dims[d];
  for (size_t i = 0; i < count; ++i) {
    int yi[kMaxDims] = {0};
    size_t rest = i;
    for (int d = yd->rank - 1; d >= 0; --d) {
      yi[d] = (int)(rest % (size_t)yd->dims[d]);
      rest /= (size_t)yd->dims[d];
    }
    y[i] = fake_conv_value(x, xd->dims, xd->strides, xd->rank, w, wd->dims, 0, c->padding,
                           c->stride, c->dilation, c->groups, yi);
  }
  ++g_forwards;
  char text[256];
  describe(text, sizeof(text), xd, wd, yd, c);
  log_line("miopen forward solution=%llu %s\n", (unsigned long long)id, text);
  return kSuccess;
}

/* Whether `b` broadcasts to `a` (each dim equal or 1). */
static int broadcasts(const tensor *b, const tensor *a) {
  if (b->rank != a->rank || b->type != a->type || !packed(b))
    return 0;
  for (int d = 0; d < a->rank; ++d)
    if (b->dims[d] != a->dims[d] && b->dims[d] != 1)
      return 0;
  return 1;
}

/* C = alpha1 * A + alpha2 * B + beta * C (add only), B broadcast. */
API int miopenOpTensor(handle *h, int op, const float *alpha1, const tensor *ad, const float *a,
                       const float *alpha2, const tensor *bd, const float *b, const float *beta,
                       const tensor *cd, float *c) {
  if (op != kOpAdd || memcmp(ad, cd, sizeof(tensor)) != 0 || !packed(cd) || cd->type != kFloat ||
      !broadcasts(bd, cd))
    return kBadParm;
  size_t count = 1;
  for (int d = 0; d < cd->rank; ++d)
    count *= (size_t)cd->dims[d];
  for (size_t i = 0; i < count; ++i) {
    size_t rest = i, at_b = 0, stride = 1;
    for (int d = cd->rank - 1; d >= 0; --d) {
      size_t index = rest % (size_t)cd->dims[d];
      rest /= (size_t)cd->dims[d];
      if (bd->dims[d] != 1)
        at_b += index * stride;
      stride *= (size_t)bd->dims[d];
    }
    float value = *alpha1 * a[i] + *alpha2 * b[at_b];
    c[i] = *beta != 0.0f ? value + *beta * c[i] : value; /* C unread when beta is 0 */
  }
  log_line("miopen op_tensor add %s beta=%g\n", a == c ? "a=c" : "a=other", (double)*beta);
  return kSuccess;
}

API int miopenActivationForward(handle *h, const activation *act, const float *alpha,
                                const tensor *xd, const float *x, const float *beta,
                                const tensor *yd, float *y) {
  if (act->mode != kRelu || memcmp(xd, yd, sizeof(tensor)) != 0 || xd->type != kFloat)
    return kBadParm;
  size_t count = 1;
  for (int d = 0; d < yd->rank; ++d)
    count *= (size_t)yd->dims[d];
  for (size_t i = 0; i < count; ++i) {
    float value = *alpha * (x[i] > 0.0f ? x[i] : 0.0f);
    y[i] = *beta != 0.0f ? value + *beta * y[i] : value;
  }
  log_line("miopen activation relu\n");
  return kSuccess;
}
