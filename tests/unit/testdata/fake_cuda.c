/* A stand-in for libcuda.so.1 so that the runtime's CUDA path runs on machines without a
 * GPU (PT2C_LIBCUDA=libfake_cuda.so). "Device memory" is host memory; the functions
 * check what a real driver would reject (unknown or overrun device pointers, a module
 * without an image for the device, a kernel name not in the module) and record what
 * happened for the tests (fake_cuda_stats).
 *
 * Kernels: names starting with "fake_" are emulated on the host (f32, one thread per
 * element, 1-D launches): fake_add(a, b, out), fake_triple(in, out). Any other name is
 * found if its bytes occur in the loaded fatbin (a real model's cubins); launching it
 * does nothing but count.
 *
 * Streams and graphs: launches on a stream that is capturing (cuStreamBeginCapture_v2 on
 * a stream from cuStreamCreate) are recorded, not run; cuGraphLaunch runs the recorded
 * launches in order, as launches on its stream (the log and stats show them then).
 * cuLaunchHostFunc calls its function at once, or records it the same way while the stream
 * captures (fake_cudnn.c queues its host-computed convolutions so);
 * FAKE_CUDA_CAPTURE_HOST_FUNC_ERROR=1 refuses it while capturing, as a real driver refuses
 * work a capture does not allow.
 *
 * Environment: FAKE_CUDA_SM (compute capability as 80, 90; default 80),
 * FAKE_CUDA_INIT_ERROR (cuInit's result), FAKE_CUDA_LAUNCH_ERROR (cuLaunchKernel's),
 * FAKE_CUDA_REJECT_CUBINS=1 (a driver older than the toolkit: only PTX loads),
 * FAKE_CUDA_LOG (a file that gets one line per copy and per launch of a kernel that is
 * not emulated, for tests of a whole model.so: "htod BYTES", "dtoh BYTES",
 * "launch NAME GX GY GZ BX BY BZ SHARED_BYTES").
 *
 * The driver itself is fake_gpu_driver.inc, which fake_hip.c shares; this file is what is
 * CUDA's own: the fatbin check, compute capabilities and error names. */
#define FAKE_ENTRY(cu, hip) cu
#define FAKE_ENV(name) "FAKE_CUDA_" name
#define FAKE_STATS_GET fake_cuda_stats_get
static int fake_image_runs_on(const unsigned char *image);
#include "fake_gpu_driver.inc"

API CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  int sm = env_int("FAKE_CUDA_SM", 80);
  if (attribute == 75)
    *value = sm / 10;
  else if (attribute == 76)
    *value = sm % 10;
  else
    return kInvalidValue;
  return kSuccess;
}

/* The fatbin's images (see runtime/src/cuda/cuda_fatbin.c): a cubin for exactly this SM,
 * or PTX for this SM or an older one, which a real driver would JIT-compile. */
static int fake_image_runs_on(const unsigned char *image) {
  int sm = env_int("FAKE_CUDA_SM", 80);
  uint32_t magic, images_size_lo;
  uint16_t header_size;
  memcpy(&magic, image, 4);
  if (magic != 0xBA55ED50u)
    return -1;
  memcpy(&header_size, image + 6, 2);
  memcpy(&images_size_lo, image + 8, 4);
  size_t offset = header_size, end = header_size + images_size_lo;
  int runs = 0;
  while (offset < end) {
    uint16_t kind;
    uint32_t image_header, image_sm;
    uint64_t payload;
    memcpy(&kind, image + offset, 2);
    memcpy(&image_header, image + offset + 4, 4);
    memcpy(&payload, image + offset + 8, 8);
    memcpy(&image_sm, image + offset + 28, 4);
    int cubin_ok = kind == 2 && (int)image_sm == sm && !env_int("FAKE_CUDA_REJECT_CUBINS", 0);
    if (cubin_ok || (kind == 1 && (int)image_sm <= sm))
      runs = 1;
    offset += image_header + payload;
  }
  g_module_size = end;
  return runs;
}

API CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case 100:
    *name = "CUDA_ERROR_NO_DEVICE";
    return kSuccess;
  case 209:
    *name = "CUDA_ERROR_NO_BINARY_FOR_GPU";
    return kSuccess;
  case 719:
    *name = "CUDA_ERROR_LAUNCH_FAILED";
    return kSuccess;
  default:
    *name = "CUDA_ERROR_FAKE";
    return kSuccess;
  }
}
API CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = "fake driver error";
  return kSuccess;
}
