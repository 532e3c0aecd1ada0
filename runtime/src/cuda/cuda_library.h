/* What the GEMM steps (cuBLASLt, cuda_gemm.c) and the convolution steps (cuDNN,
 * cuda_conv.c) share: a vendor library loaded with dlopen once per process, the
 * environment switches, and the memory of their step tables and workspaces. Internal. */
#ifndef PT2C_RUNTIME_CUDA_LIBRARY_H_
#define PT2C_RUNTIME_CUDA_LIBRARY_H_

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../error.h"
#include "cuda_driver.h"

/* An entry point: where its pointer goes in the library's function table, and its name. */
typedef struct pt2c_cuda_symbol {
  size_t offset;
  const char *name;
} pt2c_cuda_symbol;

/* A library loaded at most once per process: a failure is not retried. */
typedef struct pt2c_cuda_library {
  const char *env;                 /* names a file to load instead of the sonames */
  const char *sonames[2];          /* tried in order; NULL ends the list early */
  const pt2c_cuda_symbol *symbols; /* every entry point, all required */
  size_t num_symbols;
  int (*usable)(const void *api); /* NULL, or whether the loaded table will do */
  void *api;                      /* the function table the symbols fill */
  pthread_mutex_t lock;
  int state; /* 0 not tried, 1 loaded, -1 unavailable */
} pt2c_cuda_library;

/* The library's function table, or NULL when there is none; the handle stays open. */
const void *pt2c_cuda_library_load(pt2c_cuda_library *library);

/* Whether the environment variable `name` is set to `value`. */
int pt2c_cuda_env_is(const char *name, const char *value);

/* A zeroed step table of `size` bytes, its `count` zeroed entries of `entry_size` bytes
 * at *entries (room for one when count is 0); NULL, with nothing allocated, when memory
 * runs out. */
void *pt2c_cuda_table_alloc(size_t size, uint32_t count, size_t entry_size, void **entries);

/* Whether every one of the `count` addresses is a multiple of `alignment` (what a library
 * call's operands must be for the algorithm picked at create). */
int pt2c_cuda_all_aligned(const CUdeviceptr *addresses, uint32_t count, uint64_t alignment);

/* `bytes` of device memory at *workspace (nothing to do for 0); on failure *workspace is 0
 * and the error says "<what>: <the driver's error>". */
pt2c_status pt2c_cuda_workspace_alloc(const pt2c_cuda_driver *cu, size_t bytes,
                                      CUdeviceptr *workspace, const char *what);

#endif /* PT2C_RUNTIME_CUDA_LIBRARY_H_ */
