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
 * "launch NAME GX GY GZ BX BY BZ SHARED_BYTES"). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  kSuccess = 0,
  kInvalidValue = 1,
  kOutOfMemory = 2,
  kInvalidContext = 201,
  kInvalidImage = 200,
  kNoBinaryForGpu = 209,
  kNotFound = 500,
  kMaxAllocations = 256,
  kMaxContextDepth = 16,
};

/* What the tests read back (fake_cuda_stats). */
typedef struct fake_cuda_stats {
  int live_allocations;
  int primary_context_references;
  int context_depth;
  int htod_copies, dtoh_copies, launches, module_loads, module_unloads;
  uint64_t htod_bytes;
  void *last_stream;
  char last_kernel[64];
  unsigned last_grid[3], last_block[3];
  int graph_captures, graph_launches, live_graphs, live_streams;
} fake_cuda_stats;

enum { kMaxParams = 8 };

/* One recorded launch. */
typedef struct fake_node {
  const char *function; /* NULL: a host function node */
  void (*host_fn)(void *);
  void *host_data;
  unsigned grid[3], block[3], shared;
  int num_params;
  CUdeviceptr params[kMaxParams];
} fake_node;

/* A graph and an executable graph are the same thing here: a list of launches. */
typedef struct fake_graph {
  fake_node *nodes;
  int num_nodes;
} fake_graph;

typedef struct fake_stream {
  fake_graph *capture; /* non-null while capturing */
} fake_stream;

static fake_cuda_stats g_stats;
static struct {
  unsigned char *base;
  size_t size;
} g_allocations[kMaxAllocations];
static void *g_context_stack[kMaxContextDepth];
static char g_primary_context; /* its address is the context handle */
static const unsigned char *g_module_image;
static size_t g_module_size;

API const fake_cuda_stats *fake_cuda_stats_get(void) { return &g_stats; }

static int env_int(const char *name, int fallback) {
  const char *value = getenv(name);
  return value != NULL && value[0] != '\0' ? atoi(value) : fallback;
}

/* Whether [pointer, pointer + size) lies in one live allocation. */
static int device_range_ok(CUdeviceptr pointer, size_t size) {
  unsigned char *p = (unsigned char *)(uintptr_t)pointer;
  for (int i = 0; i < kMaxAllocations; ++i)
    if (g_allocations[i].base != NULL && p >= g_allocations[i].base &&
        p + size <= g_allocations[i].base + g_allocations[i].size)
      return 1;
  return 0;
}

static int has_context(void) { return g_stats.context_depth > 0; }

/* Appends a line to $FAKE_CUDA_LOG, if set. */
static void log_line(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *format, ...) {
  const char *path = getenv("FAKE_CUDA_LOG");
  if (path == NULL || path[0] == '\0')
    return;
  FILE *file = fopen(path, "a");
  if (file == NULL)
    return;
  va_list args;
  va_start(args, format);
  vfprintf(file, format, args);
  va_end(args);
  fclose(file);
}

API CUresult cuInit(unsigned int flags) {
  return flags == 0 ? env_int("FAKE_CUDA_INIT_ERROR", 0) : kInvalidValue;
}
API CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return kSuccess;
}
API CUresult cuDeviceGet(int *device, int ordinal) {
  if (ordinal != 0)
    return kInvalidValue;
  *device = 0;
  return kSuccess;
}
API CUresult cuDeviceGetName(char *name, int length, int device) {
  snprintf(name, (size_t)length, "Fake GPU");
  return kSuccess;
}
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
API CUresult cuCtxGetCurrent(void **context) {
  *context = has_context() ? g_context_stack[g_stats.context_depth - 1] : NULL;
  return kSuccess;
}
API CUresult cuCtxGetDevice(int *device) {
  if (!has_context())
    return kInvalidContext;
  *device = 0;
  return kSuccess;
}
API CUresult cuCtxPushCurrent_v2(void *context) {
  if (context == NULL || g_stats.context_depth == kMaxContextDepth)
    return kInvalidValue;
  g_context_stack[g_stats.context_depth++] = context;
  return kSuccess;
}
API CUresult cuCtxPopCurrent_v2(void **context) {
  if (!has_context())
    return kInvalidContext;
  *context = g_context_stack[--g_stats.context_depth];
  return kSuccess;
}
API CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  ++g_stats.primary_context_references;
  *context = &g_primary_context;
  return kSuccess;
}
API CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  if (g_stats.primary_context_references == 0)
    return kInvalidContext;
  --g_stats.primary_context_references;
  return kSuccess;
}

