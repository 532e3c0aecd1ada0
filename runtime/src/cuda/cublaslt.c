/* cuBLASLt as the GEMM library of CUDA plans (see blaslt_api.h): libcublasLt.so.13, else
 * .so.12, by dlopen ($PT2C_LIBCUBLASLT), and the numbers of cublasLt.h, cublas_api.h and
 * library_types.h (CUDA 12 and 13). */
#include "blaslt_api.h"

#define ENTRY(member, name) {offsetof(pt2c_blaslt_api, member), name}
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

static pt2c_blaslt_api g_api;
static pt2c_cuda_library g_library = {
    .env = "PT2C_LIBCUBLASLT",
    .sonames = {"libcublasLt.so.13", "libcublasLt.so.12"},
    .symbols = kSymbols,
    .num_symbols = sizeof(kSymbols) / sizeof(kSymbols[0]),
    .api = &g_api,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

const pt2c_blaslt_dialect pt2c_cublaslt_dialect = {
    .name = "cuBLASLt",
    .matmul_name = "cublasLtMatmul",
    .switch_env = "PT2C_CUBLASLT",
    .tf32_env = "PT2C_CUDA_TF32",
    .library = &g_library,
    .algo_bytes = 64, /* cublasLtMatmulAlgo_t: uint64_t data[8] */
    .op_n = 0,        /* CUBLAS_OP_N */
    .op_t = 1,
    .compute_32f = 68, /* CUBLAS_COMPUTE_32F */
    .compute_32f_fast_tf32 = 77,
    .r_32f = 0, /* CUDA_R_32F */
    .r_16f = 2,
    .r_16bf = 14,
    .desc_transa = 3, /* CUBLASLT_MATMUL_DESC_TRANSA */
    .desc_transb = 4,
    .desc_epilogue = 7,
    .desc_bias_pointer = 8,
    .desc_bias_data_type = -1, /* the default, D's type, is the plan's */
    .epilogue_default = 1,     /* CUBLASLT_EPILOGUE_DEFAULT */
    .epilogue_bias = 4,
    .epilogue_relu_bias = 6,
    .layout_batch_count = 5, /* CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT */
    .layout_strided_batch_offset = 6,
    .pref_max_workspace_bytes = 1, /* CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES */
    .pref_min_alignment_a = 5,     /* CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES */
};
