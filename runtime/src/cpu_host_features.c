/* What this CPU has (cpuid) and the OS lets programs use (xgetbv), by the bits of
 * cpu_feature_table.h. Its own library (`:cpu_host_features`): the model's feature check
 * (cpu_features.c) and the microkernels' ISA choice (cpu/cpu_isa.c) both read it. */
#include <string.h>

#include "cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PT2C_HAVE_CPUID 1
#endif

enum { PT2C_CPUID_EAX, PT2C_CPUID_EBX, PT2C_CPUID_ECX, PT2C_CPUID_EDX };
enum { NONE, YMM, ZMM };

typedef struct feature {
  const char *name;
  uint32_t leaf, subleaf;
  int reg, bit, os_state;
} feature;

static const feature kFeatures[] = {
#define PT2C_CPU_FEATURE(name, leaf, subleaf, reg, bit, os_state)                                  \
  {name, leaf, subleaf, reg, bit, os_state},
#include "cpu_feature_table.h"
#undef PT2C_CPU_FEATURE
};
enum { kNumFeatures = sizeof(kFeatures) / sizeof(kFeatures[0]) };
_Static_assert(kNumFeatures <= 64, "pt2c_cpu_feature_set has one bit per feature");

#ifdef PT2C_HAVE_CPUID
/* XCR0: which register state the OS saves on a context switch. Without the YMM bits an
 * AVX instruction faults even on a CPU that has it. */
static uint64_t os_saved_state(void) {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27))) /* OSXSAVE */
    return 0;
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}
#endif

pt2c_cpu_feature_set pt2c_cpu_host_features(void) {
  pt2c_cpu_feature_set set = 0;
#ifdef PT2C_HAVE_CPUID
  uint64_t xcr0 = os_saved_state();
  int ymm = (xcr0 & 0x6) == 0x6;          /* SSE + AVX state */
  int zmm = ymm && (xcr0 & 0xe0) == 0xe0; /* opmask + ZMM_Hi256 + Hi16_ZMM */
  for (int i = 0; i < kNumFeatures; ++i) {
    const feature *f = &kFeatures[i];
    unsigned regs[4];
    /* __get_cpuid_count fails for a leaf above the CPU's maximum (basic or extended). */
    if (!__get_cpuid_count(f->leaf, f->subleaf, &regs[0], &regs[1], &regs[2], &regs[3]))
      continue;
    if (!(regs[f->reg] & (1u << f->bit)))
      continue;
    if ((f->os_state == YMM && !ymm) || (f->os_state == ZMM && !zmm))
      continue;
    set |= (pt2c_cpu_feature_set)1 << i;
  }
#endif
  return set;
}

pt2c_cpu_feature_set pt2c_cpu_feature_bit(const char *name, uint64_t len) {
  for (int i = 0; i < kNumFeatures; ++i)
    if (strlen(kFeatures[i].name) == len && memcmp(kFeatures[i].name, name, len) == 0)
      return (pt2c_cpu_feature_set)1 << i;
  return 0;
}