/* The fatbin's images (see runtime/src/cuda/cuda_fatbin.c): a cubin for exactly this SM,
 * or PTX for this SM or an older one, which a real driver would JIT-compile. */
static int fatbin_runs_on(const unsigned char *image, int sm) {
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

API CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned int num_options,
                                int *options, void **values) {
  if (!has_context())
    return kInvalidContext;
  int runs = fatbin_runs_on(image, env_int("FAKE_CUDA_SM", 80));
  if (runs < 0)
    return kInvalidImage;
  if (runs == 0) {
    for (unsigned i = 0; i < num_options; ++i)
      if (options[i] == 5 /* CU_JIT_ERROR_LOG_BUFFER */)
        snprintf((char *)values[i], 64, "fake: no image for this GPU");
    return kNoBinaryForGpu;
  }
  g_module_image = image;
  ++g_stats.module_loads;
  *module = (void *)&g_module_image;
  return kSuccess;
}
API CUresult cuModuleUnload(void *module) {
  ++g_stats.module_unloads;
  return kSuccess;
}

/* A function handle is a pointer to its name, copied. */
API CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  size_t length = strlen(name);
  int found = strncmp(name, "fake_", 5) == 0;
  for (size_t i = 0; !found && g_module_image != NULL && i + length <= g_module_size; ++i)
    found = memcmp(g_module_image + i, name, length) == 0;
  if (!found)
    return kNotFound;
  *function = strdup(name); /* leaked: a test process makes a handful */
  return kSuccess;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t nbytes) {
  if (nbytes == 0)
    return kInvalidValue;
  if (!has_context())
    return kInvalidContext;
  for (int i = 0; i < kMaxAllocations; ++i)
    if (g_allocations[i].base == NULL) {
      /* 256-byte aligned, as the real driver gives (the runtime's GEMM steps rely on
       * it): malloc's 16 would make cuBLASLt use depend on the heap's state. */
      g_allocations[i].base = aligned_alloc(256, (nbytes + 255) / 256 * 256);
      if (g_allocations[i].base == NULL)
        return kOutOfMemory;
      memset(g_allocations[i].base, 0xAB, nbytes); /* like real memory: not zeroed */
      g_allocations[i].size = nbytes;
      *pointer = (CUdeviceptr)(uintptr_t)g_allocations[i].base;
      ++g_stats.live_allocations;
      return kSuccess;
    }
  return kOutOfMemory;
}
API CUresult cuMemFree_v2(CUdeviceptr pointer) {
  for (int i = 0; i < kMaxAllocations; ++i)
    if ((CUdeviceptr)(uintptr_t)g_allocations[i].base == pointer && pointer != 0) {
      free(g_allocations[i].base);
      g_allocations[i].base = NULL;
      --g_stats.live_allocations;
      return kSuccess;
    }
  return kInvalidValue;
}
API CUresult cuMemsetD8_v2(CUdeviceptr pointer, unsigned char value, size_t count) {
  if (!device_range_ok(pointer, count))
    return kInvalidValue;
  memset((void *)(uintptr_t)pointer, value, count);
  return kSuccess;
}
API CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source, size_t nbytes) {
  if (!has_context() || !device_range_ok(destination, nbytes))
    return kInvalidValue;
  memcpy((void *)(uintptr_t)destination, source, nbytes);
  log_line("htod %zu\n", nbytes);
  ++g_stats.htod_copies;
  g_stats.htod_bytes += nbytes;
  return kSuccess;
}
API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination, const void *source, size_t nbytes,
                                  void *stream) {
  (void)stream; /* the fake runs everything at once, in call order */
  if (!has_context() || !device_range_ok(destination, nbytes))
    return kInvalidValue;
  memcpy((void *)(uintptr_t)destination, source, nbytes);
  log_line("htod_async %zu\n", nbytes);
  ++g_stats.htod_copies;
  g_stats.htod_bytes += nbytes;
  return kSuccess;
}
API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr destination, CUdeviceptr source, size_t nbytes,
                                  void *stream) {
  (void)stream;
  if (!has_context() || !device_range_ok(destination, nbytes) || !device_range_ok(source, nbytes))
    return kInvalidValue;
  memmove((void *)(uintptr_t)destination, (const void *)(uintptr_t)source, nbytes);
  log_line("dtod_async %zu\n", nbytes);
  return kSuccess;
}
API CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source, size_t nbytes) {
  if (!has_context() || !device_range_ok(source, nbytes))
    return kInvalidValue;
  memcpy(destination, (const void *)(uintptr_t)source, nbytes);
  log_line("dtoh %zu\n", nbytes);
  ++g_stats.dtoh_copies;
  return kSuccess;
}

