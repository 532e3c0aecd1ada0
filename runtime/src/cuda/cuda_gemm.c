/* GEMM steps through cuBLASLt (see cuda_gemm.h). The plan's GEMMs are row-major; cuBLASLt
 * is column-major, so each runs as its transpose: D^T = op(B)^T x op(A)^T, where a
 * row-major matrix read column-major is already its transpose. */
#include "cuda_gemm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dtype.h"
#include "../error.h"
#include "cuda_library.h"

typedef int cublasStatus_t;
typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque *cublasLtMatmulDesc_t;
typedef struct cublasLtMatrixLayoutOpaque *cublasLtMatrixLayout_t;
typedef struct cublasLtMatmulPreferenceOpaque *cublasLtMatmulPreference_t;
typedef struct {
  uint64_t data[8];
} cublasLtMatmulAlgo_t;
typedef struct {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
} cublasLtMatmulHeuristicResult_t;

/* The values of cublasLt.h, cublas_api.h and library_types.h (CUDA 12 and 13). */
enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_OP_N = 0,
  CUBLAS_OP_T = 1,
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  CUDA_R_32F = 0,
  CUDA_R_16F = 2,
  CUDA_R_16BF = 14,
  CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,
  CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6,
  CUBLASLT_MATMUL_DESC_TRANSA = 3,
  CUBLASLT_MATMUL_DESC_TRANSB = 4,
  CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
  CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,
  CUBLASLT_EPILOGUE_DEFAULT = 1,
  CUBLASLT_EPILOGUE_BIAS = 4,
  CUBLASLT_EPILOGUE_RELU_BIAS = 6,
  CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5, /* B, C, D follow */
};

/* cuBLASLt's recommendation for Hopper; older GPUs use less of it. */
enum { kMaxWorkspaceBytes = 32 << 20, kMaxAlignment = 256 };

typedef struct cublaslt_api {
  cublasStatus_t (*Create)(cublasLtHandle_t *);
  cublasStatus_t (*Destroy)(cublasLtHandle_t);
  cublasStatus_t (*MatmulDescCreate)(cublasLtMatmulDesc_t *, int compute, int scale);
  cublasStatus_t (*MatmulDescDestroy)(cublasLtMatmulDesc_t);
  cublasStatus_t (*MatmulDescSetAttribute)(cublasLtMatmulDesc_t, int, const void *, size_t);
  cublasStatus_t (*MatrixLayoutCreate)(cublasLtMatrixLayout_t *, int type, uint64_t rows,
                                       uint64_t cols, int64_t ld);
  cublasStatus_t (*MatrixLayoutDestroy)(cublasLtMatrixLayout_t);
  cublasStatus_t (*MatrixLayoutSetAttribute)(cublasLtMatrixLayout_t, int, const void *, size_t);
  cublasStatus_t (*MatmulPreferenceCreate)(cublasLtMatmulPreference_t *);
  cublasStatus_t (*MatmulPreferenceDestroy)(cublasLtMatmulPreference_t);
  cublasStatus_t (*MatmulPreferenceSetAttribute)(cublasLtMatmulPreference_t, int, const void *,
                                                 size_t);
  cublasStatus_t (*MatmulAlgoGetHeuristic)(cublasLtHandle_t, cublasLtMatmulDesc_t,
                                           cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                           cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                           cublasLtMatmulPreference_t, int requested,
                                           cublasLtMatmulHeuristicResult_t *results, int *returned);
  cublasStatus_t (*Matmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *alpha, const void *a,
                           cublasLtMatrixLayout_t, const void *b, cublasLtMatrixLayout_t,
                           const void *beta, const void *c, cublasLtMatrixLayout_t, void *d,
                           cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *workspace,
                           size_t workspace_size, CUstream stream);
} cublaslt_api;

