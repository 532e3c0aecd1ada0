/* pt2c runtime C ABI: the only symbols a model.so exports.
 *
 * A model.so carries its kernels, weights and execution plan; this header is all a host
 * program needs to load and run it. Every call returns a pt2c_status; on failure
 * pt2c_last_error() returns a message for the calling thread.
 *
 * Versioning: PT2C_ABI_VERSION changes when a signature or struct here changes.
 * Check pt2c_abi_version() against the header you compiled with.
 */
#ifndef PT2C_PT2C_H_
#define PT2C_PT2C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2: pt2c_device, pt2c_model_device, pt2c_model_run_device, PT2C_ERROR_DEVICE (CUDA).
 * 3: graphs and dispatch: pt2c_graph_info, pt2c_model_num_graphs, pt2c_model_graph_*,
 *    pt2c_model_find_graph, pt2c_model_run_method, PT2C_ERROR_NO_MATCHING_GRAPH.
 * 4: dynamic dimensions: -1 in info dims, pt2c_model_num_dynamic_dims,
 *    pt2c_model_dynamic_dim_info, pt2c_model_output_shape.
 * 5: external weights: pt2c_model_create_with_weights, PT2C_ERROR_WEIGHTS_FILE.
 * 6: CPU threads: pt2c_set_num_threads, pt2c_num_threads. Later, in version 6:
 *    PT2C_ERROR_BUSY (appended; no signature or struct changed, so hosts built for 6 keep
 *    working: they only see a status they do not name, with its message).
 * 7: execution contexts: pt2c_context, pt2c_context_create, pt2c_context_destroy,
 *    pt2c_context_run, pt2c_context_run_method (appended: hosts built for 6 keep working).
 * 8: model state and graphs with dynamic dimensions: pt2c_model_reset_state,
 *    pt2c_model_num_states, pt2c_model_state_info, pt2c_model_read_state,
 *    pt2c_model_write_state and their pt2c_context_ forms, pt2c_model_graph_output_shape
 *    (appended: hosts built for 7 keep working).
 * 9: data-dependent sizes: pt2c_model_last_output_shape, pt2c_context_last_output_shape
 *    (appended: hosts built for 8 keep working). */
#define PT2C_ABI_VERSION 9u

#if defined(__GNUC__)
#define PT2C_API __attribute__((visibility("default")))
#else
#define PT2C_API
#endif

typedef enum pt2c_status {
  PT2C_OK = 0,
  PT2C_ERROR_INVALID_ARGUMENT = 1, /* null pointer, bad index */
  PT2C_ERROR_INPUT_COUNT = 2,      /* wrong number of inputs or outputs */
  PT2C_ERROR_DTYPE = 3,            /* a tensor has the wrong dtype */
  PT2C_ERROR_SHAPE = 4,            /* a tensor has the wrong rank or sizes */
  PT2C_ERROR_GUARD = 5,            /* an assumption recorded at export does not hold */
  PT2C_ERROR_OUT_OF_MEMORY = 6,
  PT2C_ERROR_CORRUPT_MODEL = 7,      /* the embedded plan is unreadable */
  PT2C_ERROR_UNSUPPORTED = 8,        /* e.g. a device this build has no kernels for */
  PT2C_ERROR_DEVICE = 9,             /* the GPU or its driver reported an error */
  PT2C_ERROR_NO_MATCHING_GRAPH = 10, /* no graph of the method takes these inputs, or no
                                        such method */
  PT2C_ERROR_WEIGHTS_FILE = 11,      /* the external weights file is missing, unreadable,
                                        truncated, corrupt, another model's or not a
                                        regular file */
  PT2C_ERROR_BUSY = 12,              /* a run of this model is already in progress on
                                        another thread (one model per thread) */
} pt2c_status;

/* Numbering shared with ir/artifact/pt2c.proto (DType). */
typedef enum pt2c_dtype {
  PT2C_DTYPE_UNDEFINED = 0,
  PT2C_F32 = 1,
  PT2C_F64 = 2,
  PT2C_F16 = 3,
  PT2C_BF16 = 4,
  PT2C_I64 = 5,
  PT2C_I32 = 6,
  PT2C_I16 = 7,
  PT2C_I8 = 8,
  PT2C_U8 = 9,
  PT2C_BOOL = 10,
} pt2c_dtype;

#define PT2C_MAX_RANK 8