/* Emulated kernels: thread `i` of a 1-D launch handles element i. */
static int emulated_params(const char *name);
static CUresult emulate(const char *name, unsigned threads, void **params) {
  int num_params = emulated_params(name);
  if (num_params < 0)
    return kNotFound;
  CUdeviceptr args[3];
  for (int p = 0; p < num_params; ++p) {
    memcpy(&args[p], params[p], sizeof(CUdeviceptr));
    if (!device_range_ok(args[p], threads * sizeof(float)))
      return 700; /* illegal address */
  }
  float *a = (float *)(uintptr_t)args[0];
  float *b = (float *)(uintptr_t)args[1];
  for (unsigned i = 0; i < threads; ++i) {
    if (num_params == 3)
      ((float *)(uintptr_t)args[2])[i] = a[i] + b[i];
    else
      b[i] = a[i] * 3.0f;
  }
  return kSuccess;
}

/* Parameters the emulated kernel `name` takes; -1 for a kernel that is not emulated. */
static int emulated_params(const char *name) {
  return strcmp(name, "fake_add") == 0 ? 3 : strcmp(name, "fake_triple") == 0 ? 2 : -1;
}

static CUresult execute(const char *name, const unsigned grid[3], const unsigned block[3],
                        unsigned shared, void *stream, void **params) {
  ++g_stats.launches;
  g_stats.last_stream = stream;
  snprintf(g_stats.last_kernel, sizeof(g_stats.last_kernel), "%s", name);
  memcpy(g_stats.last_grid, grid, sizeof(g_stats.last_grid));
  memcpy(g_stats.last_block, block, sizeof(g_stats.last_block));
  if (strncmp(name, "fake_", 5) == 0)
    return emulate(name, grid[0] * block[0], params);
  /* A real model's kernel: nothing runs; the log shows what was launched. */
  log_line("launch %s %u %u %u %u %u %u %u\n", name, grid[0], grid[1], grid[2], block[0], block[1],
           block[2], shared);
  return kSuccess;
}

/* Appends the launch to the graph being captured (parameter values are copied, as the
 * real driver does). */
static CUresult record(fake_graph *graph, const char *name, const unsigned grid[3],
                       const unsigned block[3], unsigned shared, void **params) {
  fake_node *nodes = realloc(graph->nodes, (size_t)(graph->num_nodes + 1) * sizeof(fake_node));
  if (nodes == NULL)
    return kOutOfMemory;
  graph->nodes = nodes;
  fake_node *node = &nodes[graph->num_nodes++];
  memset(node, 0, sizeof(*node));
  node->function = name;
  memcpy(node->grid, grid, sizeof(node->grid));
  memcpy(node->block, block, sizeof(node->block));
  node->shared = shared;
  node->num_params = emulated_params(name) > 0 ? emulated_params(name) : 0;
  for (int p = 0; p < node->num_params; ++p)
    memcpy(&node->params[p], params[p], sizeof(CUdeviceptr));
  return kSuccess;
}

API CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                            unsigned by, unsigned bz, unsigned shared, void *stream, void **params,
                            void **extra) {
  if (!has_context())
    return kInvalidContext;
  int error = env_int("FAKE_CUDA_LAUNCH_ERROR", 0);
  if (error != 0)
    return error;
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  /* Streams the tests make up (small integers such as 0x5eed) are not fake_stream
   * records; those from cuStreamCreate are heap addresses. */
  fake_stream *s = stream;
  if (s != NULL && (uintptr_t)s > 0xffff && s->capture != NULL)
    return record(s->capture, function, grid, block, shared, params);
  return execute(function, grid, block, shared, stream, params);
}

