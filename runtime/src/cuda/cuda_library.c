/* Vendor libraries and their tables (see cuda_library.h). */
#include "cuda_library.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static void *open_library(const pt2c_cuda_library *library) {
  const char *name = getenv(library->env);
  if (name != NULL && name[0] != '\0')
    return dlopen(name, RTLD_NOW | RTLD_LOCAL);
  void *handle = NULL;
  for (int i = 0; i < 2 && handle == NULL && library->sonames[i] != NULL; ++i)
    handle = dlopen(library->sonames[i], RTLD_NOW | RTLD_LOCAL);
  return handle;
}

const void *pt2c_cuda_library_load(pt2c_cuda_library *library) {
  pthread_mutex_lock(&library->lock);
  if (library->state == 0) {
    void *handle = open_library(library);
    library->state = handle != NULL ? 1 : -1;
    for (size_t i = 0; library->state == 1 && i < library->num_symbols; ++i) {
      void *symbol = dlsym(handle, library->symbols[i].name);
      if (symbol == NULL)
        library->state = -1;
      else /* POSIX: data and function pointers have the same representation */
        memcpy((char *)library->api + library->symbols[i].offset, &symbol, sizeof(symbol));
    }
    if (library->state == 1 && library->usable != NULL && !library->usable(library->api))
      library->state = -1;
    if (library->state != 1 && handle != NULL)
      dlclose(handle);
  }
  pthread_mutex_unlock(&library->lock);
  return library->state == 1 ? library->api : NULL;
}

int pt2c_cuda_env_is(const char *name, const char *value) {
  const char *setting = getenv(name);
  return setting != NULL && strcmp(setting, value) == 0;
}

void *pt2c_cuda_table_alloc(size_t size, uint32_t count, size_t entry_size, void **entries) {
  void *table = calloc(1, size);
  *entries = table != NULL ? calloc(count > 0 ? count : 1, entry_size) : NULL;
  if (*entries == NULL) {
    free(table);
    return NULL;
  }
  return table;
}

int pt2c_cuda_all_aligned(const CUdeviceptr *addresses, uint32_t count, uint64_t alignment) {
  for (uint32_t i = 0; i < count; ++i)
    if (addresses[i] % alignment != 0)
      return 0;
  return 1;
}

pt2c_status pt2c_cuda_workspace_alloc(const pt2c_cuda_driver *cu, size_t bytes,
                                      CUdeviceptr *workspace, const char *what) {
  if (bytes == 0)
    return PT2C_OK;
  CUresult result = cu->MemAlloc(workspace, bytes);
  if (result == CUDA_SUCCESS)
    return PT2C_OK;
  *workspace = 0;
  return pt2c_cuda_fail(cu, result, pt2c_cuda_status(result), what);
}
