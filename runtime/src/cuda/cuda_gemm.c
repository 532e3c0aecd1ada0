/* GEMM steps through cuBLASLt or hipBLASLt (see cuda_gemm.h; blaslt_api.h: one code for
 * both, with the library's numbers from its dialect). The plan's GEMMs are row-major; the
 * libraries are column-major, so each runs as its transpose: D^T = op(B)^T x op(A)^T,
 * where a row-major matrix read column-major is already its transpose. The ADD epilogues
 * are the libraries' own D = alpha op(A) op(B) + beta C with beta = 1 and C (the residual,
 * never D itself in the compiler's plans) in D's layout; the others pass beta = 0, C = D. */
#include "cuda_gemm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dtype.h"
#include "../error.h"
#include "blaslt_api.h"
#include "cuda_library.h"

/* cuBLASLt's recommendation for Hopper; older GPUs use less of it. */
enum { kMaxWorkspaceBytes = 32 << 20, kMaxAlignment = 256 };

/* One GEMM's descriptors; `served` is 0 when its fallback steps run instead. */
typedef struct gemm_entry {
  int served;
  uint32_t alignment; /* every operand address must be a multiple of this */
  pt2c_blaslt_desc desc;
  pt2c_blaslt_layout a, b, d; /* the library's A is the plan's B, and its B the plan's A;
                               * C (when the epilogue adds one) has D's layout */
  uint64_t algo[PT2C_BLASLT_MAX_ALGO_BYTES / 8]; /* the dialect's algo_bytes of it */
} gemm_entry;

struct pt2c_cuda_gemms {
  int shared;                         /* a context's: the entries' descriptors are the parent's */
  const pt2c_blaslt_dialect *dialect; /* the plan's device's library */
  const pt2c_blaslt_api *api;         /* NULL: no GEMM is served */
  pt2c_blaslt_handle handle;
  uint32_t count;
  const pt2c_plan_gemm *records;
  gemm_entry *entries;
  CUdeviceptr workspace;
  size_t workspace_size;
};

static int data_type(const pt2c_blaslt_dialect *dialect, uint32_t dtype) {
  return dtype == PT2C_F16 ? dialect->r_16f : dtype == PT2C_BF16 ? dialect->r_16bf : dialect->r_32f;
}

/* A column-major layout of `rows` x `cols` with batch count and stride. */
static int make_layout(const pt2c_cuda_gemms *gemms, pt2c_blaslt_layout *layout, int type,
                       uint64_t rows, uint64_t cols, uint64_t ld, uint64_t batch, uint64_t stride) {
  const pt2c_blaslt_api *api = gemms->api;
  if (api->MatrixLayoutCreate(layout, type, rows, cols, (int64_t)ld) != 0) {
    *layout = NULL;
    return 0;
  }
  int32_t count = (int32_t)batch;
  int64_t offset = (int64_t)stride;
  return batch == 1 ||
         (api->MatrixLayoutSetAttribute(*layout, gemms->dialect->layout_batch_count, &count,
                                        sizeof(count)) == 0 &&
          api->MatrixLayoutSetAttribute(*layout, gemms->dialect->layout_strided_batch_offset,
                                        &offset, sizeof(offset)) == 0);
}

/* The largest power of two (up to kMaxAlignment) that divides `address`. */
static uint32_t alignment_of(CUdeviceptr address) {
  uint32_t alignment = kMaxAlignment;
  while (alignment > 1 && address % alignment != 0)
    alignment /= 2;
  return alignment;
}