/* Where a model's kernels run; fixed when the model is compiled (`pt2c --target`). */
typedef enum pt2c_device {
  PT2C_DEVICE_CPU = 0,
  PT2C_DEVICE_CUDA = 1, /* an NVIDIA GPU, reached through the driver (libcuda.so.1) */
  PT2C_DEVICE_ROCM = 2, /* an AMD GPU, reached through HIP (libamdhip64.so) */
} pt2c_device;

/* Describes an input or output of the model. Strings and arrays are owned by the model
 * and live until pt2c_model_destroy. */
typedef struct pt2c_tensor_info {
  const char *name;
  pt2c_dtype dtype;
  int32_t rank;
  const int64_t *dims; /* rank entries */
} pt2c_tensor_info;

/* A caller-owned, contiguous (row-major) tensor. A zero-initialized pt2c_tensor (dtype
 * PT2C_DTYPE_UNDEFINED) is an absent input: the None a method's optional argument got. */
typedef struct pt2c_tensor {
  void *data;
  pt2c_dtype dtype;
  int32_t rank;
  const int64_t *dims; /* rank entries */
} pt2c_tensor;

typedef struct pt2c_model pt2c_model;

/* The ABI version this library was built with (PT2C_ABI_VERSION). */
PT2C_API uint32_t pt2c_abi_version(void);

/* Size in bytes of one element of `dtype`, or 0 for an unknown dtype. */
PT2C_API size_t pt2c_dtype_size(pt2c_dtype dtype);

/* Creates the model embedded in this library.
 *
 * A CUDA model loads the NVIDIA driver (libcuda.so.1, through dlopen; $PT2C_LIBCUDA
 * names another file) and uses the device of the CUDA context current on the calling
 * thread, or device 0 when none is; it works in that device's primary context (the one
 * the CUDA runtime and PyTorch use) and leaves the caller's current context as it was.
 * It loads its kernels, copies its weights to the device and allocates its scratch
 * memory here, once. Without a driver or a GPU, or on a GPU its kernels were not built
 * for (and whose driver cannot compile the PTX it carries), it fails with
 * PT2C_ERROR_UNSUPPORTED and a message that says which. A ROCm model does the same
 * through HIP (libamdhip64.so, through dlopen; $PT2C_LIBAMDHIP64 names another file),
 * loading the code object built for the GPU's architecture. */
PT2C_API pt2c_status pt2c_model_create(pt2c_model **out_model);

/* pt2c_model_create for a model compiled with `pt2c --external-weights`, whose weights
 * are in a file of their own (pt2c/weights_format.h) rather than in the library. The
 * file is `weights_path`; NULL: $PT2C_WEIGHTS if set, else the library's own path plus
 * ".weights" (model.so -> model.so.weights, where pt2c writes it). pt2c_model_create is
 * this call with NULL. The path must be a regular file (a FIFO, device or directory is
 * refused without being opened for reading, so create never blocks on it). Its header
 * is checked byte for byte: that it is a weights file of this very compile (layout
 * fingerprint and checksum recorded in the .so), reserved bytes zero, not truncated;
 * then the data is read into memory private to the model and its checksum checked
 * ($PT2C_WEIGHTS_VERIFY=0 skips that check, not the read). From then on the model never
 * reads the file: truncating, overwriting or deleting it cannot crash a run or change
 * its results. The cost is memory: each model holds its own copy of the weights (a CUDA
 * model frees it once they are on the device). Any problem: PT2C_ERROR_WEIGHTS_FILE with
 * a message naming the file. A model that embeds its weights takes no file: a non-NULL
 * path is PT2C_ERROR_INVALID_ARGUMENT. */
PT2C_API pt2c_status pt2c_model_create_with_weights(const char *weights_path,
                                                    pt2c_model **out_model);

/* Destroys a model; null is allowed. */
PT2C_API void pt2c_model_destroy(pt2c_model *model);

/* Graphs. A model compiled from a multi-graph model.py (README: `signatures`) holds one
 * graph per signature: a method of the module ("forward", "encode") traced with one set
 * of inputs (which optional ones are None, dtypes, sizes). pt2c_model_run picks the graph
 * of the default method (graph 0's: forward when the model exports it) that matches the
 * caller's inputs; pt2c_model_run_method names the method. A single-graph model has one
 * graph, and every call below works on it as on any other.
 *
 * Inputs are the method's positional arguments, in order: "slots". A slot the graph was
 * traced with None is absent; pass a zero-initialized pt2c_tensor there, or leave
 * trailing absent slots out of num_inputs. Info about an absent slot has its name, dtype
 * PT2C_DTYPE_UNDEFINED and rank 0. */
