/* A stand-in for libhipblaslt.so (PT2C_LIBHIPBLASLT=libfake_hipblaslt.so) for the runtime's
 * GEMM steps of ROCm plans without an AMD GPU: fake_blaslt.inc with hipBLASLt's names and
 * numbers (hipblaslt.h and hipblas-common.h of ROCm 6: HIPBLAS_OP_N 111, HIPBLAS_COMPUTE_32F
 * 2, attributes from 0, a 24-byte hipblasLtMatmulAlgo_t), so a runtime that passed
 * cuBLASLt's numbers would be refused. Memory is the fake HIP's (host memory).
 *
 * Environment: FAKE_HIPBLASLT_NO_ALGO=1, FAKE_HIPBLASLT_MATMUL_ERROR=N, FAKE_HIP_LOG (the
 * fake HIP's log, which gets a "hipblaslt matmul ..." line per matmul). */
#define FAKE_BLAS(name) hipblasLt##name
#define FAKE_BLAS_GET(name) fake_hipblaslt_##name
#define FAKE_BLAS_ENV(name) "FAKE_HIPBLASLT_" name
#define FAKE_BLAS_NAME "hipblaslt"
#define FAKE_BLAS_LOG_ENV "FAKE_HIP_LOG"
#define FAKE_OP_N 111
#define FAKE_OP_T 112
#define FAKE_COMPUTE_32F 2
#define FAKE_COMPUTE_32F_FAST_TF32 6
#define FAKE_ALGO_BYTES 24
#define FAKE_ATTR_TRANSA 0
#define FAKE_ATTR_TRANSB 1
#define FAKE_ATTR_EPILOGUE 2
#define FAKE_ATTR_BIAS_POINTER 3
#define FAKE_ATTR_BIAS_DATA_TYPE 4
#define FAKE_LAYOUT_BATCH_COUNT 0
#define FAKE_LAYOUT_STRIDED_BATCH_OFFSET 1
#include "fake_blaslt.inc"
