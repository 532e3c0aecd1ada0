/* The execution plan embedded in a model.so: plain data written by the compiler
 * (compiler/codegen) and read by the runtime (runtime/src/plan.c).
 *
 * All integers are little endian, every record 8-byte aligned, offsets are from the
 * start of the plan blob. The plan is data, not code, so that the runtime stays one
 * prebuilt library and the compiler never emits control logic.
 *
 *   pt2c_plan_header
 *   pt2c_plan_tensor   inputs[num_inputs]
 *   pt2c_plan_tensor   outputs[num_outputs]
 *   pt2c_plan_buffer   buffers[num_buffers]
 *   pt2c_plan_step     steps[num_steps]
 *   pt2c_plan_guard    guards[num_guards]
 *   pt2c_plan_gpu_kernel gpu_kernels[num_kernels] (CUDA plans only: the kernel table)
 *   pt2c_plan_gemm     gemms[num_gemms]           (see PT2C_STEP_GEMM)
 *   pt2c_plan_conv     convs[num_convs]           (see PT2C_STEP_CONV)
 *   pt2c_plan_sym      syms[num_syms]             (dynamic dimensions; see "Symbolic sizes")
 *   pt2c_plan_tensor   states[num_states]         (the model state by name; see STATE)
 *   uint32_t           step_args[num_step_args]   (buffer ids, padded to 8 bytes)
 *   int64_t            dims[num_dims]
 *   int64_t            sym_code[num_sym_words]    (size expressions)
 *   char               strings[strings_size]      (NUL-terminated names)
 *
 * The runtime rejects (PT2C_ERROR_CORRUPT_MODEL) any plan where an index or byte range
 * leaves its table, arena or weights blob, and also: a blob shorter than the sections, or
 * longer by more than 7 bytes of padding; a non-empty string table whose last byte is not
 * NUL; rank > PT2C_MAX_RANK or a negative dim; an input (output) tensor whose buffer is not
 * the INPUT (OUTPUT) buffer with the tensor's own number as its index; an unknown device;
 * a GPU kernel whose name is outside the string table or whose launch configuration no
 * GPU accepts (a zero dimension, more than 1024 threads per block, grid y/z > 65535).
 *
 * Devices. The header's `device` says where every step runs. The steps are the same
 * records on every device (a kernel index and the buffers it gets, in order); what
 * differs is the kernel table they index:
 *   PT2C_DEVICE_CPU   function pointers in the model.so (__pt2c_kernels below).
 *   PT2C_DEVICE_CUDA  pt2c_plan_gpu_kernel records in the plan itself: an entry point
 *                     of the embedded fatbin (__pt2c_cuda_fatbin) by name, and its grid,
 *                     block and shared memory. The runtime launches it with one
 *                     parameter per step argument: the buffer's device address (a
 *                     64-bit CUdeviceptr), so every kernel's parameters are pointers.
 *                     WEIGHT buffers live in a device copy of the weights blob made at
 *                     create, ARENA buffers in one device allocation, STATE buffers in
 *                     per-model device copies; INPUT and OUTPUT are the caller's
 *                     device memory (pt2c_model_run_device) or staging copies of the
 *                     caller's host memory (pt2c_model_run).
 *   PT2C_DEVICE_ROCM  the same records as CUDA: entry points of the embedded AMD GPU
 *                     code objects (__pt2c_rocm_code_objects, one per gfx
 *                     architecture, rocm_code_objects.h), launched the same way.
 */
#ifndef PT2C_PLAN_FORMAT_H_
#define PT2C_PLAN_FORMAT_H_

#include <stdint.h>

#include "pt2c/pt2c.h" /* pt2c_device */

#define PT2C_PLAN_MAGIC "PT2CPLN1" /* 8 bytes, no NUL stored */
/* 3: header.device (was reserved) and the CUDA kernel table.
 * 4: step kinds (step.kind, was reserved), header.num_gemms and the GEMM table. */