/* The matmul descriptor of `g`: transposes, epilogue and bias (type). */
static int describe(const pt2c_cuda_gemms *gemms, const pt2c_plan_gemm *g, int compute,
                    gemm_entry *entry) {
  const pt2c_blaslt_api *api = gemms->api;
  const pt2c_blaslt_dialect *dialect = gemms->dialect;
  int32_t op_a = g->transpose_b ? dialect->op_t : dialect->op_n;
  int32_t op_b = g->transpose_a ? dialect->op_t : dialect->op_n;
  /* BIAS_ADD is the bias epilogue with beta = 1, BIAS_ADD_RELU the ReLU one (its max
   * applies to the sum with beta * C); ADD the default one with beta = 1. */
  uint32_t epilogue = pt2c_gemm_epilogue_has_relu(g->epilogue)   ? dialect->epilogue_relu_bias
                      : pt2c_gemm_epilogue_has_bias(g->epilogue) ? dialect->epilogue_bias
                                                                 : dialect->epilogue_default;
  if (api->MatmulDescCreate(&entry->desc, compute, dialect->r_32f) != 0) {
    entry->desc = NULL;
    return 0;
  }
  /* The heuristic checks the bias pointer's alignment: give it one with the alignment
   * the real one will have. */
  const void *bias = (const void *)(uintptr_t)entry->alignment;
  int32_t bias_type = data_type(dialect, g->dtype);
  int has_bias = pt2c_gemm_epilogue_has_bias(g->epilogue);
  return api->MatmulDescSetAttribute(entry->desc, dialect->desc_transa, &op_a, sizeof(op_a)) == 0 &&
         api->MatmulDescSetAttribute(entry->desc, dialect->desc_transb, &op_b, sizeof(op_b)) == 0 &&
         api->MatmulDescSetAttribute(entry->desc, dialect->desc_epilogue, &epilogue,
                                     sizeof(epilogue)) == 0 &&
         (!has_bias || api->MatmulDescSetAttribute(entry->desc, dialect->desc_bias_pointer, &bias,
                                                   sizeof(bias)) == 0) &&
         (!has_bias || dialect->desc_bias_data_type < 0 ||
          api->MatmulDescSetAttribute(entry->desc, dialect->desc_bias_data_type, &bias_type,
                                      sizeof(bias_type)) == 0);
}

/* The heuristic's first algorithm for the entry's descriptors, within the workspace limit
 * and (where the library takes them) the entry's alignment. */
static void pick_algorithm(pt2c_cuda_gemms *gemms, gemm_entry *entry) {
  const pt2c_blaslt_api *api = gemms->api;
  const pt2c_blaslt_dialect *dialect = gemms->dialect;
  pt2c_blaslt_preference preference = NULL;
  if (api->MatmulPreferenceCreate(&preference) != 0)
    return;
  uint64_t max_workspace = kMaxWorkspaceBytes;
  int ok = api->MatmulPreferenceSetAttribute(preference, dialect->pref_max_workspace_bytes,
                                             &max_workspace, sizeof(max_workspace)) == 0;
  for (int i = 0; i < 4 && ok && dialect->pref_min_alignment_a >= 0; ++i)
    ok = api->MatmulPreferenceSetAttribute(preference, dialect->pref_min_alignment_a + i,
                                           &entry->alignment, sizeof(entry->alignment)) == 0;
  /* One heuristic result: {algo, size_t workspaceSize, status state, ...} (blaslt_api.h). */
  uint64_t result[PT2C_BLASLT_MAX_ALGO_BYTES / 8 + 8];
  memset(result, 0, sizeof(result));
  int returned = 0;
  size_t workspace;
  int state;
  if (ok &&
      api->MatmulAlgoGetHeuristic(gemms->handle, entry->desc, entry->a, entry->b, entry->d,
                                  entry->d, preference, 1, result, &returned) == 0 &&
      returned > 0) {
    memcpy(&workspace, (const char *)result + dialect->algo_bytes, sizeof(workspace));
    memcpy(&state, (const char *)result + dialect->algo_bytes + sizeof(size_t), sizeof(state));
    if (state == 0 && workspace <= kMaxWorkspaceBytes) {
      memcpy(entry->algo, result, dialect->algo_bytes);
      entry->served = 1;
      if (workspace > gemms->workspace_size)
        gemms->workspace_size = workspace;
    }
  }
  api->MatmulPreferenceDestroy(preference);
}

/* Sets up GEMM `g` for the library; leaves entry->served 0 when it cannot do it.
 * `addresses` holds the operands' device addresses, 0 for the caller's tensors (not
 * known until a run; assumed 256-byte aligned, as every CUDA and HIP allocator gives, and
 * checked at each run). */
