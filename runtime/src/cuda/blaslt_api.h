/* The "Lt" GEMM libraries the GEMM steps call (cuda_gemm.c): NVIDIA's cuBLASLt for CUDA
 * plans (cublaslt.c) and AMD's hipBLASLt for ROCm plans (../rocm/hipblaslt.c). Internal.
 *
 * hipBLASLt copies cuBLASLt's C API call for call: the same functions (hipblasLtCreate for
 * cublasLtCreate, ...) with the same parameters in the same order, handles that are
 * pointers, enums passed as ints, and a heuristic result laid out as {algo, size_t
 * workspaceSize, status state, float wavesCount, int reserved[4]}. What differs is the
 * names, the numbers of the enums and attributes, and the size of the algorithm struct;
 * a dialect records those, so that one implementation of the GEMM steps serves both.
 * No vendor header is needed: the declarations are these. */
#ifndef PT2C_RUNTIME_CUDA_BLASLT_API_H_
#define PT2C_RUNTIME_CUDA_BLASLT_API_H_

#include <stddef.h>
#include <stdint.h>

#include "cuda_driver.h"
#include "cuda_library.h"

typedef int pt2c_blaslt_status; /* 0 is success in both libraries */
typedef void *pt2c_blaslt_handle;
typedef void *pt2c_blaslt_desc;
typedef void *pt2c_blaslt_layout;
typedef void *pt2c_blaslt_preference;

/* The functions, as members of the table a dialect's library fills with dlsym. */
typedef struct pt2c_blaslt_api {
  pt2c_blaslt_status (*Create)(pt2c_blaslt_handle *);
  pt2c_blaslt_status (*Destroy)(pt2c_blaslt_handle);
  pt2c_blaslt_status (*MatmulDescCreate)(pt2c_blaslt_desc *, int compute, int scale_type);
  pt2c_blaslt_status (*MatmulDescDestroy)(pt2c_blaslt_desc);
  pt2c_blaslt_status (*MatmulDescSetAttribute)(pt2c_blaslt_desc, int, const void *, size_t);
  pt2c_blaslt_status (*MatrixLayoutCreate)(pt2c_blaslt_layout *, int type, uint64_t rows,
                                           uint64_t cols, int64_t ld);
  pt2c_blaslt_status (*MatrixLayoutDestroy)(pt2c_blaslt_layout);
  pt2c_blaslt_status (*MatrixLayoutSetAttribute)(pt2c_blaslt_layout, int, const void *, size_t);
  pt2c_blaslt_status (*MatmulPreferenceCreate)(pt2c_blaslt_preference *);
  pt2c_blaslt_status (*MatmulPreferenceDestroy)(pt2c_blaslt_preference);
  pt2c_blaslt_status (*MatmulPreferenceSetAttribute)(pt2c_blaslt_preference, int, const void *,
                                                     size_t);
  /* `results`: `requested` heuristic results of the dialect's layout (result_bytes). */
  pt2c_blaslt_status (*MatmulAlgoGetHeuristic)(pt2c_blaslt_handle, pt2c_blaslt_desc,
                                               pt2c_blaslt_layout a, pt2c_blaslt_layout b,
                                               pt2c_blaslt_layout c, pt2c_blaslt_layout d,
                                               pt2c_blaslt_preference, int requested, void *results,
                                               int *returned);
  pt2c_blaslt_status (*Matmul)(pt2c_blaslt_handle, pt2c_blaslt_desc, const void *alpha,
                               const void *a, pt2c_blaslt_layout, const void *b, pt2c_blaslt_layout,
                               const void *beta, const void *c, pt2c_blaslt_layout, void *d,
                               pt2c_blaslt_layout, const void *algo, void *workspace,
                               size_t workspace_size, CUstream stream);
} pt2c_blaslt_api;

/* The largest algorithm struct of a dialect (cuBLASLt's: 8 x uint64_t). */
enum { PT2C_BLASLT_MAX_ALGO_BYTES = 64 };

/* One library: where to find it and its numbers. An attribute of -1 is never set. */
typedef struct pt2c_blaslt_dialect {
  const char *name;           /* "cuBLASLt", for messages */
  const char *matmul_name;    /* "cublasLtMatmul" */
  const char *switch_env;     /* "=0" turns the library off: every GEMM runs its fallback */
  const char *tf32_env;       /* "=1" lets f32 GEMMs use compute_32f_fast_tf32; NULL: never */
  pt2c_cuda_library *library; /* the symbols fill a pt2c_blaslt_api */
  size_t algo_bytes;          /* sizeof the library's MatmulAlgo_t, a multiple of 8 */
  int op_n, op_t;
  int compute_32f, compute_32f_fast_tf32;
  int r_32f, r_16f, r_16bf;
  int desc_transa, desc_transb, desc_epilogue, desc_bias_pointer, desc_bias_data_type;
  int epilogue_default, epilogue_bias, epilogue_relu_bias;
  int layout_batch_count, layout_strided_batch_offset;
  int pref_max_workspace_bytes;
  int pref_min_alignment_a; /* then B, C, D */
} pt2c_blaslt_dialect;

extern const pt2c_blaslt_dialect pt2c_cublaslt_dialect;  /* cublaslt.c */
extern const pt2c_blaslt_dialect pt2c_hipblaslt_dialect; /* ../rocm/hipblaslt.c */

#endif /* PT2C_RUNTIME_CUDA_BLASLT_API_H_ */