/* 5: symbolic sizes: header.num_syms (was reserved) and num_sym_words, the sym table and
 *    sym_code; a negative dims[] entry. */
/* 6: convolution steps: header.num_convs (was reserved) and the convolution table. */
/* 7: named model state: header.num_states and the state table. */
/* 8: the SYMBOLS buffer kind (CUDA plans with dynamic dimensions). */
/* 9: data-dependent symbols: sym.flags (was reserved), PT2C_SYM_FLAG_PRODUCED. */
/* 10: derived symbols (PT2C_SYM_FLAG_DERIVED) and the PT2C_SYM_MIN opcode. */
#define PT2C_PLAN_VERSION 10u

/* Whether a plan's steps are GPU launches from its pt2c_plan_gpu_kernel table. */
static inline int pt2c_plan_device_is_gpu(uint32_t device) {
  return device == PT2C_DEVICE_CUDA || device == PT2C_DEVICE_ROCM;
}

typedef struct pt2c_plan_header {
  char magic[8];
  uint32_t version;
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint32_t num_buffers;
  uint32_t num_steps;
  uint32_t num_step_args;
  uint32_t num_dims;
  uint32_t num_kernels; /* entries in the kernel table the plan indexes */
  uint32_t num_guards;
  uint32_t device; /* pt2c_device (pt2c.h): where the steps run */
  uint64_t strings_size;
  uint64_t arena_size;    /* bytes of scratch memory for intermediate buffers */
  uint64_t weights_size;  /* bytes of the weights blob the plan expects */
  uint32_t num_gemms;     /* entries in the GEMM table */
  uint32_t num_syms;      /* dynamic dimensions (0: every size is static) */
  uint32_t num_sym_words; /* int64 words of sym_code */
  uint32_t num_convs;     /* entries in the convolution table */
  uint32_t num_states;    /* entries in the state table */
  uint32_t reserved;
} pt2c_plan_header;

/* Symbolic sizes. A model.py with dynamic_shapes gives a plan whose sizes may depend on
 * its dynamic dimensions ("symbols"): sym i is the size of dim `dim` of input `input`,
 * which a run must give within [min, max] (every input dim that is the same symbol must
 * agree; the compiler records the first). A dims[] entry d >= 0 is a static size; d < 0
 * is the expression at sym_code[-d - 1]: a count n, then n postfix (opcode, operand)
 * pairs over a stack of int64 (PT2C_SYM_*). Input dims are plain symbols; output dims
 * may be any expression ("batch*seq"). Buffers are planned at the symbols' maxima (the
 * compiler proves each size grows with the symbols), so `nbytes` bounds every run.
 * Kernels get the symbol values, in sym order, as their second argument. */
typedef struct pt2c_plan_sym {
  uint32_t name;    /* offset into strings: model.py's name for the dimension */
  uint32_t input;   /* the input whose dim gives its value (PRODUCED, DERIVED: 0) */
  uint32_t dim;     /* (PRODUCED: the buffer that holds it; DERIVED: its expression) */
  uint32_t flags;   /* PT2C_SYM_FLAG_* */
  int64_t min, max; /* the inclusive range a run may give */
} pt2c_plan_sym;

/* A data-dependent size (the row count of a nonzero; the exporter's u0, u1, ...): no
 * input gives it; the first step with buffer `dim` among its arguments computes it there
 * (one int64; no other step names that buffer), and the run binds the symbol to that
 * value once the step ran, checking it against [min, max].
 * Until then it is max, which every buffer is planned for; output dims that use it are
 * bounds before the run and exact after it (pt2c_model_last_output_shape). CPU plans
 * only. */
#define PT2C_SYM_FLAG_PRODUCED 1u

/* A size computed from earlier symbols (the exporter's clamps c0, c1, ...: min(u0, 100)
 * for keep[:100] of a data-dependent count): no input gives it and no step computes it;
 * `dim` is the offset in sym_code of its expression (a count, then the postfix pairs, as
 * for a dims[] entry), which uses only symbols before it. The run evaluates it once the
 * symbols it uses are known (after the inputs are read; again after each step that binds
 * a data-dependent size), checking it against [min, max]; until then it is max. CPU
 * plans only. */