API CUresult cuLaunchHostFunc(void *stream, void (*fn)(void *), void *data) {
  if (!has_context() || fn == NULL)
    return kInvalidContext;
  fake_stream *s = stream;
  if (s == NULL || (uintptr_t)s <= 0xffff || s->capture == NULL)
    return fn(data), kSuccess;
  if (env_int("FAKE_CUDA_CAPTURE_HOST_FUNC_ERROR", 0))
    return 900; /* capture unsupported */
  fake_graph *graph = s->capture;
  fake_node *nodes = realloc(graph->nodes, (size_t)(graph->num_nodes + 1) * sizeof(fake_node));
  if (nodes == NULL)
    return kOutOfMemory;
  graph->nodes = nodes;
  memset(&nodes[graph->num_nodes], 0, sizeof(fake_node));
  nodes[graph->num_nodes].host_fn = fn;
  nodes[graph->num_nodes++].host_data = data;
  return kSuccess;
}

API CUresult cuStreamCreate(void **stream, unsigned int flags) {
  if (!has_context())
    return kInvalidContext;
  fake_stream *s = calloc(1, sizeof(fake_stream));
  if (s == NULL)
    return kOutOfMemory;
  ++g_stats.live_streams;
  *stream = s;
  return kSuccess;
}
API CUresult cuStreamDestroy_v2(void *stream) {
  fake_stream *s = stream;
  if (s == NULL || s->capture != NULL)
    return kInvalidValue;
  free(s);
  --g_stats.live_streams;
  return kSuccess;
}
API CUresult cuStreamBeginCapture_v2(void *stream, int mode) {
  fake_stream *s = stream;
  if (s == NULL)
    return 900; /* CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: the legacy stream */
  if (s->capture != NULL)
    return kInvalidValue;
  s->capture = calloc(1, sizeof(fake_graph));
  if (s->capture == NULL)
    return kOutOfMemory;
  ++g_stats.live_graphs;
  return kSuccess;
}
API CUresult cuStreamEndCapture(void *stream, void **graph) {
  fake_stream *s = stream;
  if (s == NULL || s->capture == NULL)
    return kInvalidValue;
  *graph = s->capture;
  s->capture = NULL;
  ++g_stats.graph_captures;
  return kSuccess;
}
static void graph_free(fake_graph *graph) {
  free(graph->nodes);
  free(graph);
  --g_stats.live_graphs;
}
API CUresult cuGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags) {
  const fake_graph *from = graph;
  fake_graph *copy = calloc(1, sizeof(fake_graph));
  if (copy == NULL || from == NULL)
    return free(copy), kInvalidValue;
  copy->nodes = malloc((size_t)(from->num_nodes > 0 ? from->num_nodes : 1) * sizeof(fake_node));
  if (copy->nodes == NULL)
    return free(copy), kOutOfMemory;
  memcpy(copy->nodes, from->nodes, (size_t)from->num_nodes * sizeof(fake_node));
  copy->num_nodes = from->num_nodes;
  ++g_stats.live_graphs;
  *exec = copy;
  return kSuccess;
}
API CUresult cuGraphLaunch(void *exec, void *stream) {
  if (!has_context())
    return kInvalidContext;
  const fake_graph *graph = exec;
  ++g_stats.graph_launches;
  for (int n = 0; n < graph->num_nodes; ++n) {
    const fake_node *node = &graph->nodes[n];
    if (node->host_fn != NULL) {
      node->host_fn(node->host_data);
      continue;
    }
    void *params[kMaxParams];
    for (int p = 0; p < node->num_params; ++p)
      params[p] = (void *)&node->params[p];
    CUresult result =
        execute(node->function, node->grid, node->block, node->shared, stream, params);
    if (result != kSuccess)
      return result;
  }
  return kSuccess;
}
API CUresult cuGraphExecDestroy(void *exec) {
  if (exec == NULL)
    return kInvalidValue;
  graph_free(exec);
  return kSuccess;
}
API CUresult cuGraphDestroy(void *graph) {
  if (graph == NULL)
    return kInvalidValue;
  graph_free(graph);
  return kSuccess;
}

API CUresult cuStreamSynchronize(void *stream) {
  return has_context() ? kSuccess : kInvalidContext;
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