static void prepare(pt2c_cuda_gemms *gemms, const pt2c_plan_gemm *g, const CUdeviceptr *addresses,
                    uint32_t num_addresses, int compute, gemm_entry *entry) {
  if (g->batch > INT32_MAX)
    return;
  int type = data_type(gemms->dialect, g->dtype),
      input_type = data_type(gemms->dialect, g->input_dtype ? g->input_dtype : g->dtype);
  entry->alignment = kMaxAlignment;
  for (uint32_t i = 0; i < num_addresses; ++i)
    if (addresses[i] != 0 && alignment_of(addresses[i]) < entry->alignment)
      entry->alignment = alignment_of(addresses[i]);
  int ok = describe(gemms, g, compute, entry);
  /* The library's A: the plan's B, [N, K] column-major (stored transposed when op is T). */
  ok = ok && make_layout(gemms, &entry->a, input_type, g->transpose_b ? g->k : g->n,
                         g->transpose_b ? g->n : g->k, g->ld_b, g->batch, g->stride_b);
  ok = ok && make_layout(gemms, &entry->b, input_type, g->transpose_a ? g->m : g->k,
                         g->transpose_a ? g->k : g->m, g->ld_a, g->batch, g->stride_a);
  ok = ok && make_layout(gemms, &entry->d, type, g->n, g->m, g->ld_d, g->batch, g->stride_d);
  if (ok)
    pick_algorithm(gemms, entry);
}

/* The workspace_size bytes every GEMM of the table may use (none: nothing to do). */
static pt2c_status allocate_workspace(const pt2c_cuda_driver *cu, pt2c_cuda_gemms *gemms) {
  char what[64];
  snprintf(what, sizeof(what), "could not allocate the %s workspace on the GPU",
           gemms->dialect->name);
  return pt2c_cuda_workspace_alloc(cu, gemms->workspace_size, &gemms->workspace, what);
}