#define PT2C_SYM_FLAG_DERIVED 2u

enum {
  PT2C_SYM_CONSTANT = 0, /* push operand */
  PT2C_SYM_SYMBOL = 1,   /* push the value of sym `operand` */
  PT2C_SYM_ADD = 2,      /* pop b, pop a, push a + b (operand unused) */
  PT2C_SYM_SUB = 3,      /* a - b */
  PT2C_SYM_MUL = 4,      /* a * b */
  PT2C_SYM_FLOORDIV = 5, /* floor(a / b) */
  PT2C_SYM_CEILDIV = 6,  /* ceil(a / b) */
  PT2C_SYM_MIN = 7,      /* the smaller of a and b */
};
#define PT2C_SYM_MAX_STACK 16

/* An input or output of the model. */
typedef struct pt2c_plan_tensor {
  uint32_t name;  /* offset into strings */
  uint32_t dtype; /* pt2c_dtype */
  uint32_t rank;
  uint32_t dims;   /* index of the first of `rank` entries in dims[] */
  uint32_t buffer; /* the buffer id that holds it */
  uint32_t flags;  /* PT2C_TENSOR_* bits */
} pt2c_plan_tensor;

/* flags of an input: the model writes it in place (input mutation), so the plan's last
 * steps write its new value into the input's buffer, and a run on host memory copies it
 * back to the caller's tensor. */
#define PT2C_TENSOR_WRITTEN 1u

typedef enum pt2c_plan_buffer_kind {
  PT2C_BUFFER_INPUT = 0,  /* index = input number */
  PT2C_BUFFER_OUTPUT = 1, /* index = output number */
  PT2C_BUFFER_WEIGHT = 2, /* offset into the weights blob */
  PT2C_BUFFER_ARENA = 3,  /* offset into the scratch arena */
  /* Writable model state: a module buffer written in place (a step counter, a KV cache).
   * The runtime gives each model its own copy of weights bytes [offset, offset + nbytes),
   * made at create and kept across runs; the plan's last steps write the new values.
   * The state table names it (a pt2c_plan_tensor whose buffer is this one, with `index`
   * the record's number): the module buffer's name, dtype and static dims, which
   * pt2c_model_state_info reports and pt2c_model_read_state / _write_state check. */
  PT2C_BUFFER_STATE = 4,
  /* The run's symbol values (num_syms int64 in sym order; nbytes = 8 * num_syms, offset
   * 0), in device memory the runtime writes before the steps: the GPU kernels of a
   * CUDA plan with dynamic dimensions read their sizes there. CUDA plans only (CPU
   * kernels get the values as an argument). */
  PT2C_BUFFER_SYMBOLS = 5,
} pt2c_plan_buffer_kind;

/* A memory region a kernel reads or writes. */
typedef struct pt2c_plan_buffer {
  uint32_t kind;   /* pt2c_plan_buffer_kind */
  uint32_t index;  /* input or output number for INPUT / OUTPUT */
  uint64_t offset; /* bytes, for WEIGHT, STATE (into the weights blob) and ARENA; a
                    * multiple of 64, as kernels assume aligned buffers */
  uint64_t nbytes;
} pt2c_plan_buffer;

/* An assumption made at export that the graph itself computes: a branch taken on
 * tensor data, an `.item()` value. After the last step the runtime reads the one element
 * in `buffer` and fails the run with PT2C_ERROR_GUARD and `message` unless it equals
 * `expected`. The compiler keeps the buffer alive until the end of the run. */
typedef struct pt2c_plan_guard {
  uint32_t buffer;
  uint32_t dtype;   /* pt2c_dtype of the element */
  uint32_t message; /* offset into strings: what was assumed, and where in model.py */
  uint32_t reserved;
  double expected;
} pt2c_plan_guard;