typedef struct pt2c_graph_info {
  const char *name;   /* the signature's name; "forward" for a single-graph model */
  const char *method; /* the method it was traced from */
  int32_t num_inputs; /* slots, absent ones included */
  int32_t num_outputs;
} pt2c_graph_info;

/* Number of graphs (>= 1); -1 (with a last error) for a null model. */
PT2C_API int32_t pt2c_model_num_graphs(const pt2c_model *model);
PT2C_API pt2c_status pt2c_model_graph_info(const pt2c_model *model, int32_t graph,
                                           pt2c_graph_info *out_info);
PT2C_API pt2c_status pt2c_model_graph_input_info(const pt2c_model *model, int32_t graph,
                                                 int32_t index, pt2c_tensor_info *out_info);
PT2C_API pt2c_status pt2c_model_graph_output_info(const pt2c_model *model, int32_t graph,
                                                  int32_t index, pt2c_tensor_info *out_info);

/* The graph pt2c_model_run_method(model, method, inputs, ...) would run (outputs are not
 * looked at, so a caller can size them from the graph's output info first). `method`
 * NULL: the default method. A name that is no method but a graph's name selects that
 * graph alone. PT2C_ERROR_NO_MATCHING_GRAPH, with a message listing the method's
 * signatures, when none matches; for a method with a single graph, the run's own checks
 * say what differs (PT2C_ERROR_INPUT_COUNT, _DTYPE, _SHAPE). */
PT2C_API pt2c_status pt2c_model_find_graph(const pt2c_model *model, const char *method,
                                           const pt2c_tensor *inputs, int32_t num_inputs,
                                           int32_t *out_graph);

/* Runs the graph pt2c_model_find_graph picks (see pt2c_model_run for everything else). */
PT2C_API pt2c_status pt2c_model_run_method(pt2c_model *model, const char *method,
                                           const pt2c_tensor *inputs, int32_t num_inputs,
                                           pt2c_tensor *outputs, int32_t num_outputs);

/* Counts of inputs and outputs; -1 (with a last error) for a null model. For a model with
 * several graphs these (and the info calls below) describe graph 0. */
PT2C_API int32_t pt2c_model_num_inputs(const pt2c_model *model);
PT2C_API int32_t pt2c_model_num_outputs(const pt2c_model *model);
PT2C_API pt2c_status pt2c_model_input_info(const pt2c_model *model, int32_t index,
                                           pt2c_tensor_info *out_info);
PT2C_API pt2c_status pt2c_model_output_info(const pt2c_model *model, int32_t index,
                                            pt2c_tensor_info *out_info);

/* Dynamic dimensions (model.py's dynamic_shapes). Info dims are -1 where a size varies
 * from run to run: an input dim that is a dynamic dimension, or an output dim computed
 * from them. A run takes any size within the declared range there (every input dim
 * with the same name must agree); its outputs must have the sizes
 * pt2c_model_output_shape gives for its inputs. */
PT2C_API int32_t pt2c_model_num_dynamic_dims(const pt2c_model *model);
/* The name model.py gave dimension `index` and its inclusive range. */
PT2C_API pt2c_status pt2c_model_dynamic_dim_info(const pt2c_model *model, int32_t index,
                                                 const char **out_name, int64_t *out_min,
                                                 int64_t *out_max);
/* The sizes output `index` has for these inputs (output_info's rank entries written to
 * out_dims). Checks the inputs as a run would. For a static model: output_info's dims.
 * With several graphs, the graph pt2c_model_run would pick for these inputs. */
PT2C_API pt2c_status pt2c_model_output_shape(const pt2c_model *model, const pt2c_tensor *inputs,
                                             int32_t num_inputs, int32_t index, int64_t *out_dims);
/* The same for graph `graph` (pt2c_model_find_graph's answer), its inputs in slot order.
 * A multi-graph model's graphs may each have dynamic dimensions of their own (a prefill
 * for prompts of any length beside a one-token decode step); num_dynamic_dims and
 * dynamic_dim_info describe graph 0's, and a run picks the graph whose ranges hold the
 * inputs' sizes. */
PT2C_API pt2c_status pt2c_model_graph_output_shape(const pt2c_model *model, int32_t graph,
                                                   const pt2c_tensor *inputs, int32_t num_inputs,
                                                   int32_t index, int64_t *out_dims);
