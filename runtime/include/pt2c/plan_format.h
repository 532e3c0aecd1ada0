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
 *   uint32_t           step_args[num_step_args]   (buffer ids, padded to 8 bytes)
 *   int64_t            dims[num_dims]
 *   char               strings[strings_size]      (NUL-terminated names)
 *
 * The runtime rejects (PT2C_ERROR_CORRUPT_MODEL) any plan where an index or byte range
 * leaves its table, arena or weights blob, and also: a blob shorter than the sections, or
 * longer by more than 7 bytes of padding; a non-empty string table whose last byte is not
 * NUL; rank > PT2C_MAX_RANK or a negative dim; an input (output) tensor whose buffer is not
 * the INPUT (OUTPUT) buffer with the tensor's own number as its index.
 */
#ifndef PT2C_PLAN_FORMAT_H_
#define PT2C_PLAN_FORMAT_H_

#include <stdint.h>

#define PT2C_PLAN_MAGIC "PT2CPLN1" /* 8 bytes, no NUL stored */
#define PT2C_PLAN_VERSION 2u

typedef struct pt2c_plan_header {
  char magic[8];
  uint32_t version;
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint32_t num_buffers;
  uint32_t num_steps;
  uint32_t num_step_args;
  uint32_t num_dims;
  uint32_t num_kernels;   /* entries in the kernel table the plan indexes */
  uint32_t num_guards;
  uint32_t reserved;
  uint64_t strings_size;
  uint64_t arena_size;    /* bytes of scratch memory for intermediate buffers */
  uint64_t weights_size;  /* bytes of the weights blob the plan expects */
} pt2c_plan_header;

/* An input or output of the model. */
typedef struct pt2c_plan_tensor {
  uint32_t name;       /* offset into strings */
  uint32_t dtype;      /* pt2c_dtype */
  uint32_t rank;
  uint32_t dims;       /* index of the first of `rank` entries in dims[] */
  uint32_t buffer;     /* the buffer id that holds it */
  uint32_t reserved;
} pt2c_plan_tensor;

typedef enum pt2c_plan_buffer_kind {
  PT2C_BUFFER_INPUT = 0,   /* index = input number */
  PT2C_BUFFER_OUTPUT = 1,  /* index = output number */
  PT2C_BUFFER_WEIGHT = 2,  /* offset into the weights blob */
  PT2C_BUFFER_ARENA = 3,   /* offset into the scratch arena */
  /* Writable model state: a module buffer written in place (a step counter, a KV cache).
   * The runtime gives each model its own copy of weights bytes [offset, offset + nbytes),
   * made at create and kept across runs; the plan's last steps write the new values. */
  PT2C_BUFFER_STATE = 4,
} pt2c_plan_buffer_kind;

/* A memory region a kernel reads or writes. */
typedef struct pt2c_plan_buffer {
  uint32_t kind;   /* pt2c_plan_buffer_kind */
  uint32_t index;  /* input or output number for INPUT / OUTPUT */
  uint64_t offset; /* bytes, for WEIGHT, STATE (into the weights blob) and ARENA */
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

/* One kernel launch: kernel(args...) with the buffers' base pointers. */
typedef struct pt2c_plan_step {
  uint32_t kernel;    /* index into the kernel table */
  uint32_t num_args;
  uint32_t first_arg; /* index into step_args */
  uint32_t reserved;
} pt2c_plan_step;

/* Every generated kernel has this signature: buffer base pointers in the step's order,
 * and the values of the model's symbolic dimensions (unused while shapes are static). */
typedef void (*pt2c_kernel_fn)(void* const* buffers, const int64_t* sym_values);

/* What the compiler's generated object defines in every model.so (hidden symbols):
 *   const unsigned char __pt2c_plan[];            the plan blob above
 *   const uint64_t      __pt2c_plan_size;
 *   const unsigned char __pt2c_weights[];         64-byte aligned weights blob
 *   const uint64_t      __pt2c_weights_size;
 *   const pt2c_kernel_fn __pt2c_kernels[];        plan.num_kernels entries, none null
 *   const uint32_t      __pt2c_num_kernels;       optional (weak): entries in the table;
 *                                                 when defined, plan.num_kernels must not
 *                                                 exceed it
 * The weights blob may be longer than plan.weights_size, never shorter. The runtime's
 * pt2c_model_create() reads these symbols; tests build plans by hand instead. */

#endif /* PT2C_PLAN_FORMAT_H_ */