typedef enum pt2c_plan_step_kind {
  PT2C_STEP_KERNEL = 0, /* kernel(args...) with the buffers' base pointers */
  /* A matrix product that a library may serve: cuBLASLt in CUDA plans, the runtime's
   * microkernels (runtime/src/cpu) in CPU plans. `kernel` indexes gemms[]; the args are
   * A, B, then the bias when the epilogue has one, then C (the residual) for ADD and
   * BIAS_ADD, then D. C has D's shape and layout (ld_d, stride_d) and shares no byte with
   * D, A or B (the compiler's plans never make it so: the CPU microkernels accumulate
   * into D over blocks of K, so C must not be D even where cuBLASLt would allow it).
   * The next gemm.num_fallback_steps steps compute the same D with the model's own
   * kernels: the runtime runs either the library call or those steps, never both. */
  PT2C_STEP_GEMM = 1,
  /* A convolution that a library may serve: cuDNN in CUDA plans, the runtime's
   * microkernels in CPU plans. `kernel` indexes convs[]; the args are x, w, then the bias
   * when the epilogue has one, then z (the residual) for BIAS_ADD_RELU, then y. As for
   * GEMM steps, the next conv.num_fallback_steps steps compute the same y with the
   * model's own kernels. */
  PT2C_STEP_CONV = 2,
} pt2c_plan_step_kind;

/* One step of the plan. */
typedef struct pt2c_plan_step {
  uint32_t kernel; /* index into the kernel table (or the GEMM table) */
  uint32_t num_args;
  uint32_t first_arg; /* index into step_args */
  uint32_t kind;      /* pt2c_plan_step_kind */
} pt2c_plan_step;

/* One entry of a CUDA plan's kernel table: which kernel of the embedded fatbin, and how
 * to launch it (shapes are static, so the configuration is fixed per kernel). */
typedef struct pt2c_plan_gpu_kernel {
  uint32_t name;         /* offset into strings: the kernel's entry point name */
  uint32_t shared_bytes; /* dynamic shared memory per block */
  uint32_t grid[3];      /* blocks in x, y, z */
  uint32_t block[3];     /* threads per block in x, y, z */
} pt2c_plan_gpu_kernel;

typedef enum pt2c_gemm_epilogue {
  PT2C_GEMM_EPILOGUE_NONE = 0,      /* D = A x B */
  PT2C_GEMM_EPILOGUE_BIAS = 1,      /* D = A x B + bias[n], bias broadcast over rows */
  PT2C_GEMM_EPILOGUE_BIAS_RELU = 2, /* D = max(A x B + bias[n], 0) */
  /* The residual adds of a transformer block (h = x + o_proj(attn)): with beta = 1 and C
   * the residual, cuBLASLt and hipBLASLt add it in the GEMM's store, one launch fewer. */
  PT2C_GEMM_EPILOGUE_ADD = 3,      /* D = A x B + C */
  PT2C_GEMM_EPILOGUE_BIAS_ADD = 4, /* D = A x B + bias[n] + C (a Linear with bias, then
                                    * the residual: GPT-2, ViT, BERT) */
  /* A bottleneck block's last 1x1 convolution as a GEMM (ResNet-50 channels-last): the
   * libraries' ReLU epilogue applies to the sum that includes beta * C. */
  PT2C_GEMM_EPILOGUE_BIAS_ADD_RELU = 5, /* D = max(A x B + bias[n] + C, 0) */
} pt2c_gemm_epilogue;

/* Whether an epilogue reads a bias vector (the step's third argument). */
static inline int pt2c_gemm_epilogue_has_bias(uint32_t epilogue) {
  return epilogue == PT2C_GEMM_EPILOGUE_BIAS || epilogue == PT2C_GEMM_EPILOGUE_BIAS_RELU ||
         epilogue == PT2C_GEMM_EPILOGUE_BIAS_ADD || epilogue == PT2C_GEMM_EPILOGUE_BIAS_ADD_RELU;
}

