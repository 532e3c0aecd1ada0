/* Which GEMM/convolution kernels this CPU may run (cpu_gemm.h).
 *
 * The features come from cpu_feature_table.h (where cpuid reports each, and the register
 * state the OS must save), read here with a cpuid loop of our own rather than through
 * cpu_features.c's pt2c_cpu_host_features: that file lives in runtime_core, which depends
 * on this library, and a static library may not call back into one linked before it. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_gemm.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

enum { PT2C_CPUID_EAX, PT2C_CPUID_EBX, PT2C_CPUID_ECX, PT2C_CPUID_EDX };
enum { NONE, YMM, ZMM };

typedef struct feature {
  const char* name;
  unsigned leaf, subleaf;
  int reg, bit, os_state;
} feature;

static const feature kFeatures[] = {
#define PT2C_CPU_FEATURE(name, leaf, subleaf, reg, bit, os_state) \
  {name, leaf, subleaf, reg, bit, os_state},
#include "runtime/src/cpu_feature_table.h"
#undef PT2C_CPU_FEATURE
};

/* XCR0 (xgetbv): the register state the OS saves; 0 without OSXSAVE. */
static unsigned long long os_saved_state(void) {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27))) return 0;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}

/* Whether the CPU has every named feature and the OS saves the registers it needs. */
static int has_all(const char* const* names) {
  unsigned long long xcr0 = os_saved_state();
  int ymm = (xcr0 & 0x6) == 0x6, zmm = ymm && (xcr0 & 0xe0) == 0xe0;
  for (; *names; ++names) {
    const feature* f = NULL;
    for (size_t i = 0; i < sizeof(kFeatures) / sizeof(kFeatures[0]); ++i)
      if (strcmp(kFeatures[i].name, *names) == 0) f = &kFeatures[i];
    unsigned regs[4];
    if (!f || !__get_cpuid_count(f->leaf, f->subleaf, &regs[0], &regs[1], &regs[2], &regs[3]))
      return 0;
    if (!(regs[f->reg] & (1u << f->bit))) return 0;
    if ((f->os_state == YMM && !ymm) || (f->os_state == ZMM && !zmm)) return 0;
  }
  return 1;
}
#else
static int has_all(const char* const* names) { return 0; }
#endif

pt2c_cpu_isa pt2c_cpu_host_isa(void) {
  static atomic_int cached = -1;
  int isa = atomic_load_explicit(&cached, memory_order_relaxed);
  if (isa >= 0) return (pt2c_cpu_isa)isa;
  static const char* const kAvx2[] = {"avx2", "fma", NULL};
  static const char* const kAvx512[] = {"avx512f", "avx512bw", "avx512vl", "avx512dq", NULL};
  isa = PT2C_CPU_ISA_GENERIC;
  if (has_all(kAvx2)) isa = has_all(kAvx512) ? PT2C_CPU_ISA_AVX512 : PT2C_CPU_ISA_AVX2;
  atomic_store_explicit(&cached, isa, memory_order_relaxed);
  return (pt2c_cpu_isa)isa;
}

static atomic_int g_override = -1;

void pt2c_cpu_set_isa_override(int isa) { atomic_store(&g_override, isa); }

/* $PT2C_CPU_ISA, read once: -1 when unset or unknown. */
static int env_isa(void) {
  static atomic_int cached = -2;
  int isa = atomic_load_explicit(&cached, memory_order_relaxed);
  if (isa != -2) return isa;
  const char* env = getenv("PT2C_CPU_ISA");
  isa = -1;
  if (env && strcmp(env, "generic") == 0) isa = PT2C_CPU_ISA_GENERIC;
  if (env && strcmp(env, "avx2") == 0) isa = PT2C_CPU_ISA_AVX2;
  if (env && strcmp(env, "avx512") == 0) isa = PT2C_CPU_ISA_AVX512;
  atomic_store_explicit(&cached, isa, memory_order_relaxed);
  return isa;
}

pt2c_cpu_isa pt2c_cpu_best_isa(void) {
  int isa = pt2c_cpu_host_isa();
  int forced = atomic_load(&g_override);
  if (forced < 0) forced = env_isa();
  if (forced >= 0 && forced < isa) isa = forced;
  return (pt2c_cpu_isa)isa;
}
