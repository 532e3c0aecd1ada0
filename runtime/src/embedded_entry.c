/* pt2c_model_create for a model.so: the model is the one the compiler embedded.
 *
 * Kept out of runtime_core because it refers to symbols only a model.so defines; tests
 * link runtime_core and call pt2c_model_create_from with hand-built parts instead. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "content_hash.h"
#include "cpu_features.h"
#include "error.h"
#include "model.h"
#include "pt2c/weights_format.h"
#include "weights_file.h"

#define PT2C_EMBEDDED __attribute__((visibility("hidden")))

/* Defined by the compiler's generated object (see pt2c/plan_format.h). */
extern const unsigned char __pt2c_plan[] PT2C_EMBEDDED;
extern const uint64_t __pt2c_plan_size PT2C_EMBEDDED;
extern const uint64_t __pt2c_plan_checksum PT2C_EMBEDDED;
extern const unsigned char __pt2c_weights[] PT2C_EMBEDDED;
extern const uint64_t __pt2c_weights_size PT2C_EMBEDDED;
extern const pt2c_kernel_fn __pt2c_kernels[] PT2C_EMBEDDED;
/* Optional: the kernel table's length. Without it the table is trusted to hold the
 * plan's num_kernels entries (each is still checked to be non-null). */
extern const uint32_t __pt2c_num_kernels __attribute__((weak)) PT2C_EMBEDDED;

/* Only CUDA models carry a fatbin, only ROCm models a code object table; each is read
 * only for a plan of its device. */
extern const unsigned char __pt2c_cuda_fatbin[] __attribute__((weak)) PT2C_EMBEDDED;
extern const uint64_t __pt2c_cuda_fatbin_size __attribute__((weak)) PT2C_EMBEDDED;
extern const unsigned char __pt2c_rocm_code_objects[] __attribute__((weak)) PT2C_EMBEDDED;
extern const uint64_t __pt2c_rocm_code_objects_size __attribute__((weak)) PT2C_EMBEDDED;
/* The x86 features the CPU kernels were compiled for (comma-separated LLVM names) and
 * the LLVM CPU that implied them. Weak empty defaults, which the compiler's definitions
 * override, for objects without them (tests' hand-written ones): a weak *undefined*
 * hidden symbol does not read as NULL in a PIE, it resolves to the load address. */
PT2C_EMBEDDED __attribute__((weak)) const char __pt2c_cpu_features[] = "";
PT2C_EMBEDDED __attribute__((weak)) const char __pt2c_cpu[] = "";
/* A model compiled with --external-weights records its weights file here (its
 * __pt2c_weights is then empty); the weak default says "embedded". */
PT2C_EMBEDDED __attribute__((weak)) const pt2c_external_weights __pt2c_external_weights = {0};
/* How the kernels divide among threads (one entry per kernel table entry), or NULL. The
 * pointer is not const here: GCC folds a const weak variable's initializer into its uses,
 * and the compiler's definition would never be read. */
PT2C_EMBEDDED __attribute__((weak)) const pt2c_kernel_split *__pt2c_kernel_splits = NULL;
/* The buffer sizes the kernels were compiled for (plan_format.h), or NULL: read through
 * a pointer with a weak null default for the same reason. */
PT2C_EMBEDDED __attribute__((weak)) const pt2c_kernel_args *__pt2c_kernel_args = NULL;

/* The weights file's path: the caller's, else $PT2C_WEIGHTS, else this library's path
 * + ".weights". *out_path is malloc'ed. */
static pt2c_status weights_file_path(const char *weights_path, char **out_path) {
  const char *env = getenv("PT2C_WEIGHTS");
  const char *given = weights_path != NULL            ? weights_path
                      : env != NULL && env[0] != '\0' ? env
                                                      : NULL;
  const char *suffix = given != NULL ? "" : ".weights";
  if (given == NULL) {
    Dl_info info;
    if (dladdr((const void *)&pt2c_model_create, &info) == 0 || info.dli_fname == NULL)
      return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                       "this model keeps its weights in a separate file, and the library's "
                       "own path is unknown: pass the file to "
                       "pt2c_model_create_with_weights or set PT2C_WEIGHTS");
    given = info.dli_fname;
  }
  size_t length = strlen(given), suffix_length = strlen(suffix);
  *out_path = malloc(length + suffix_length + 1);
  if (*out_path == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a path");
  memcpy(*out_path, given, length);
  memcpy(*out_path + length, suffix, suffix_length + 1);
  return PT2C_OK;
}