/* Whether an epilogue adds a C matrix (the step's argument before D). */
static inline int pt2c_gemm_epilogue_has_c(uint32_t epilogue) {
  return epilogue == PT2C_GEMM_EPILOGUE_ADD || epilogue == PT2C_GEMM_EPILOGUE_BIAS_ADD ||
         epilogue == PT2C_GEMM_EPILOGUE_BIAS_ADD_RELU;
}

/* Whether an epilogue ends with max(., 0). */
static inline int pt2c_gemm_epilogue_has_relu(uint32_t epilogue) {
  return epilogue == PT2C_GEMM_EPILOGUE_BIAS_RELU || epilogue == PT2C_GEMM_EPILOGUE_BIAS_ADD_RELU;
}

/* What an epilogue adds to "A x B", for descriptions (pt2c inspect, PT2C_PROFILE). */
static inline const char *pt2c_gemm_epilogue_suffix(uint32_t epilogue) {
  switch (epilogue) {
  case PT2C_GEMM_EPILOGUE_BIAS:
    return " + bias";
  case PT2C_GEMM_EPILOGUE_BIAS_RELU:
    return " + bias, relu";
  case PT2C_GEMM_EPILOGUE_ADD:
    return " + C";
  case PT2C_GEMM_EPILOGUE_BIAS_ADD:
    return " + bias + C";
  case PT2C_GEMM_EPILOGUE_BIAS_ADD_RELU:
    return " + bias + C, relu";
  default:
    return "";
  }
}

/* D[b, m, n] = sum_k A[b, m, k] * B[b, k, n] (+ epilogue), every matrix row-major in its
 * buffer at element offset b * stride. A transposed operand is stored as its transpose
 * (A as [K, M], B as [N, K]); ld_* is the row pitch in elements as stored. */
typedef struct pt2c_plan_gemm {
  uint32_t dtype;          /* pt2c_dtype of A, B, bias and D */
  uint32_t epilogue;       /* pt2c_gemm_epilogue */
  uint32_t transpose_a;    /* 0 or 1 */
  uint32_t transpose_b;    /* 0 or 1 */
  uint64_t m, n, k, batch; /* batch >= 1 */
  uint64_t ld_a, ld_b, ld_d;
  uint64_t stride_a, stride_b, stride_d; /* elements between batch entries */
  uint32_t num_fallback_steps;           /* the steps after this one that compute D without it */
  uint32_t input_dtype; /* 0: A and B are `dtype`; else pt2c_dtype of A and B (f16 or
                         * bf16, with an f32 D and no epilogue: a half-precision
                         * product the model widens first, e.g. attention scores) */
} pt2c_plan_gemm;

typedef enum pt2c_conv_epilogue {
  PT2C_CONV_EPILOGUE_NONE = 0,          /* y = conv(x, w) */
  PT2C_CONV_EPILOGUE_BIAS = 1,          /* y = conv(x, w) + bias[k], over every channel k */
  PT2C_CONV_EPILOGUE_BIAS_RELU = 2,     /* y = max(conv(x, w) + bias[k], 0) */
  PT2C_CONV_EPILOGUE_BIAS_ADD_RELU = 3, /* y = max(conv(x, w) + bias[k] + z, 0) (residual) */
  PT2C_CONV_EPILOGUE_BIAS_SILU = 4,     /* y = silu(conv(x, w) + bias[k]), silu(v) =
                                         * v * sigmoid(v); CPU plans only */
} pt2c_conv_epilogue;

/* Where a convolution's x, z and y keep their channels (w is [K, C/G, kernel...] in
 * both). */
typedef enum pt2c_conv_layout {
  PT2C_CONV_LAYOUT_NCHW = 0,          /* [N, C, spatial...] */
  PT2C_CONV_LAYOUT_CHANNELS_LAST = 1, /* [N, spatial..., C]: the plan's kernels read and
                                       * write it (CUDA plans only) */
} pt2c_conv_layout;

