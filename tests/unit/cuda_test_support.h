// Helpers for runtime tests of CUDA plans without a GPU: the fake driver
// (testdata/fake_cuda.c, loaded by the runtime through PT2C_LIBCUDA) and fatbins by hand.
#ifndef PT2C_TESTS_UNIT_CUDA_TEST_SUPPORT_H_
#define PT2C_TESTS_UNIT_CUDA_TEST_SUPPORT_H_

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace pt2c::testing {

// Mirrors fake_cuda.c's struct.
struct FakeCudaStats {
  int live_allocations;
  int primary_context_references;
  int context_depth;
  int htod_copies, dtoh_copies, dtod_copies, launches, module_loads, module_unloads;
  uint64_t htod_bytes;
  void *last_stream;
  char last_kernel[64];
  unsigned last_grid[3], last_block[3];
  int graph_captures, graph_launches, live_graphs, live_streams;
};

// The fake driver in this test's runfiles.
inline std::string fake_cuda_path() {
  const char *root = std::getenv("TEST_SRCDIR");
  if (root == nullptr)
    throw std::runtime_error("TEST_SRCDIR is not set: run under bazel test");
  return std::string(root) + "/pt2c/tests/unit/libfake_cuda.so";
}

// The fake cuBLASLt; the runtime loads it (PT2C_LIBCUBLASLT) at the first create of a
// plan with GEMM steps and keeps it for the process.
inline std::string fake_cublaslt_path() {
  return fake_cuda_path().substr(0, fake_cuda_path().rfind('/')) + "/libfake_cublaslt.so";
}
inline void use_fake_cublaslt() { setenv("PT2C_LIBCUBLASLT", fake_cublaslt_path().c_str(), 1); }
// The fake's counter of matmuls (0 when the runtime has not loaded it).
inline int fake_cublaslt_int(const char *getter) {
  void *handle = dlopen(fake_cublaslt_path().c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr)
    return 0;
  auto get = reinterpret_cast<int (*)()>(dlsym(handle, getter));
  dlclose(handle);
  return get();
}

// The fake cuDNN (PT2C_LIBCUDNN), loaded like the fake cuBLASLt.
inline void use_fake_cudnn() {
  std::string path = fake_cuda_path().substr(0, fake_cuda_path().rfind('/')) + "/libfake_cudnn.so";
  setenv("PT2C_LIBCUDNN", path.c_str(), 1);
}

// Makes the runtime load the fake driver (it reads PT2C_LIBCUDA at its first CUDA create).
inline void use_fake_cuda() { setenv("PT2C_LIBCUDA", fake_cuda_path().c_str(), 1); }

// The fake's counters; the runtime and the test share the one loaded copy.
inline const FakeCudaStats &fake_cuda_stats() {
  void *handle = dlopen(fake_cuda_path().c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr)
    throw std::runtime_error("the fake driver is not loaded");
  using Get = const FakeCudaStats *(*)();
  auto get = reinterpret_cast<Get>(dlsym(handle, "fake_cuda_stats_get"));
  dlclose(handle); // NOLOAD took a reference; the runtime keeps its own
  return *get();
}

// A fake driver function by name (e.g. cuMemAlloc_v2), for tests that play the host.
template <typename Function> Function fake_cuda_function(const char *name) {
  void *handle = dlopen(fake_cuda_path().c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr)
    throw std::runtime_error("the fake driver is not loaded");
  void *symbol = dlsym(handle, name);
  dlclose(handle);
  return reinterpret_cast<Function>(symbol);
}

struct FatbinImage {
  uint16_t kind; // 1 PTX, 2 cubin
  uint32_t sm;
  std::string payload;
};

// A fatbin in the layout runtime/src/cuda/cuda_fatbin.c reads, 8-byte aligned storage.
inline std::vector<uint64_t> make_fatbin(const std::vector<FatbinImage> &images) {
  std::string body;
  for (const FatbinImage &image : images) {
    unsigned char header[64] = {};
    uint32_t header_size = sizeof(header);
    uint64_t payload = image.payload.size();
    std::memcpy(header, &image.kind, 2);
    std::memcpy(header + 4, &header_size, 4);
    std::memcpy(header + 8, &payload, 8);
    std::memcpy(header + 28, &image.sm, 4);
    body.append(reinterpret_cast<char *>(header), sizeof(header));
    body += image.payload;
  }
  std::string blob(16, '\0');
  uint32_t magic = 0xBA55ED50u;
  uint16_t version = 1, header_size = 16;
  uint64_t size = body.size();
  std::memcpy(&blob[0], &magic, 4);
  std::memcpy(&blob[4], &version, 2);
  std::memcpy(&blob[6], &header_size, 2);
  std::memcpy(&blob[8], &size, 8);
  blob += body;
  std::vector<uint64_t> words((blob.size() + 7) / 8);
  std::memcpy(words.data(), blob.data(), blob.size());
  return words;
}

} // namespace pt2c::testing

#endif // PT2C_TESTS_UNIT_CUDA_TEST_SUPPORT_H_
