/* A stand-in for libcublasLt.so (PT2C_LIBCUBLASLT=libfake_cublaslt.so) for the runtime's
 * GEMM steps without a GPU: fake_blaslt.inc with cuBLASLt's names and numbers (cublasLt.h,
 * CUDA 12 and 13). No log. Environment: FAKE_CUBLASLT_NO_ALGO=1,
 * FAKE_CUBLASLT_MATMUL_ERROR=N. Tests read fake_cublaslt_matmuls() and
 * fake_cublaslt_last_compute() (68 = 32F, 77 = 32F_FAST_TF32). */
#define FAKE_BLAS(name) cublasLt##name
#define FAKE_BLAS_GET(name) fake_cublaslt_##name
#define FAKE_BLAS_ENV(name) "FAKE_CUBLASLT_" name
#define FAKE_BLAS_NAME "cublaslt"
#define FAKE_BLAS_LOG_ENV "" /* no log */
#define FAKE_OP_N 0
#define FAKE_OP_T 1
#define FAKE_COMPUTE_32F 68
#define FAKE_COMPUTE_32F_FAST_TF32 77
#define FAKE_ALGO_BYTES 64
#define FAKE_ATTR_TRANSA 3
#define FAKE_ATTR_TRANSB 4
#define FAKE_ATTR_EPILOGUE 7
#define FAKE_ATTR_BIAS_POINTER 8
#define FAKE_ATTR_BIAS_DATA_TYPE 26
#define FAKE_LAYOUT_BATCH_COUNT 5
#define FAKE_LAYOUT_STRIDED_BATCH_OFFSET 6
#include "fake_blaslt.inc"