#define PT2C_CONV_MAX_SPATIAL 3

/* y[n, k, o...] = sum_{c, r...} x_padded[n, g * C/G + c, o * stride + r * dilation]
 *                               * w[k, c, r...]   with g = k / (K / G)
 * (prim.convolution: torch's convolution with groups, a cross-correlation). x is
 * [N, C, input...], w [K, C/G, kernel...], y and z [N, K, output...], bias [K], all
 * contiguous (NCHW; channels-last by `layout`); padding is the same on both sides of each
 * spatial dim. Entries of the
 * spatial arrays past spatial_rank are 1 (sizes, strides, dilations) and 0 (padding). */
typedef struct pt2c_plan_conv {
  uint32_t dtype;        /* pt2c_dtype of x, w, bias, z and y: f32, f16 or bf16 */
  uint32_t epilogue;     /* pt2c_conv_epilogue */
  uint32_t spatial_rank; /* 1 to PT2C_CONV_MAX_SPATIAL */
  uint32_t groups;       /* G >= 1, dividing C and K */
  uint64_t batch, in_channels, out_channels; /* N, C, K */
  uint64_t input[PT2C_CONV_MAX_SPATIAL];
  uint64_t kernel[PT2C_CONV_MAX_SPATIAL];
  uint64_t output[PT2C_CONV_MAX_SPATIAL];
  uint64_t stride[PT2C_CONV_MAX_SPATIAL];
  uint64_t padding[PT2C_CONV_MAX_SPATIAL];
  uint64_t dilation[PT2C_CONV_MAX_SPATIAL];
  uint32_t num_fallback_steps; /* the steps after this one that compute y without it */
  uint32_t layout;             /* pt2c_conv_layout of x, z and y */
} pt2c_plan_conv;

/* Every generated CPU kernel has this signature: buffer base pointers in the step's order,
 * and the values of the plan's symbols (NULL when it has none). */
typedef void (*pt2c_kernel_fn)(void *const *buffers, const int64_t *sym_values);

/* A generated CPU kernel whose work divides along one loop (the compiler's
 * pt2c-split-kernel-loops): range(buffers, sym_values, begin, end) runs the iterations
 * [begin, end) of that loop, and calls on disjoint ranges touch disjoint bytes of every
 * buffer the kernel writes; the kernel table's entry runs [0, extent). */
typedef void (*pt2c_kernel_range_fn)(void *const *buffers, const int64_t *sym_values, int64_t begin,
                                     int64_t end);
typedef struct pt2c_kernel_split {
  pt2c_kernel_range_fn range; /* NULL: the kernel runs whole */
  int64_t extent;             /* iterations of the split loop */
  int64_t work;               /* loop iterations of the whole kernel: whether a split pays */
} pt2c_kernel_split;

/* The buffers each CPU kernel table entry was compiled for: entry k takes
 * first[k + 1] - first[k] buffers, of at least bytes[first[k]], bytes[first[k] + 1], ...
 * bytes (0: a size that depends on dynamic dimensions). Create checks every kernel step
 * of the plan against it, so that no plan can make a kernel touch bytes past its
 * buffers. */
typedef struct pt2c_kernel_args {
  const uint32_t *first; /* one entry per kernel table entry, and one past the last */
  const uint64_t *bytes;
} pt2c_kernel_args;

