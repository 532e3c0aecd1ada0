/* Which GEMM/convolution kernels this CPU may run (cpu_gemm.h), from the features
 * cpu_host_features.c reads (cpuid, and the register state the OS saves). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu_features.h"
#include "cpu_gemm.h"

/* Whether the CPU has every named feature of cpu_feature_table.h. */
static int has_all(const char *const *names) {
  pt2c_cpu_feature_set host = pt2c_cpu_host_features();
  for (; *names; ++names) {
    pt2c_cpu_feature_set bit = pt2c_cpu_feature_bit(*names, strlen(*names));
    if (bit == 0 || !(host & bit))
      return 0;
  }
  return 1;
}

pt2c_cpu_isa pt2c_cpu_host_isa(void) {
  static atomic_int cached = -1;
  int isa = atomic_load_explicit(&cached, memory_order_relaxed);
  if (isa >= 0)
    return (pt2c_cpu_isa)isa;
  static const char *const kAvx2[] = {"avx2", "fma", NULL};
  static const char *const kAvx512[] = {"avx512f", "avx512bw", "avx512vl", "avx512dq", NULL};
  static const char *const kBf16[] = {"avx512bf16", NULL};
  isa = PT2C_CPU_ISA_GENERIC;
  if (has_all(kAvx2))
    isa = has_all(kAvx512) ? PT2C_CPU_ISA_AVX512 : PT2C_CPU_ISA_AVX2;
  if (isa == PT2C_CPU_ISA_AVX512 && has_all(kBf16))
    isa = PT2C_CPU_ISA_AVX512_BF16;
  atomic_store_explicit(&cached, isa, memory_order_relaxed);
  return (pt2c_cpu_isa)isa;
}

static atomic_int g_override = -1;

void pt2c_cpu_set_isa_override(int isa) { atomic_store(&g_override, isa); }

/* $PT2C_CPU_ISA, read once: -1 when unset or unknown. */
static int env_isa(void) {
  static atomic_int cached = -2;
  int isa = atomic_load_explicit(&cached, memory_order_relaxed);
  if (isa != -2)
    return isa;
  const char *env = getenv("PT2C_CPU_ISA");
  isa = -1;
  if (env && strcmp(env, "generic") == 0)
    isa = PT2C_CPU_ISA_GENERIC;
  if (env && strcmp(env, "avx2") == 0)
    isa = PT2C_CPU_ISA_AVX2;
  if (env && strcmp(env, "avx512") == 0)
    isa = PT2C_CPU_ISA_AVX512;
  if (env && strcmp(env, "avx512bf16") == 0)
    isa = PT2C_CPU_ISA_AVX512_BF16;
  atomic_store_explicit(&cached, isa, memory_order_relaxed);
  return isa;
}

pt2c_cpu_isa pt2c_cpu_best_isa(void) {
  int isa = pt2c_cpu_host_isa();
  int forced = atomic_load(&g_override);
  if (forced < 0)
    forced = env_isa();
  if (forced >= 0 && forced < isa)
    isa = forced;
  return (pt2c_cpu_isa)isa;
}