/* An empty table of `count` GEMMs for `cu`'s library. */
static pt2c_status allocate_table(const pt2c_cuda_driver *cu, uint32_t count,
                                  pt2c_cuda_gemms **out) {
  void *entries;
  pt2c_cuda_gemms *gemms =
      pt2c_cuda_table_alloc(sizeof(*gemms), count, sizeof(gemm_entry), &entries);
  if (gemms == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the GEMM table");
  gemms->entries = entries;
  gemms->count = count;
  gemms->dialect =
      cu->device == PT2C_DEVICE_ROCM ? &pt2c_hipblaslt_dialect : &pt2c_cublaslt_dialect;
  *out = gemms;
  return PT2C_OK;
}

pt2c_status pt2c_cuda_gemms_create(const pt2c_cuda_driver *cu, const pt2c_plan *plan,
                                   const CUdeviceptr *buffer_address, pt2c_cuda_gemms **out) {
  *out = NULL;
  uint32_t count = plan->header->num_gemms;
  pt2c_status status = allocate_table(cu, count, out);
  if (status != PT2C_OK)
    return status;
  pt2c_cuda_gemms *gemms = *out;
  const pt2c_blaslt_dialect *dialect = gemms->dialect;
  gemms->records = plan->gemms;
  if (count == 0 || pt2c_cuda_env_is(dialect->switch_env, "0"))
    return PT2C_OK;
  gemms->api = pt2c_cuda_library_load(dialect->library);
  if (gemms->api != NULL && gemms->api->Create(&gemms->handle) != 0) {
    gemms->api = NULL; /* e.g. a library too new for the driver: our kernels still run */
    gemms->handle = NULL;
  }
  if (gemms->api == NULL)
    return PT2C_OK;
  int tf32 = dialect->tf32_env != NULL && pt2c_cuda_env_is(dialect->tf32_env, "1");
  for (uint32_t s = 0; s < plan->header->num_steps; ++s) {
    const pt2c_plan_step *step = &plan->steps[s];
    if (step->kind != PT2C_STEP_GEMM)
      continue;
    const pt2c_plan_gemm *g = &plan->gemms[step->kernel];
    CUdeviceptr addresses[5] = {0, 0, 0, 0, 0}; /* A, B, bias, C, D at most */
    for (uint32_t a = 0; a < step->num_args && a < 5; ++a) {
      uint32_t kind = plan->buffers[plan->step_args[step->first_arg + a]].kind;
      if (kind != PT2C_BUFFER_INPUT && kind != PT2C_BUFFER_OUTPUT)
        addresses[a] = buffer_address[plan->step_args[step->first_arg + a]];
    }
    int compute =
        g->dtype == PT2C_F32 && tf32 ? dialect->compute_32f_fast_tf32 : dialect->compute_32f;
    prepare(gemms, g, addresses, step->num_args, compute, &gemms->entries[step->kernel]);
  }
  return allocate_workspace(cu, gemms);
}

pt2c_status pt2c_cuda_gemms_share(const pt2c_cuda_driver *cu, const pt2c_cuda_gemms *parent,
                                  pt2c_cuda_gemms **out) {
  *out = NULL;
  uint32_t count = parent->count;
  pt2c_status status = allocate_table(cu, count, out);
  if (status != PT2C_OK)
    return status;
  pt2c_cuda_gemms *gemms = *out;
  gemms->shared = 1;
  gemms->records = parent->records;
  if (parent->api == NULL)
    return PT2C_OK;
  if (count > 0)
    memcpy(gemms->entries, parent->entries, sizeof(gemm_entry) * count);
  if (parent->api->Create(&gemms->handle) != 0)
    return pt2c_fail(PT2C_ERROR_DEVICE, "%s could not make a handle for a context",
                     gemms->dialect->name);
  gemms->api = parent->api;
  gemms->workspace_size = parent->workspace_size;
  return allocate_workspace(cu, gemms);
}

void pt2c_cuda_gemms_destroy(const pt2c_cuda_driver *cu, pt2c_cuda_gemms *gemms) {
  if (gemms == NULL)
    return;
  const pt2c_blaslt_api *api = gemms->api;
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
  const pt2c_blaslt_api *api = gemms->api;
  const pt2c_blaslt_dialect *dialect = gemms->dialect;
  int has_bias = pt2c_gemm_epilogue_has_bias(g->epilogue),
      has_c = pt2c_gemm_epilogue_has_c(g->epilogue);
  /* A, B, [bias,] [C,] D */
  CUdeviceptr a = buffers[0], b = buffers[1], d = buffers[2 + has_bias + has_c];
  CUdeviceptr c = has_c ? buffers[2 + has_bias] : d;
  if (has_bias) {
    const void *bias = (const void *)(uintptr_t)buffers[2];
    if (api->MatmulDescSetAttribute(entry->desc, dialect->desc_bias_pointer, &bias, sizeof(bias)) !=
        0)
      return pt2c_fail(PT2C_ERROR_DEVICE, "%s refused the bias of GEMM %u", dialect->name, index);
  }
  /* The scale type is f32 for every dtype (r_32f in MatmulDescCreate). */
  const float one = 1.0f, zero = 0.0f;
  pt2c_blaslt_status status =
      api->Matmul(gemms->handle, entry->desc, &one, (const void *)(uintptr_t)b, entry->a,
                  (const void *)(uintptr_t)a, entry->b, has_c ? &one : &zero,
                  (const void *)(uintptr_t)c, entry->d, (void *)(uintptr_t)d, entry->d, entry->algo,
                  (void *)(uintptr_t)gemms->workspace, gemms->workspace_size, stream);
  if (status != 0)
    return pt2c_fail(PT2C_ERROR_DEVICE, "%s failed for GEMM %u (status %d)", dialect->matmul_name,
                     index, status);
  return PT2C_OK;
}

int pt2c_cuda_gemm_aligned(const pt2c_cuda_gemms *gemms, uint32_t index, const CUdeviceptr *buffers,
                           uint32_t num_buffers) {
  return pt2c_cuda_all_aligned(buffers, num_buffers, gemms->entries[index].alignment);
}