/* Reads and checks the external weights file into private memory (weights_file.h says
 * why a copy and not a mapping). */
static pt2c_status open_weights(const char *weights_path, pt2c_weights_file *file) {
  char *path = NULL;
  pt2c_status status = weights_file_path(weights_path, &path);
  if (status != PT2C_OK)
    return status;
  const char *verify = getenv("PT2C_WEIGHTS_VERIFY");
  int verify_data = !(verify != NULL && strcmp(verify, "0") == 0);
  status = pt2c_weights_file_open(path, &__pt2c_external_weights, verify_data, file);
  free(path);
  return status;
}

PT2C_API pt2c_status pt2c_model_create(pt2c_model **out_model) {
  return pt2c_model_create_with_weights(NULL, out_model);
}

PT2C_API pt2c_status pt2c_model_create_with_weights(const char *weights_path,
                                                    pt2c_model **out_model) {
  if (out_model == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_create: out_model is null");
  *out_model = NULL;
  int external = __pt2c_external_weights.external != 0;
  if (!external && weights_path != NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT,
                     "pt2c_model_create_with_weights: this model embeds its weights and "
                     "takes no weights file (it was compiled without --external-weights)");
  /* Before anything runs: a kernel using an instruction this CPU lacks dies by SIGILL. */
  if (__pt2c_cpu_features[0] != '\0') {
    pt2c_status status =
        pt2c_cpu_features_check(__pt2c_cpu_features, __pt2c_cpu, pt2c_cpu_host_features());
    if (status != PT2C_OK)
      return status;
  }
  /* Before the plan is parsed: flipped bits in a damaged model.so are caught here, and
   * the parser's bounds checks remain for what a checksum cannot catch. */
  uint64_t checksum = pt2c_content_hash(__pt2c_plan, (size_t)__pt2c_plan_size);
  if (checksum != __pt2c_plan_checksum)
    return pt2c_fail(PT2C_ERROR_CORRUPT_MODEL,
                     "corrupt model: the embedded plan's checksum is %016" PRIx64
                     ", the compiler recorded %016" PRIx64
                     ": this model.so was damaged after it was built; rebuild it",
                     checksum, __pt2c_plan_checksum);
  uint32_t num_kernels = UINT32_MAX;
  if (&__pt2c_num_kernels != NULL)
    num_kernels = __pt2c_num_kernels;
  pt2c_model_source source = {
      .plan = __pt2c_plan,
      .plan_size = __pt2c_plan_size,
      .weights = __pt2c_weights,
      .weights_size = __pt2c_weights_size,
      .kernels = __pt2c_kernels,
      .num_kernels = num_kernels,
      .kernel_splits = __pt2c_kernel_splits,
      .kernel_arg_first = __pt2c_kernel_args ? __pt2c_kernel_args->first : NULL,
      .kernel_arg_bytes = __pt2c_kernel_args ? __pt2c_kernel_args->bytes : NULL,
      .cuda_fatbin = __pt2c_cuda_fatbin,
      .cuda_fatbin_size = &__pt2c_cuda_fatbin_size != NULL ? __pt2c_cuda_fatbin_size : 0,
      .rocm_code_objects = __pt2c_rocm_code_objects,
      .rocm_code_objects_size =
          &__pt2c_rocm_code_objects_size != NULL ? __pt2c_rocm_code_objects_size : 0,
  };
  pt2c_weights_file file = {0};
  if (external) {
    pt2c_status status = open_weights(weights_path, &file);
    if (status != PT2C_OK)
      return status;
    source.weights = file.blob;
    source.weights_size = file.blob_size;
  }
  pt2c_status status = pt2c_model_create_from(&source, out_model);
  if (status != PT2C_OK || !external) {
    pt2c_weights_file_close(&file);
    return status;
  }
  /* A GPU model has copied its weights to the device: the host copy is no longer read. */
  if (pt2c_model_device(*out_model) != PT2C_DEVICE_CPU)
    pt2c_weights_file_close(&file);
  else
    (*out_model)->weights_file = file;
  return PT2C_OK;
}
