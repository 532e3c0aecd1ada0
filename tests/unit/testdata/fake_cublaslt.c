/* A stand-in for libcublasLt.so (PT2C_LIBCUBLASLT=libfake_cublaslt.so) for the runtime's
 * GEMM steps without a GPU: "device memory" is host memory (as in fake_cuda.c), and
 * cublasLtMatmul computes D = op(A) op(B) (+ bias, relu) column-major on the host, in
 * f32 for f32, f16 and bf16 data (one type per matmul; bias of D's type), so the
 * runtime's row-major-to-column-major mapping is checked for real.
 *
 * Environment: FAKE_CUBLASLT_NO_ALGO=1 (the heuristic finds no algorithm). Tests read
 * fake_cublaslt_matmuls() and fake_cublaslt_last_compute() (the compute type of the
 * last matmul, 68 = 32F, 77 = 32F_FAST_TF32). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

enum { kSuccess = 0, kInvalidValue = 7, kNotSupported = 15 };

enum { kR32F = 0, kR16F = 2, kR16BF = 14 }; /* cudaDataType */

typedef struct desc {
  int compute, trans_a, trans_b;
  uint32_t epilogue;
  const void *bias;
} desc;
typedef struct layout {
  int type;
  uint64_t rows, cols;
  int64_t ld, stride;
  int32_t batch;
} layout;

static size_t type_size(int type) { return type == kR32F ? 4 : 2; }

static float load(const void *data, int type, uint64_t index) {
  if (type == kR32F)
    return ((const float *)data)[index];
  uint16_t bits = ((const uint16_t *)data)[index];
  if (type == kR16BF) {
    uint32_t wide = (uint32_t)bits << 16;
    float value;
    memcpy(&value, &wide, 4);
    return value;
  }
  _Float16 half;
  memcpy(&half, &bits, 2);
  return (float)half;
}

static void store(void *data, int type, uint64_t index, float value) {
  if (type == kR32F) {
    ((float *)data)[index] = value;
    return;
  }
  uint16_t bits;
  if (type == kR16BF) { /* round to nearest even (no NaNs in these tests) */
    uint32_t wide;
    memcpy(&wide, &value, 4);
    bits = (uint16_t)((wide + 0x7fffu + ((wide >> 16) & 1u)) >> 16);
  } else {
    _Float16 half = (_Float16)value;
    memcpy(&bits, &half, 2);
  }
  ((uint16_t *)data)[index] = bits;
}
typedef struct {
  uint64_t data[8];
} algo;
typedef struct {
  algo algo;
  size_t workspace_size;
  int state;
  float waves;
  int reserved[4];
} heuristic_result;

static int g_handle, g_preference, g_matmuls, g_last_compute;

API int fake_cublaslt_matmuls(void) { return g_matmuls; }
API int fake_cublaslt_last_compute(void) { return g_last_compute; }

API int cublasLtCreate(void **handle) {
  *handle = &g_handle;
  return kSuccess;
}
API int cublasLtDestroy(void *handle) { return handle == &g_handle ? kSuccess : kInvalidValue; }

API int cublasLtMatmulDescCreate(desc **out, int compute, int scale) {
  if (scale != 0)
    return kNotSupported; /* f32 scale only */
  *out = calloc(1, sizeof(desc));
  (*out)->compute = compute;
  (*out)->epilogue = 1;
  return kSuccess;
}
API int cublasLtMatmulDescDestroy(desc *d) {
  free(d);
  return kSuccess;
}
API int cublasLtMatmulDescSetAttribute(desc *d, int attribute, const void *value, size_t size) {
  switch (attribute) {
  case 3:
    if (size != 4)
      return kInvalidValue;
    memcpy(&d->trans_a, value, 4);
    return kSuccess;
  case 4:
    if (size != 4)
      return kInvalidValue;
    memcpy(&d->trans_b, value, 4);
    return kSuccess;
  case 7:
    if (size != 4)
      return kInvalidValue;
    memcpy(&d->epilogue, value, 4);
    return kSuccess;
  case 8:
    if (size != sizeof(void *))
      return kInvalidValue;
    memcpy(&d->bias, value, size);
    return kSuccess;
  default:
    return kInvalidValue;
  }
}