/* Data-dependent sizes: a dimension whose size depends on the input values (the row
 * count of torch.nonzero, of x[mask] or of masked_select) is a dynamic dimension that no
 * input gives: dynamic_dim_info names it u0, u1, ... with the range [0, bound]. Before a
 * run, pt2c_model_output_shape gives such a dim its bound, the size the output buffer
 * must have; the run writes the first rows, and pt2c_model_last_output_shape gives the
 * sizes output `index` had in the last successful pt2c_model_run or _run_method on this
 * model (every dim; the data-dependent ones exact). PT2C_ERROR_INVALID_ARGUMENT before
 * any run. Not while a run on the model is in progress. */
PT2C_API pt2c_status pt2c_model_last_output_shape(const pt2c_model *model, int32_t index,
                                                  int64_t *out_dims);

/* Where the model's kernels run; PT2C_DEVICE_CPU (with a last error) for a null model. */
PT2C_API pt2c_device pt2c_model_device(const pt2c_model *model);

/* Runs the model (the graph of the default method that matches the inputs, see
 * pt2c_model_find_graph). Inputs and outputs are checked (count, dtype, rank, sizes) before any
 * kernel runs. Output buffers are caller-owned and must have the sizes output_info gives
 * (for dynamic dimensions: pt2c_model_output_shape); they must not overlap each other or
 * the inputs (kernels assume distinct memory).
 * A model runs one call at a time; create one per thread (CPU models then share one
 * thread pool, see pt2c_set_num_threads). A run (pt2c_model_run, _run_method or
 * _run_device) that starts while another is in progress on the same model fails at once
 * with PT2C_ERROR_BUSY and touches nothing; the run in progress is unaffected. (Other
 * calls while a run is in progress are fine, except pt2c_model_destroy.)
 *
 * Tensors are in host memory for every model. A CUDA model copies the inputs to the
 * device, runs, and copies the outputs back before it returns (synchronous).
 *
 * Inputs are read-only, except where model.py writes an input tensor in place
 * (input mutation, listed by `pt2c report`): the run then leaves the input's new value
 * in that input's data, as PyTorch leaves it in the tensor passed in. */
PT2C_API pt2c_status pt2c_model_run(pt2c_model *model, const pt2c_tensor *inputs,
                                    int32_t num_inputs, pt2c_tensor *outputs, int32_t num_outputs);

/* Runs a CUDA model on device memory: every tensor's data is a device pointer (a
 * CUdeviceptr) of the model's device, and `stream` is a CUstream of that device's primary
 * context (NULL: the legacy default stream). The kernels are queued on `stream` and the
 * call returns without waiting for them, unless the model has guards (export-time
 * assumptions it checks after the run): then it waits for the stream to read them.
 * Checks are the same as pt2c_model_run's, PT2C_ERROR_BUSY included (it covers the call,
 * not the queued work). The first run is captured as a CUDA graph on the tensors'
 * addresses; once a later run passes tensors at other addresses, every run copies its
 * tensors through the model's own device buffers (on `stream`) and replays one graph,
 * rather than capturing anew. The model's scratch memory is reused by every run, so queue the
 * runs of one model on one stream (or order them yourself).
 * PT2C_ERROR_UNSUPPORTED for a CPU model. A ROCm model takes HIP device pointers and a
 * hipStream_t the same way. */
PT2C_API pt2c_status pt2c_model_run_device(pt2c_model *model, const pt2c_tensor *inputs,
                                           int32_t num_inputs, pt2c_tensor *outputs,
                                           int32_t num_outputs, void *stream);

/* CPU models split their GEMMs and convolutions over a pool of worker threads that every
 * model of this model.so shares (one pool per loaded model.so). The default is the number
 * of CPUs the process may run on (sched_getaffinity), or $PT2C_NUM_THREADS when set. A
 * run that finds the pool busy with another thread's run computes on its own thread
 * alone, so concurrent runs never oversubscribe the cores. num_threads <= 0 restores the
 * default. Takes effect from the next run; PT2C_ERROR_INVALID_ARGUMENT above 1024. */
PT2C_API pt2c_status pt2c_set_num_threads(int32_t num_threads);

/* The number of threads CPU runs use (the caller's thread included). */
PT2C_API int32_t pt2c_num_threads(void);

/* The message of the last failed call on this thread ("" if none). */
PT2C_API const char *pt2c_last_error(void);

