/* A stand-in for libcublasLt.so (PT2C_LIBCUBLASLT=libfake_cublaslt.so) for the runtime's
 * GEMM steps without a GPU: "device memory" is host memory (as in fake_cuda.c), and
 * cublasLtMatmul computes f32 D = op(A) op(B) (+ bias, relu) column-major on the host,
 * so the runtime's row-major-to-column-major mapping is checked for real.
 *
 * Environment: FAKE_CUBLASLT_NO_ALGO=1 (the heuristic finds no algorithm). Tests read
 * fake_cublaslt_matmuls() and fake_cublaslt_last_compute() (the compute type of the
 * last matmul, 68 = 32F, 77 = 32F_FAST_TF32). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

enum { kSuccess = 0, kInvalidValue = 7, kNotSupported = 15 };

typedef struct desc {
  int compute, trans_a, trans_b;
  uint32_t epilogue;
  const float* bias;
} desc;
typedef struct layout {
  uint64_t rows, cols;
  int64_t ld, stride;
  int32_t batch;
} layout;
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

API int cublasLtCreate(void** handle) { *handle = &g_handle; return kSuccess; }
API int cublasLtDestroy(void* handle) { return handle == &g_handle ? kSuccess : kInvalidValue; }

API int cublasLtMatmulDescCreate(desc** out, int compute, int scale) {
  if (scale != 0) return kNotSupported; /* f32 scale only */
  *out = calloc(1, sizeof(desc));
  (*out)->compute = compute;
  (*out)->epilogue = 1;
  return kSuccess;
}
API int cublasLtMatmulDescDestroy(desc* d) { free(d); return kSuccess; }
API int cublasLtMatmulDescSetAttribute(desc* d, int attribute, const void* value, size_t size) {
  switch (attribute) {
    case 3: if (size != 4) return kInvalidValue; memcpy(&d->trans_a, value, 4); return kSuccess;
    case 4: if (size != 4) return kInvalidValue; memcpy(&d->trans_b, value, 4); return kSuccess;
    case 7: if (size != 4) return kInvalidValue; memcpy(&d->epilogue, value, 4); return kSuccess;
    case 8: if (size != sizeof(void*)) return kInvalidValue; memcpy(&d->bias, value, size); return kSuccess;
    default: return kInvalidValue;
  }
}

API int cublasLtMatrixLayoutCreate(layout** out, int type, uint64_t rows, uint64_t cols,
                                   int64_t ld) {
  if (type != 0 || ld < (int64_t)rows) return kInvalidValue; /* f32, column-major */
  *out = calloc(1, sizeof(layout));
  **out = (layout){rows, cols, ld, 0, 1};
  return kSuccess;
}
API int cublasLtMatrixLayoutDestroy(layout* l) { free(l); return kSuccess; }
API int cublasLtMatrixLayoutSetAttribute(layout* l, int attribute, const void* value,
                                         size_t size) {
  if (attribute == 5 && size == 4) return memcpy(&l->batch, value, 4), kSuccess;
  if (attribute == 6 && size == 8) return memcpy(&l->stride, value, 8), kSuccess;
  return kInvalidValue;
}

API int cublasLtMatmulPreferenceCreate(void** preference) { *preference = &g_preference; return kSuccess; }
API int cublasLtMatmulPreferenceDestroy(void* preference) { return kSuccess; }
API int cublasLtMatmulPreferenceSetAttribute(void* preference, int attribute, const void* value,
                                             size_t size) {
  return kSuccess;
}

/* op(X) element (row r, column c) of a column-major matrix. */
static float element(const float* x, const layout* l, int transposed, uint64_t r, uint64_t c) {
  return transposed ? x[c + r * l->ld] : x[r + c * l->ld];
}

/* Checks that the shapes agree, as the real heuristic does. */
static int shapes_ok(const desc* d, const layout* a, const layout* b, const layout* out) {
  uint64_t m = d->trans_a ? a->cols : a->rows, k = d->trans_a ? a->rows : a->cols;
  uint64_t kb = d->trans_b ? b->cols : b->rows, n = d->trans_b ? b->rows : b->cols;
  return k == kb && out->rows == m && out->cols == n && a->batch == out->batch &&
         b->batch == out->batch;
}

API int cublasLtMatmulAlgoGetHeuristic(void* handle, desc* d, layout* a, layout* b, layout* c,
                                       layout* out, void* preference, int requested,
                                       heuristic_result* results, int* returned) {
  const char* no_algo = getenv("FAKE_CUBLASLT_NO_ALGO");
  *returned = 0;
  if ((no_algo != NULL && strcmp(no_algo, "1") == 0) || !shapes_ok(d, a, b, out))
    return kNotSupported;
  memset(results, 0, sizeof(*results));
  results->workspace_size = 4096; /* so that the runtime allocates a workspace */
  *returned = 1;
  return kSuccess;
}

API int cublasLtMatmul(void* handle, desc* d, const float* alpha, const float* a, layout* la,
                       const float* b, layout* lb, const float* beta, const float* c, layout* lc,
                       float* out, layout* lo, const algo* algorithm, void* workspace,
                       size_t workspace_size, void* stream) {
  if (!shapes_ok(d, la, lb, lo) || workspace == NULL || workspace_size < 4096) return kInvalidValue;
  uint64_t k = d->trans_a ? la->rows : la->cols;
  for (int32_t batch = 0; batch < lo->batch; ++batch)
    for (uint64_t col = 0; col < lo->cols; ++col)
      for (uint64_t row = 0; row < lo->rows; ++row) {
        float sum = 0;
        for (uint64_t i = 0; i < k; ++i)
          sum += element(a + batch * la->stride, la, d->trans_a, row, i) *
                 element(b + batch * lb->stride, lb, d->trans_b, i, col);
        sum = *alpha * sum;
        if (d->epilogue & 4) sum += d->bias[row];
        if ((d->epilogue & 2) && sum < 0) sum = 0;
        out[batch * lo->stride + row + col * lo->ld] = sum;
      }
  ++g_matmuls;
  g_last_compute = d->compute;
  return kSuccess;
}
