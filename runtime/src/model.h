/* The model object and the internal way to create one from explicit parts. Internal:
 * tests build models from hand-written plans through pt2c_model_create_from; a model.so's
 * exported pt2c_model_create (embedded_entry.c) passes the compiler's embedded symbols. */
#ifndef PT2C_RUNTIME_MODEL_H_
#define PT2C_RUNTIME_MODEL_H_

#include <stdint.h>
#ifdef __cplusplus
#include <atomic>
#else
#include <stdatomic.h>
#endif

#include "plan.h"
#include "pt2c/plan_format.h"
#include "pt2c/pt2c.h"
#include "symbolic.h"
#include "weights_file.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything a model is made of. */
typedef struct pt2c_model_source {
  const void *plan; /* plan blob; copied, so it need not outlive the call */
  uint64_t plan_size;
  const void *weights; /* 64-byte aligned; must outlive the model */
  uint64_t weights_size;
  const pt2c_kernel_fn *kernels; /* kernel table of CPU plans; must outlive the model */
  uint32_t num_kernels;
  const pt2c_kernel_split *kernel_splits; /* NULL, or one entry per kernel table entry */
  /* NULL, or the sizes each kernel table entry's buffers were compiled for, as
   * pt2c_kernel_args: kernel_arg_first has num_kernels + 1 entries indexing
   * kernel_arg_bytes (a plan set's graph gets the table from its first kernel on). */
  const uint32_t *kernel_arg_first;
  const uint64_t *kernel_arg_bytes;
  const void *cuda_fatbin; /* CUDA plans: the kernels; read during create only */
  uint64_t cuda_fatbin_size;
  /* ROCm plans: the code object table (include/pt2c/rocm_code_objects.h); read during
   * create only */
  const void *rocm_code_objects;
  uint64_t rocm_code_objects_size;
  /* Plan sets (dispatch.c): the graphs created before this one. A STATE buffer one of
   * them has too (the same weights bytes) is that graph's, not a copy: one model state
   * for the whole model. A CUDA graph also uses the first one's module and device
   * weights. */
  struct pt2c_model *const *siblings;
  uint32_t num_siblings;
} pt2c_model_source;

struct pt2c_cuda_model;
struct pt2c_cpu_library_steps;
struct pt2c_step_profile;
struct pt2c_model_graph;

/* A model is one graph's executable (the fields up to `cuda`), or, for a plan set
 * (dispatch.h), the owner of one such model per graph (num_graphs > 0): then the fields up
 * to `cuda` are unused and plan.header is NULL.
 * An instance (pt2c_model_instance_create, behind a pt2c_context) borrows everything that
 * does not change from `parent` (plan, weights, kernels, packed operands, the set's
 * tables) and owns what a run writes: arena, state, buffer and argument tables, and for a
 * plan set one instance per graph and the dispatch scratch. */
