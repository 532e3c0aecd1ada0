/* pt2c_model_create for a model.so: the model is the one the compiler embedded.
 *
 * Kept out of runtime_core because it refers to symbols only a model.so defines; tests
 * link runtime_core and call pt2c_model_create_from with hand-built parts instead. */
#include <stdint.h>

#include "cpu_features.h"
#include "model.h"

#define PT2C_EMBEDDED __attribute__((visibility("hidden")))

/* Defined by the compiler's generated object (see pt2c/plan_format.h). */
extern const unsigned char __pt2c_plan[] PT2C_EMBEDDED;
extern const uint64_t __pt2c_plan_size PT2C_EMBEDDED;
extern const unsigned char __pt2c_weights[] PT2C_EMBEDDED;
extern const uint64_t __pt2c_weights_size PT2C_EMBEDDED;
extern const pt2c_kernel_fn __pt2c_kernels[] PT2C_EMBEDDED;
/* Optional: the kernel table's length. Without it the table is trusted to hold the
 * plan's num_kernels entries (each is still checked to be non-null). */
extern const uint32_t __pt2c_num_kernels __attribute__((weak)) PT2C_EMBEDDED;
/* Only CUDA models carry a fatbin. */
extern const unsigned char __pt2c_cuda_fatbin[] __attribute__((weak)) PT2C_EMBEDDED;
extern const uint64_t __pt2c_cuda_fatbin_size __attribute__((weak)) PT2C_EMBEDDED;
/* The x86 features the CPU kernels were compiled for (comma-separated LLVM names) and
 * the LLVM CPU that implied them. Weak empty defaults, which the compiler's definitions
 * override, for objects without them (tests' hand-written ones): a weak *undefined*
 * hidden symbol does not read as NULL in a PIE, it resolves to the load address. */
PT2C_EMBEDDED __attribute__((weak)) const char __pt2c_cpu_features[] = "";
PT2C_EMBEDDED __attribute__((weak)) const char __pt2c_cpu[] = "";

PT2C_API pt2c_status pt2c_model_create(pt2c_model** out_model) {
  /* Before anything runs: a kernel using an instruction this CPU lacks dies by SIGILL. */
  if (out_model != NULL && __pt2c_cpu_features[0] != '\0') {
    *out_model = NULL;
    pt2c_status status =
        pt2c_cpu_features_check(__pt2c_cpu_features, __pt2c_cpu, pt2c_cpu_host_features());
    if (status != PT2C_OK) return status;
  }
  uint32_t num_kernels = UINT32_MAX;
  if (&__pt2c_num_kernels != NULL) num_kernels = __pt2c_num_kernels;
  pt2c_model_source source = {
      .plan = __pt2c_plan,
      .plan_size = __pt2c_plan_size,
      .weights = __pt2c_weights,
      .weights_size = __pt2c_weights_size,
      .kernels = __pt2c_kernels,
      .num_kernels = num_kernels,
      .cuda_fatbin = __pt2c_cuda_fatbin,
      .cuda_fatbin_size = &__pt2c_cuda_fatbin_size != NULL ? __pt2c_cuda_fatbin_size : 0,
  };
  return pt2c_model_create_from(&source, out_model);
}
