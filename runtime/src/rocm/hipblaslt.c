/* hipBLASLt as the GEMM library of ROCm plans (see ../cuda/blaslt_api.h): libhipblaslt.so
 * by dlopen ($PT2C_LIBHIPBLASLT, else .so.1 or .so.0), and the numbers of hipblaslt.h,
 * hipblas-common.h and HIP's library_types.h (ROCm 6: hipDataType and
 * hipblasComputeType_t; ROCm 5's hipBLASLt took other types and is not supported). */
#include "../cuda/blaslt_api.h"

#define ENTRY(member, name) {offsetof(pt2c_blaslt_api, member), name}
static const pt2c_cuda_symbol kSymbols[] = {
    ENTRY(Create, "hipblasLtCreate"),
    ENTRY(Destroy, "hipblasLtDestroy"),
    ENTRY(MatmulDescCreate, "hipblasLtMatmulDescCreate"),
    ENTRY(MatmulDescDestroy, "hipblasLtMatmulDescDestroy"),
    ENTRY(MatmulDescSetAttribute, "hipblasLtMatmulDescSetAttribute"),
    ENTRY(MatrixLayoutCreate, "hipblasLtMatrixLayoutCreate"),
    ENTRY(MatrixLayoutDestroy, "hipblasLtMatrixLayoutDestroy"),
    ENTRY(MatrixLayoutSetAttribute, "hipblasLtMatrixLayoutSetAttribute"),
    ENTRY(MatmulPreferenceCreate, "hipblasLtMatmulPreferenceCreate"),
    ENTRY(MatmulPreferenceDestroy, "hipblasLtMatmulPreferenceDestroy"),
    ENTRY(MatmulPreferenceSetAttribute, "hipblasLtMatmulPreferenceSetAttribute"),
    ENTRY(MatmulAlgoGetHeuristic, "hipblasLtMatmulAlgoGetHeuristic"),
    ENTRY(Matmul, "hipblasLtMatmul"),
};
#undef ENTRY

static pt2c_blaslt_api g_api;
static pt2c_cuda_library g_library = {
    .env = "PT2C_LIBHIPBLASLT",
    .sonames = {"libhipblaslt.so.1", "libhipblaslt.so.0"},
    .symbols = kSymbols,
    .num_symbols = sizeof(kSymbols) / sizeof(kSymbols[0]),
    .api = &g_api,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

const pt2c_blaslt_dialect pt2c_hipblaslt_dialect = {
    .name = "hipBLASLt",
    .matmul_name = "hipblasLtMatmul",
    .switch_env = "PT2C_HIPBLASLT",
    .tf32_env = NULL, /* f32 GEMMs compute in f32 */
    .library = &g_library,
    .algo_bytes = 24, /* hipblasLtMatmulAlgo_t: uint8_t data[16], size_t max_workspace_bytes */
    .op_n = 111,      /* HIPBLAS_OP_N */
    .op_t = 112,
    .compute_32f = 2, /* HIPBLAS_COMPUTE_32F */
    .compute_32f_fast_tf32 = 6,
    .r_32f = 0, /* HIP_R_32F */
    .r_16f = 2,
    .r_16bf = 14,
    .desc_transa = 0, /* HIPBLASLT_MATMUL_DESC_TRANSA */
    .desc_transb = 1,
    .desc_epilogue = 2,
    .desc_bias_pointer = 3,
    .desc_bias_data_type = 4, /* set to D's type: the plan's bias has D's dtype */
    .epilogue_default = 1,    /* HIPBLASLT_EPILOGUE_DEFAULT */
    .epilogue_bias = 4,
    .epilogue_relu_bias = 6,
    .layout_batch_count = 0, /* HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT */
    .layout_strided_batch_offset = 1,
    .pref_max_workspace_bytes = 1, /* HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES */
    .pref_min_alignment_a = -1,    /* hipBLASLt has no alignment preferences */
};