struct pt2c_model {
  const struct pt2c_model *parent; /* an instance's model, else NULL */
  void *plan_copy;                 /* owned 8-byte aligned copy of the plan blob */
  pt2c_plan plan;                  /* views into plan_copy */
  const unsigned char *weights;
  const pt2c_kernel_fn *kernels;
  const pt2c_kernel_split *kernel_splits; /* NULL when the kernels do not split */
  void *arena_allocation;                 /* owned; holds the arena */
  void *arena;                            /* 64-byte aligned, plan.header->arena_size bytes */
  void *state;                            /* owned; this model's copies of STATE buffers */
  void **buffer_data;                     /* per plan buffer; INPUT/OUTPUT entries set per run */
  void **step_arg_data;                   /* max_step_args entries, the kernel's argument array */
  struct pt2c_cuda_model *cuda;           /* owned; the device side of a CUDA plan, else NULL */
  struct pt2c_step_profile *profile;      /* owned; $PT2C_PROFILE's step times, else NULL */
  struct pt2c_cpu_library_steps
      *cpu_library_steps;         /* owned; a CPU plan's GEMM and
                                   * convolution steps on the microkernels, else NULL */
  int64_t *info_dims;             /* owned; plan dims as the info calls give them (-1:
                                   * dynamic) */
  pt2c_weights_file weights_file; /* owned; the private copy of the external weights
                                   * file that `weights` points into, else zeroed */
  /* The last successful run (run.c): the graph's executable that ran (this model, or a
   * graph's instance of a plan set; NULL before any run), and on that executable the
   * symbol values it ended with (data-dependent sizes bound), for
   * pt2c_model_last_output_shape. */
  const struct pt2c_model *last_run;
  int64_t last_sym_values[PT2C_MAX_SYMS];
  /* Plan sets only (dispatch.c). */
  uint32_t num_graphs;
  struct pt2c_model_graph *graphs; /* owned, num_graphs entries */
  void *set_copy;                  /* owned 8-byte aligned copy of the set blob */
  pt2c_tensor *gathered;           /* scratch: a graph's inputs in plan order */
  /* 1 while a run is in progress on this handle, the one the caller holds (run.c): a
   * run rebinds buffers, writes the arena, state and scratch, so a second one at the
   * same time would compute garbage. C++ tests include this header too: they see the
   * same int-sized atomic (C++23 defines C's _Atomic(int) as std::atomic<int>). */
#ifdef __cplusplus
  std::atomic<int> running;
#else
  atomic_int running;
#endif
};

/* Validates the plan against itself and against `source`'s weights and kernel table (or
 * fatbin), then allocates the arena (in device memory for a CUDA plan). On failure
 * *out_model is NULL and pt2c_last_error() says why. */
pt2c_status pt2c_model_create_from(const pt2c_model_source *source, pt2c_model **out_model);

/* pt2c_model_run, _run_method and the context runs: claims the model (PT2C_ERROR_BUSY if a
 * run is in progress on it), picks the graph, checks and runs it on host memory.
 * `function` names the API call in messages. */
pt2c_status pt2c_run_host(pt2c_model *model, const char *function, const char *method,
                          const pt2c_tensor *inputs, int32_t num_inputs, pt2c_tensor *outputs,
                          int32_t num_outputs);

/* pt2c_model_last_output_shape and pt2c_context_last_output_shape (dynamic_dims.c):
 * output `index`'s sizes in `model`'s last successful run on host memory. */
pt2c_status pt2c_last_output_shape(const pt2c_model *model, const char *function, int32_t index,
                                   int64_t *out_dims);

/* Marks the model as running (PT2C_ERROR_BUSY if a call on it is in progress), and ends
 * that: for every call that writes what runs write (run.c says why a flag). */
pt2c_status pt2c_model_claim(pt2c_model *model, const char *function);
void pt2c_model_release(pt2c_model *model);

/* Puts every STATE buffer of the model (each graph's) back to its initial bytes: the
 * body of pt2c_model_reset_state and pt2c_context_reset_state (state.c). */
pt2c_status pt2c_model_reset_state_as(pt2c_model *model, const char *function);

/* A new instance of `parent` (see struct pt2c_model), freed by pt2c_model_destroy; the
 * parent must outlive it. `siblings`: as pt2c_model_source's, for the instance of one
 * graph of a plan set (the instances of the graphs before it); NULL otherwise. */
pt2c_status pt2c_model_instance_create(const pt2c_model *parent, pt2c_model *const *siblings,
                                       uint32_t num_siblings, pt2c_model **out_instance);

/* The STATE buffer of one of `siblings` (plan sets) that holds the same weights bytes as
 * `buffer`: 1 with *out_model and *out_buffer set, or 0 if none does. */
int pt2c_sibling_state(pt2c_model *const *siblings, uint32_t num_siblings,
                       const pt2c_plan_buffer *buffer, const pt2c_model **out_model,
                       uint32_t *out_buffer);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_MODEL_H_ */