API int cublasLtMatrixLayoutCreate(layout **out, int type, uint64_t rows, uint64_t cols,
                                   int64_t ld) {
  if ((type != kR32F && type != kR16F && type != kR16BF) || ld < (int64_t)rows)
    return kInvalidValue; /* column-major */
  *out = calloc(1, sizeof(layout));
  **out = (layout){type, rows, cols, ld, 0, 1};
  return kSuccess;
}
API int cublasLtMatrixLayoutDestroy(layout *l) {
  free(l);
  return kSuccess;
}
API int cublasLtMatrixLayoutSetAttribute(layout *l, int attribute, const void *value, size_t size) {
  if (attribute == 5 && size == 4)
    return memcpy(&l->batch, value, 4), kSuccess;
  if (attribute == 6 && size == 8)
    return memcpy(&l->stride, value, 8), kSuccess;
  return kInvalidValue;
}

API int cublasLtMatmulPreferenceCreate(void **preference) {
  *preference = &g_preference;
  return kSuccess;
}
API int cublasLtMatmulPreferenceDestroy(void *preference) { return kSuccess; }
API int cublasLtMatmulPreferenceSetAttribute(void *preference, int attribute, const void *value,
                                             size_t size) {
  return kSuccess;
}

/* op(X) element (row r, column c) of a column-major matrix. */
static float element(const void *x, const layout *l, int transposed, uint64_t r, uint64_t c) {
  return load(x, l->type, transposed ? c + r * l->ld : r + c * l->ld);
}

/* Checks that the shapes agree, as the real heuristic does. */
static int shapes_ok(const desc *d, const layout *a, const layout *b, const layout *out) {
  uint64_t m = d->trans_a ? a->cols : a->rows, k = d->trans_a ? a->rows : a->cols;
  uint64_t kb = d->trans_b ? b->cols : b->rows, n = d->trans_b ? b->rows : b->cols;
  return k == kb && out->rows == m && out->cols == n && a->batch == out->batch &&
         b->batch == out->batch && a->type == b->type &&
         (a->type == out->type || out->type == kR32F); /* f16/bf16 -> f32 too */
}

API int cublasLtMatmulAlgoGetHeuristic(void *handle, desc *d, layout *a, layout *b, layout *c,
                                       layout *out, void *preference, int requested,
                                       heuristic_result *results, int *returned) {
  const char *no_algo = getenv("FAKE_CUBLASLT_NO_ALGO");
  *returned = 0;
  if ((no_algo != NULL && strcmp(no_algo, "1") == 0) || !shapes_ok(d, a, b, out))
    return kNotSupported;
  memset(results, 0, sizeof(*results));
  results->workspace_size = 4096; /* so that the runtime allocates a workspace */
  *returned = 1;
  return kSuccess;
}

API int cublasLtMatmul(void *handle, desc *d, const float *alpha, const void *a, layout *la,
                       const void *b, layout *lb, const float *beta, const void *c, layout *lc,
                       void *out, layout *lo, const algo *algorithm, void *workspace,
                       size_t workspace_size, void *stream) {
  if (!shapes_ok(d, la, lb, lo) || workspace == NULL || workspace_size < 4096)
    return kInvalidValue;
  uint64_t k = d->trans_a ? la->rows : la->cols;
  for (int32_t batch = 0; batch < lo->batch; ++batch)
    for (uint64_t col = 0; col < lo->cols; ++col)
      for (uint64_t row = 0; row < lo->rows; ++row) {
        float sum = 0;
        for (uint64_t i = 0; i < k; ++i)
          sum += element((const char *)a + batch * la->stride * type_size(la->type), la, d->trans_a,
                         row, i) *
                 element((const char *)b + batch * lb->stride * type_size(lb->type), lb, d->trans_b,
                         i, col);
        sum = *alpha * sum;
        if (d->epilogue & 4)
          sum += load(d->bias, lo->type, row);
        if ((d->epilogue & 2) && sum < 0)
          sum = 0;
        store(out, lo->type, batch * lo->stride + row + col * lo->ld, sum);
      }
  ++g_matmuls;
  g_last_compute = d->compute;
  return kSuccess;
}
