/* Refuses a model whose CPU kernels need x86 features this CPU lacks: running them would
 * end in SIGILL somewhere inside a run, far from any message. Internal. */
#ifndef PT2C_RUNTIME_CPU_FEATURES_H_
#define PT2C_RUNTIME_CPU_FEATURES_H_

#include <stdint.h>

#include "pt2c/pt2c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bit i stands for entry i of cpu_feature_table.h. */
typedef uint64_t pt2c_cpu_feature_set;

/* The features this CPU has and the OS lets programs use (cpuid + xgetbv). */
pt2c_cpu_feature_set pt2c_cpu_host_features(void);

/* The bit of an LLVM feature name (len bytes, no NUL needed); 0 for a name not in the
 * table. */
pt2c_cpu_feature_set pt2c_cpu_feature_bit(const char *name, uint64_t len);

/* Checks `required` (comma-separated LLVM feature names, as the compiler recorded
 * them for the LLVM CPU `cpu_name`) against `host`. PT2C_ERROR_UNSUPPORTED, with a
 * message naming what is missing, when a feature is absent or unknown. */
pt2c_status pt2c_cpu_features_check(const char *required, const char *cpu_name,
                                    pt2c_cpu_feature_set host);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CPU_FEATURES_H_ */