/* Model state: module buffers that model.py writes in place (a KV cache, a step counter;
 * README, "The model.py contract"). A model keeps its own copy, starting from the values
 * it was compiled with, and every run updates it; the graphs of a multi-graph model share
 * it (a prefill graph fills the cache a decode graph reads). pt2c_model_reset_state puts
 * it back to those initial values, for a new sequence or request, without creating the
 * model again; it is a call like a run (PT2C_ERROR_BUSY while a run is in progress on
 * the model; for pt2c_model_run_device, call it once the stream's runs have finished). A
 * model without state: nothing to do, PT2C_OK. */
PT2C_API pt2c_status pt2c_model_reset_state(pt2c_model *model);
/* The model's states by name (the module buffer's, "cache.key_cache_0"), with their dtype
 * and sizes (never dynamic); -1 (with a last error) for a null model. */
PT2C_API int32_t pt2c_model_num_states(const pt2c_model *model);
PT2C_API pt2c_status pt2c_model_state_info(const pt2c_model *model, int32_t index,
                                           pt2c_tensor_info *out_info);
/* Copies state `index` into the caller's host tensor, or the caller's tensor into it (a
 * saved cache restored, a sequence continued on another model of the same .so): the
 * tensor must have the state's dtype and sizes exactly (PT2C_ERROR_DTYPE /
 * PT2C_ERROR_SHAPE otherwise, nothing copied). Calls like a run, as reset_state. */
PT2C_API pt2c_status pt2c_model_read_state(pt2c_model *model, int32_t index, pt2c_tensor *out);
PT2C_API pt2c_status pt2c_model_write_state(pt2c_model *model, int32_t index,
                                            const pt2c_tensor *value);

/* Execution contexts: one model, many concurrent runs (a server's request threads).
 *
 * A model owns what never changes: its plan, weights, kernels and the weight operands it
 * packed at create. A context owns what a run writes: scratch memory (the arena), its own
 * copy of the model state (buffers model.py updates in place, starting from the values
 * the model was compiled with), and its run flag. So the weights exist once however many
 * contexts there are, and a context costs the model's scratch and state only.
 *
 * Which calls may run at the same time:
 *   - runs of different contexts, from different threads, always (and runs of the model
 *     itself beside them: the model is a context of its own);
 *   - two runs of one context: no, the second fails with PT2C_ERROR_BUSY (use one context
 *     per thread, as pt2c_model_run's note says of models);
 *   - the info calls (pt2c_model_*_info, _find_graph, ...) on the model, any time;
 *   - pt2c_context_destroy while that context runs, or pt2c_model_destroy while the
 *     model has contexts: never. Destroy every context first.
 * Concurrent CPU runs share the model.so's thread pool: a run that finds it busy computes
 * on its own thread (pt2c_set_num_threads), so N request threads use N cores.
 * CUDA models: the device copy of the weights, the kernels, the channels-last filters and
 * the cuBLASLt/cuDNN algorithms the model chose are shared (so a context computes the
 * same bits as the model); each context has its own device arena and state, staging
 * buffers, library handles and workspaces, and its own CUDA graph.
 * pt2c_model_run_device works on the model only; contexts run on host memory. */
typedef struct pt2c_context pt2c_context;

/* A new context of `model`. Its runs behave as pt2c_model_run on a freshly created copy of
 * the model would, the model state included. */
PT2C_API pt2c_status pt2c_context_create(pt2c_model *model, pt2c_context **out_context);
PT2C_API void pt2c_context_destroy(pt2c_context *context);
/* pt2c_model_run and pt2c_model_run_method, on the context's memory and state. */
PT2C_API pt2c_status pt2c_context_run(pt2c_context *context, const pt2c_tensor *inputs,
                                      int32_t num_inputs, pt2c_tensor *outputs,
                                      int32_t num_outputs);
PT2C_API pt2c_status pt2c_context_run_method(pt2c_context *context, const char *method,
                                             const pt2c_tensor *inputs, int32_t num_inputs,
                                             pt2c_tensor *outputs, int32_t num_outputs);
/* pt2c_model_last_output_shape of the context's last run. */
PT2C_API pt2c_status pt2c_context_last_output_shape(const pt2c_context *context, int32_t index,
                                                    int64_t *out_dims);
/* pt2c_model_reset_state, _read_state and _write_state for the context's own copy of the
 * state (pt2c_model_state_info on the model describes it). */
PT2C_API pt2c_status pt2c_context_reset_state(pt2c_context *context);
PT2C_API pt2c_status pt2c_context_read_state(pt2c_context *context, int32_t index,
                                             pt2c_tensor *out);
PT2C_API pt2c_status pt2c_context_write_state(pt2c_context *context, int32_t index,
                                              const pt2c_tensor *value);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PT2C_PT2C_H_ */
