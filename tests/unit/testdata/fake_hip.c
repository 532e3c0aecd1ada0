/* A stand-in for libamdhip64.so so that the runtime's ROCm path runs on machines without
 * an AMD GPU (PT2C_LIBAMDHIP64=libfake_hip.so): the fake CUDA driver's implementation
 * (fake_gpu_driver.inc: host memory, checked pointers, streams and graphs, the log) under
 * HIP's names, with HIP's own parts here: a module image must be an AMD GPU code object
 * (ELF, HSA OS/ABI, EM_AMDGPU) for the fake device's architecture, and error texts are
 * returned rather than written through a pointer.
 *
 * Environment: FAKE_HIP_ARCH (the device's gfx name, default gfx90a), FAKE_HIP_INIT_ERROR
 * (hipInit's result), FAKE_HIP_LAUNCH_ERROR (hipModuleLaunchKernel's), FAKE_HIP_LOG (one
 * line per copy and per launch, as FAKE_CUDA_LOG); fake_hip_stats_get gives the counts. */
#define FAKE_ENTRY(cu, hip) hip
#define FAKE_ENV(name) "FAKE_HIP_" name
#define FAKE_STATS_GET fake_hip_stats_get
static int fake_image_runs_on(const unsigned char *image);
#include "fake_gpu_driver.inc"

/* The EF_AMDGPU_MACH values of e_flags (LLVM's ELF.h) the tests use. */
static const struct {
  const char *arch;
  unsigned mach;
} kMachs[] = {{"gfx908", 0x30},  {"gfx90a", 0x3f},  {"gfx940", 0x40},
              {"gfx941", 0x4b},  {"gfx942", 0x4c},  {"gfx1030", 0x36},
              {"gfx1100", 0x41}, {"gfx1101", 0x46}, {"gfx1102", 0x47}};

static int device_mach(void) {
  const char *arch = getenv("FAKE_HIP_ARCH");
  if (arch == NULL || arch[0] == '\0')
    arch = "gfx90a";
  for (size_t i = 0; i < sizeof(kMachs) / sizeof(kMachs[0]); ++i)
    if (strcmp(arch, kMachs[i].arch) == 0)
      return (int)kMachs[i].mach;
  return -1;
}

/* An ELF64 shared object for amdgcn-amd-amdhsa, for this device's architecture. */
static int fake_image_runs_on(const unsigned char *image) {
  enum { kOsAbiAmdgpuHsa = 64, kEmAmdgpu = 224, kMachMask = 0xff };
  uint16_t type, machine, shentsize, shnum;
  uint32_t flags;
  uint64_t shoff;
  if (memcmp(image, "\177ELF", 4) != 0 || image[4] != 2 /* ELFCLASS64 */)
    return -1;
  memcpy(&type, image + 16, 2);
  memcpy(&machine, image + 18, 2);
  memcpy(&shoff, image + 40, 8);
  memcpy(&flags, image + 48, 4);
  memcpy(&shentsize, image + 58, 2);
  memcpy(&shnum, image + 60, 2);
  if (image[7] != kOsAbiAmdgpuHsa || machine != kEmAmdgpu || type != 3 /* ET_DYN */)
    return -1;
  g_module_size = shoff + (size_t)shentsize * shnum; /* the section headers come last */
  return (int)(flags & kMachMask) == device_mach();
}

API CUresult hipDeviceGetAttribute(int *value, int attribute, int device) {
  return kInvalidValue; /* the runtime asks HIP for none */
}

API const char *hipGetErrorName(CUresult error) {
  switch (error) {
  case 100:
    return "hipErrorNoDevice";
  case 209:
    return "hipErrorNoBinaryForGpu";
  case 719:
    return "hipErrorLaunchFailure";
  default:
    return "hipErrorFake";
  }
}
API const char *hipGetErrorString(CUresult error) { return "fake HIP error"; }