#define ENTRY(member, name) {offsetof(cublaslt_api, member), name}
static const pt2c_cuda_symbol kSymbols[] = {
    ENTRY(Create, "cublasLtCreate"),
    ENTRY(Destroy, "cublasLtDestroy"),
    ENTRY(MatmulDescCreate, "cublasLtMatmulDescCreate"),
    ENTRY(MatmulDescDestroy, "cublasLtMatmulDescDestroy"),
    ENTRY(MatmulDescSetAttribute, "cublasLtMatmulDescSetAttribute"),
    ENTRY(MatrixLayoutCreate, "cublasLtMatrixLayoutCreate"),
    ENTRY(MatrixLayoutDestroy, "cublasLtMatrixLayoutDestroy"),
    ENTRY(MatrixLayoutSetAttribute, "cublasLtMatrixLayoutSetAttribute"),
    ENTRY(MatmulPreferenceCreate, "cublasLtMatmulPreferenceCreate"),
    ENTRY(MatmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy"),
    ENTRY(MatmulPreferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute"),
    ENTRY(MatmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic"),
    ENTRY(Matmul, "cublasLtMatmul"),
};
#undef ENTRY

static cublaslt_api g_api;
static pt2c_cuda_library g_library = {
    .env = "PT2C_LIBCUBLASLT",
    .sonames = {"libcublasLt.so.13", "libcublasLt.so.12"},
    .symbols = kSymbols,
    .num_symbols = sizeof(kSymbols) / sizeof(kSymbols[0]),
    .api = &g_api,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

/* One GEMM's descriptors; `served` is 0 when its fallback steps run instead. */
typedef struct gemm_entry {
  int served;
  uint32_t alignment; /* every operand address must be a multiple of this */
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t a, b, d; /* cuBLASLt's A is the plan's B, and its B the plan's A */
  cublasLtMatmulAlgo_t algo;
} gemm_entry;

struct pt2c_cuda_gemms {
  int shared;              /* a context's: the entries' descriptors are the parent's */
  const cublaslt_api *api; /* NULL: no GEMM is served */
  cublasLtHandle_t handle;
  uint32_t count;
  const pt2c_plan_gemm *records;
  gemm_entry *entries;
  CUdeviceptr workspace;
  size_t workspace_size;
};

static int data_type(uint32_t dtype) {
  return dtype == PT2C_F16 ? CUDA_R_16F : dtype == PT2C_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

/* A column-major layout of `rows` x `cols` with batch count and stride. */
static int make_layout(const cublaslt_api *api, cublasLtMatrixLayout_t *layout, int type,
                       uint64_t rows, uint64_t cols, uint64_t ld, uint64_t batch, uint64_t stride) {
  if (api->MatrixLayoutCreate(layout, type, rows, cols, (int64_t)ld) != CUBLAS_STATUS_SUCCESS) {
    *layout = NULL;
    return 0;
  }
  int32_t count = (int32_t)batch;
  int64_t offset = (int64_t)stride;
  return batch == 1 ||
         (api->MatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                        sizeof(count)) == CUBLAS_STATUS_SUCCESS &&
          api->MatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                        &offset, sizeof(offset)) == CUBLAS_STATUS_SUCCESS);
}

/* The largest power of two (up to kMaxAlignment) that divides `address`. */
static uint32_t alignment_of(CUdeviceptr address) {
  uint32_t alignment = kMaxAlignment;
  while (alignment > 1 && address % alignment != 0)
    alignment /= 2;
  return alignment;
}

/* Sets up GEMM `g` for cuBLASLt; leaves entry->served 0 when cuBLASLt cannot do it.
 * `addresses` holds the operands' device addresses, 0 for the caller's tensors (not
 * known until a run; assumed 256-byte aligned, as every CUDA allocator gives, and
 * checked at each run). */
static void prepare(pt2c_cuda_gemms *gemms, const pt2c_plan_gemm *g, const CUdeviceptr *addresses,
                    uint32_t num_addresses, int compute, gemm_entry *entry) {
  const cublaslt_api *api = gemms->api;
  if (g->batch > INT32_MAX)
    return;
  int type = data_type(g->dtype),
      input_type = data_type(g->input_dtype ? g->input_dtype : g->dtype);
  entry->alignment = kMaxAlignment;
  for (uint32_t i = 0; i < num_addresses; ++i)
    if (addresses[i] != 0 && alignment_of(addresses[i]) < entry->alignment)
      entry->alignment = alignment_of(addresses[i]);
  int32_t op_a = g->transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  int32_t op_b = g->transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  uint32_t epilogue = g->epilogue == PT2C_GEMM_EPILOGUE_BIAS        ? CUBLASLT_EPILOGUE_BIAS
                      : g->epilogue == PT2C_GEMM_EPILOGUE_BIAS_RELU ? CUBLASLT_EPILOGUE_RELU_BIAS
                                                                    : CUBLASLT_EPILOGUE_DEFAULT;
  if (api->MatmulDescCreate(&entry->desc, compute, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS) {
    entry->desc = NULL;
    return;
  }
  /* The heuristic checks the bias pointer's alignment: give it one with the alignment
   * the real one will have. */
  const void *bias = (const void *)(uintptr_t)entry->alignment;
  int ok = api->MatmulDescSetAttribute(entry->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a,
                                       sizeof(op_a)) == CUBLAS_STATUS_SUCCESS &&
           api->MatmulDescSetAttribute(entry->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b,
                                       sizeof(op_b)) == CUBLAS_STATUS_SUCCESS &&
           api->MatmulDescSetAttribute(entry->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                       sizeof(epilogue)) == CUBLAS_STATUS_SUCCESS &&
           (g->epilogue == PT2C_GEMM_EPILOGUE_NONE ||
            api->MatmulDescSetAttribute(entry->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                        sizeof(bias)) == CUBLAS_STATUS_SUCCESS);
  /* cuBLASLt's A: the plan's B, [N, K] column-major (stored transposed when op is T). */
  ok = ok && make_layout(api, &entry->a, input_type, g->transpose_b ? g->k : g->n,
                         g->transpose_b ? g->n : g->k, g->ld_b, g->batch, g->stride_b);
  ok = ok && make_layout(api, &entry->b, input_type, g->transpose_a ? g->m : g->k,
                         g->transpose_a ? g->k : g->m, g->ld_a, g->batch, g->stride_a);
  ok = ok && make_layout(api, &entry->d, type, g->n, g->m, g->ld_d, g->batch, g->stride_d);
  if (!ok)
    return;

  cublasLtMatmulPreference_t preference = NULL;
  if (api->MatmulPreferenceCreate(&preference) != CUBLAS_STATUS_SUCCESS)
    return;
  uint64_t max_workspace = kMaxWorkspaceBytes;
  ok = api->MatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                         &max_workspace,
                                         sizeof(max_workspace)) == CUBLAS_STATUS_SUCCESS;
  for (int i = 0; i < 4 && ok; ++i)
    ok = api->MatmulPreferenceSetAttribute(
             preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + i, &entry->alignment,
             sizeof(entry->alignment)) == CUBLAS_STATUS_SUCCESS;
  cublasLtMatmulHeuristicResult_t result;
  memset(&result, 0, sizeof(result));
  int returned = 0;
  if (ok &&
      api->MatmulAlgoGetHeuristic(gemms->handle, entry->desc, entry->a, entry->b, entry->d,
                                  entry->d, preference, 1, &result,
                                  &returned) == CUBLAS_STATUS_SUCCESS &&
      returned > 0 && result.state == CUBLAS_STATUS_SUCCESS) {
    entry->algo = result.algo;
    entry->served = 1;
    if (result.workspaceSize > gemms->workspace_size)
      gemms->workspace_size = result.workspaceSize;
  }
  api->MatmulPreferenceDestroy(preference);
}

/* The workspace_size bytes every GEMM of the table may use (none: nothing to do). */
static pt2c_status allocate_workspace(const pt2c_cuda_driver *cu, pt2c_cuda_gemms *gemms) {
  return pt2c_cuda_workspace_alloc(cu, gemms->workspace_size, &gemms->workspace,
                                   "could not allocate the cuBLASLt workspace on the GPU");
}

/* An empty table of `count` GEMMs. */
static pt2c_status allocate_table(uint32_t count, pt2c_cuda_gemms **out) {
  void *entries;
  pt2c_cuda_gemms *gemms =
      pt2c_cuda_table_alloc(sizeof(*gemms), count, sizeof(gemm_entry), &entries);
  if (gemms == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the GEMM table");
  gemms->entries = entries;
  gemms->count = count;
  *out = gemms;
  return PT2C_OK;
}

pt2c_status pt2c_cuda_gemms_create(const pt2c_cuda_driver *cu, const pt2c_plan *plan,
                                   const CUdeviceptr *buffer_address, pt2c_cuda_gemms **out) {
  *out = NULL;
  uint32_t count = plan->header->num_gemms;
  pt2c_status status = allocate_table(count, out);
  if (status != PT2C_OK)
    return status;
  pt2c_cuda_gemms *gemms = *out;
  gemms->records = plan->gemms;
  /* ROCm plans run their fallback launches (hipBLASLt is not wired in yet). */
  if (count == 0 || cu->device != PT2C_DEVICE_CUDA || pt2c_cuda_env_is("PT2C_CUBLASLT", "0"))
    return PT2C_OK;
  gemms->api = pt2c_cuda_library_load(&g_library);
  if (gemms->api != NULL && gemms->api->Create(&gemms->handle) != CUBLAS_STATUS_SUCCESS) {
    gemms->api = NULL; /* e.g. a cuBLASLt too new for the driver: our kernels still run */
    gemms->handle = NULL;
  }
  if (gemms->api == NULL)
    return PT2C_OK;
  int tf32 = pt2c_cuda_env_is("PT2C_CUDA_TF32", "1");
  for (uint32_t s = 0; s < plan->header->num_steps; ++s) {
    const pt2c_plan_step *step = &plan->steps[s];
    if (step->kind != PT2C_STEP_GEMM)
      continue;
    const pt2c_plan_gemm *g = &plan->gemms[step->kernel];
    CUdeviceptr addresses[4] = {0, 0, 0, 0};
    for (uint32_t a = 0; a < step->num_args && a < 4; ++a) {
      uint32_t kind = plan->buffers[plan->step_args[step->first_arg + a]].kind;
      if (kind != PT2C_BUFFER_INPUT && kind != PT2C_BUFFER_OUTPUT)
        addresses[a] = buffer_address[plan->step_args[step->first_arg + a]];
    }
    int compute = g->dtype == PT2C_F32 && tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    prepare(gemms, g, addresses, step->num_args, compute, &gemms->entries[step->kernel]);
  }
  return allocate_workspace(cu, gemms);
}

pt2c_status pt2c_cuda_gemms_share(const pt2c_cuda_driver *cu, const pt2c_cuda_gemms *parent,
                                  pt2c_cuda_gemms **out) {
  *out = NULL;
  uint32_t count = parent->count;
  pt2c_status status = allocate_table(count, out);
  if (status != PT2C_OK)
    return status;
  pt2c_cuda_gemms *gemms = *out;
  gemms->shared = 1;
  gemms->records = parent->records;
  if (parent->api == NULL)
    return PT2C_OK;
  if (count > 0)
    memcpy(gemms->entries, parent->entries, sizeof(gemm_entry) * count);
  if (parent->api->Create(&gemms->handle) != CUBLAS_STATUS_SUCCESS)
    return pt2c_fail(PT2C_ERROR_DEVICE, "cuBLASLt could not make a handle for a context");
  gemms->api = parent->api;
  gemms->workspace_size = parent->workspace_size;
  return allocate_workspace(cu, gemms);
}

void pt2c_cuda_gemms_destroy(const pt2c_cuda_driver *cu, pt2c_cuda_gemms *gemms) {
  if (gemms == NULL)
    return;
  const cublaslt_api *api = gemms->api;
  for (uint32_t i = 0; api != NULL && !gemms->shared && i < gemms->count; ++i) {
    gemm_entry *entry = &gemms->entries[i];
    if (entry->a)
      api->MatrixLayoutDestroy(entry->a);
    if (entry->b)
      api->MatrixLayoutDestroy(entry->b);
    if (entry->d)
      api->MatrixLayoutDestroy(entry->d);
    if (entry->desc)
      api->MatmulDescDestroy(entry->desc);
  }
  if (api != NULL && gemms->handle != NULL)
    api->Destroy(gemms->handle);
  if (gemms->workspace)
    cu->MemFree(gemms->workspace);
  free(gemms->entries);
  free(gemms);
}

int pt2c_cuda_gemm_served(const pt2c_cuda_gemms *gemms, uint32_t index) {
  return gemms != NULL && gemms->api != NULL && gemms->entries[index].served;
}

pt2c_status pt2c_cuda_gemm_run(const pt2c_cuda_gemms *gemms, uint32_t index,
                               const CUdeviceptr *buffers, CUstream stream) {
  const pt2c_plan_gemm *g = &gemms->records[index];
  const gemm_entry *entry = &gemms->entries[index];
  const cublaslt_api *api = gemms->api;
  int has_bias = g->epilogue != PT2C_GEMM_EPILOGUE_NONE;
  CUdeviceptr a = buffers[0], b = buffers[1], d = buffers[has_bias ? 3 : 2];
  if (has_bias) {
    const void *bias = (const void *)(uintptr_t)buffers[2];
    if (api->MatmulDescSetAttribute(entry->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                    sizeof(bias)) != CUBLAS_STATUS_SUCCESS)
      return pt2c_fail(PT2C_ERROR_DEVICE, "cuBLASLt refused the bias of GEMM %u", index);
  }
  /* The scale type is f32 for every dtype (CUDA_R_32F in MatmulDescCreate). */
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t status =
      api->Matmul(gemms->handle, entry->desc, &one, (const void *)(uintptr_t)b, entry->a,
                  (const void *)(uintptr_t)a, entry->b, &zero, (const void *)(uintptr_t)d, entry->d,
                  (void *)(uintptr_t)d, entry->d, &entry->algo, (void *)(uintptr_t)gemms->workspace,
                  gemms->workspace_size, stream);
  if (status != CUBLAS_STATUS_SUCCESS)
    return pt2c_fail(PT2C_ERROR_DEVICE, "cublasLtMatmul failed for GEMM %u (status %d)", index,
                     status);
  return PT2C_OK;
}

int pt2c_cuda_gemm_aligned(const pt2c_cuda_gemms *gemms, uint32_t index, const CUdeviceptr *buffers,
                           uint32_t num_buffers) {
  for (uint32_t i = 0; i < num_buffers; ++i)
    if (buffers[i] % gemms->entries[index].alignment != 0)
      return 0;
  return 1;
}