/* Plan sets. A model.so compiled from a multi-graph artifact (README: `signatures`) embeds
 * a plan set instead of a single plan: the dispatch table and one plan per graph. The
 * graphs share the weights blob and the kernel table. The set blob is:
 *
 *   pt2c_plan_set_header
 *   pt2c_plan_set_graph graphs[num_graphs]
 *   pt2c_plan_slot      slots[num_slots]
 *   char                strings[strings_size]  (graph, method and parameter names)
 *   each graph's plan blob (the format above) at its plan_offset, 8-byte aligned
 *
 * Dispatch: a caller's inputs are matched against the graphs of one method: slot i of a
 * graph is present when its input >= 0 (the plan input it binds; two slots may bind the
 * same input when the example passed one tensor twice) and absent (the method got None)
 * when it is -1. A graph matches when exactly its present slots are given, each with its
 * plan input's dtype and sizes. A graph's plan indexes the kernel table from its
 * first_kernel on. Graphs are ordered with forward()'s first; the default method is
 * graph 0's. A blob that starts with PT2C_PLAN_MAGIC is a lone plan: one graph, method
 * "forward", one present slot per input.
 *
 * The runtime rejects a set whose graphs overlap the header, tables or each other, or
 * leave the blob; whose names leave the string table; whose slots leave the slot table
 * or name a plan input that does not exist; or where a plan input is bound by no slot. */
#define PT2C_PLAN_SET_MAGIC "PT2CSET1" /* 8 bytes, no NUL stored */
#define PT2C_PLAN_SET_VERSION 1u

typedef struct pt2c_plan_set_header {
  char magic[8];
  uint32_t version;
  uint32_t num_graphs;
  uint32_t num_slots;
  uint32_t reserved;
  uint64_t strings_size;
} pt2c_plan_set_header;

typedef struct pt2c_plan_set_graph {
  uint32_t name;       /* offset into the set's strings: the signature's name */
  uint32_t method;     /* offset into the set's strings: "forward", "encode", ... */
  uint32_t first_slot; /* slots[first_slot, first_slot + num_slots) */
  uint32_t num_slots;
  uint32_t first_kernel; /* where this graph's kernels start in the kernel table */
  uint32_t reserved;
  uint64_t plan_offset; /* from the start of the set blob; 8-byte aligned */
  uint64_t plan_size;
} pt2c_plan_set_graph;

/* One positional argument of a graph's method. */
typedef struct pt2c_plan_slot {
  uint32_t name; /* offset into the set's strings: the parameter's name */
  int32_t input; /* the plan input it binds, or -1: absent (None) in this graph */
} pt2c_plan_slot;

/* What the compiler's generated object defines in every model.so (hidden symbols):
 *   const unsigned char __pt2c_plan[];            the plan blob above, or a plan set
 *   const uint64_t      __pt2c_plan_size;
 *   const uint64_t      __pt2c_plan_checksum;     the plan blob's pt2c_content_hash
 *                                                 (runtime/src/content_hash.h), checked
 *                                                 at create before the plan is parsed
 *   const unsigned char __pt2c_weights[];         64-byte aligned weights blob
 *   const uint64_t      __pt2c_weights_size;
 *   const pt2c_kernel_fn __pt2c_kernels[];        plan.num_kernels entries, none null
 *   const uint32_t      __pt2c_num_kernels;       optional (weak): entries in the table;
 *                                                 when defined, plan.num_kernels must not
 *                                                 exceed it (CPU plans; 0 for CUDA ones)
 *   const pt2c_kernel_split* const __pt2c_kernel_splits;  optional (weak, NULL by
 *                                                 default): one entry per kernel table
 *                                                 entry, how CPU kernels split among
 *                                                 threads
 *   const pt2c_kernel_args* const __pt2c_kernel_args;  optional (weak, NULL by default):
 *                                                 the buffer sizes the CPU kernels were
 *                                                 compiled for
 *   const unsigned char __pt2c_cuda_fatbin[];     CUDA plans (weak otherwise): 8-byte
 *                                                 aligned fatbin (cubins + PTX)
 *   const uint64_t      __pt2c_cuda_fatbin_size;
 *   const uint64_t      __pt2c_external_weights[4];  optional (weak): a model compiled with
 *                                                 --external-weights, whose blob is in a
 *                                                 file instead (weights_format.h; then
 *                                                 __pt2c_weights is empty)
 * The weights blob may be longer than plan.weights_size, never shorter. The runtime's
 * pt2c_model_create() reads these symbols; tests build plans by hand instead. */

#endif /* PT2C_PLAN_FORMAT_H_ */
