/* Plan parsing and validation: everything a corrupt or hostile plan could get wrong is
 * caught here, so that the run loop can index the plan without further checks. */
#include "plan.h"

#include <inttypes.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "shape.h"
#include "symbolic.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the plan format is little endian; this runtime reads it in place"
#endif

/* The compiler writes these structs byte for byte; their layout is the format. */
_Static_assert(sizeof(pt2c_plan_header) == 96, "pt2c_plan_header layout");
_Static_assert(sizeof(pt2c_plan_sym) == 32, "pt2c_plan_sym layout");
_Static_assert(sizeof(pt2c_plan_guard) == 24, "pt2c_plan_guard layout");
_Static_assert(sizeof(pt2c_plan_tensor) == 24, "pt2c_plan_tensor layout");
_Static_assert(sizeof(pt2c_plan_buffer) == 24, "pt2c_plan_buffer layout");
_Static_assert(sizeof(pt2c_plan_step) == 16, "pt2c_plan_step layout");
_Static_assert(sizeof(pt2c_plan_gpu_kernel) == 32, "pt2c_plan_gpu_kernel layout");
_Static_assert(sizeof(pt2c_plan_gemm) == 104, "pt2c_plan_gemm layout");
_Static_assert(sizeof(pt2c_plan_conv) == 192, "pt2c_plan_conv layout");

#define CORRUPT(...) pt2c_fail(PT2C_ERROR_CORRUPT_MODEL, "corrupt plan: " __VA_ARGS__)

static uint64_t round_up_8(uint64_t value) { return (value + 7) & ~(uint64_t)7; }

/* Whether [offset, offset + nbytes) lies within [0, limit), without overflow. */
static int range_fits(uint64_t offset, uint64_t nbytes, uint64_t limit) {
  uint64_t end;
  return !__builtin_add_overflow(offset, nbytes, &end) && end <= limit;
}

/* Lays the sections out after the header and checks that the blob holds them all. */
static pt2c_status locate_sections(const unsigned char *base, uint64_t size, pt2c_plan *plan) {
  const pt2c_plan_header *header = plan->header;
  /* Counts are 32-bit and records at most 104 bytes, so only strings_size can overflow. */
  uint64_t offset = sizeof(pt2c_plan_header);
  plan->inputs = (const pt2c_plan_tensor *)(base + offset);
  offset += (uint64_t)header->num_inputs * sizeof(pt2c_plan_tensor);
  plan->outputs = (const pt2c_plan_tensor *)(base + offset);
  offset += (uint64_t)header->num_outputs * sizeof(pt2c_plan_tensor);
  plan->buffers = (const pt2c_plan_buffer *)(base + offset);
  offset += (uint64_t)header->num_buffers * sizeof(pt2c_plan_buffer);
  plan->steps = (const pt2c_plan_step *)(base + offset);
  offset += (uint64_t)header->num_steps * sizeof(pt2c_plan_step);
  plan->guards = (const pt2c_plan_guard *)(base + offset);
  offset += (uint64_t)header->num_guards * sizeof(pt2c_plan_guard);
  plan->gpu_kernels = (const pt2c_plan_gpu_kernel *)(base + offset);
  if (pt2c_plan_device_is_gpu(header->device))
    offset += (uint64_t)header->num_kernels * sizeof(pt2c_plan_gpu_kernel);
  plan->gemms = (const pt2c_plan_gemm *)(base + offset);
  offset += (uint64_t)header->num_gemms * sizeof(pt2c_plan_gemm);
  plan->convs = (const pt2c_plan_conv *)(base + offset);
  offset += (uint64_t)header->num_convs * sizeof(pt2c_plan_conv);
  plan->syms = (const pt2c_plan_sym *)(base + offset);
  offset += (uint64_t)header->num_syms * sizeof(pt2c_plan_sym);
  plan->states = (const pt2c_plan_tensor *)(base + offset);
  offset += (uint64_t)header->num_states * sizeof(pt2c_plan_tensor);
  plan->step_args = (const uint32_t *)(base + offset);
  offset += round_up_8((uint64_t)header->num_step_args * sizeof(uint32_t));
  plan->dims = (const int64_t *)(base + offset);
  offset += (uint64_t)header->num_dims * sizeof(int64_t);
  plan->sym_code = (const int64_t *)(base + offset);
  offset += (uint64_t)header->num_sym_words * sizeof(int64_t);
  plan->strings = (const char *)(base + offset);

  uint64_t end;
  if (__builtin_add_overflow(offset, header->strings_size, &end))
    return CORRUPT("strings_size %" PRIu64 " is impossibly large", header->strings_size);
  if (end > size)
    return CORRUPT("truncated: the header describes %" PRIu64 " bytes, the blob has %" PRIu64, end,
                   size);
  if (size > round_up_8(end))
    return CORRUPT("%" PRIu64 " trailing bytes after the %" PRIu64 "-byte plan", size - end, end);
  if (header->strings_size > 0 && plan->strings[header->strings_size - 1] != '\0')
    return CORRUPT("the string table is not NUL-terminated");
  return PT2C_OK;
}

/* Checks one input or output record; `role` is "input" or "output". */
static pt2c_status check_tensor(const pt2c_plan *plan, const char *role, uint32_t number,
                                const pt2c_plan_tensor *tensor,
                                pt2c_plan_buffer_kind expected_kind) {
  const pt2c_plan_header *header = plan->header;
  if (tensor->name >= header->strings_size)
    return CORRUPT("%s %u: name offset %u is outside the %" PRIu64 "-byte string table", role,
                   number, tensor->name, header->strings_size);
  if (!pt2c_dtype_is_valid(tensor->dtype))
    return CORRUPT("%s %u: unknown dtype %u", role, number, tensor->dtype);
  if (tensor->rank > PT2C_MAX_RANK)
    return CORRUPT("%s %u: rank %u exceeds the maximum %d", role, number, tensor->rank,
                   PT2C_MAX_RANK);
  if (!range_fits(tensor->dims, tensor->rank, header->num_dims))
    return CORRUPT("%s %u: dims [%u, %u + %u) are outside the %u-entry dims table", role, number,
                   tensor->dims, tensor->dims, tensor->rank, header->num_dims);
  /* Dynamic sizes at their maxima: the largest tensor a run may pass. */
  int64_t maxima[PT2C_MAX_SYMS], dims[PT2C_MAX_RANK];
  pt2c_sym_maxima(plan, maxima);
  pt2c_sym_resolve(plan, tensor->dims, tensor->rank, maxima, dims);
  uint64_t nbytes;
  if (!pt2c_shape_nbytes(pt2c_dtype_element_size((pt2c_dtype)tensor->dtype), tensor->rank, dims,
                         &nbytes))
    return CORRUPT("%s %u: a dim is negative or the byte size overflows", role, number);
  if (tensor->buffer >= header->num_buffers)
    return CORRUPT("%s %u: buffer %u is outside the %u buffers", role, number, tensor->buffer,
                   header->num_buffers);
  const pt2c_plan_buffer *buffer = &plan->buffers[tensor->buffer];
  if (buffer->kind != (uint32_t)expected_kind || buffer->index != number)
    return CORRUPT("%s %u: buffer %u is not %s buffer %u", role, number, tensor->buffer, role,
                   number);
  /* Kernels may touch the buffer's bytes (model.c checks them against each kernel); the
   * caller's tensor holds what the dims say. */
  if (buffer->nbytes > nbytes)
    return CORRUPT("%s %u: buffer %u has %" PRIu64 " bytes, more than the %" PRIu64
                   " its dtype and dims give",
                   role, number, tensor->buffer, buffer->nbytes, nbytes);
  return PT2C_OK;
}

/* A state record: a tensor of static sizes whose bytes are exactly its STATE buffer's
 * (reading and writing the state copy that many bytes). */
static pt2c_status check_state(const pt2c_plan *plan, uint32_t number) {
  const pt2c_plan_tensor *state = &plan->states[number];
  pt2c_status status = check_tensor(plan, "state", number, state, PT2C_BUFFER_STATE);
  if (status != PT2C_OK)
    return status;
  uint64_t nbytes = 0;
  if (!pt2c_shape_nbytes(pt2c_dtype_element_size((pt2c_dtype)state->dtype), state->rank,
                         plan->dims + state->dims, &nbytes) ||
      nbytes != plan->buffers[state->buffer].nbytes)
    return CORRUPT("state %u: its dims are dynamic or do not give its buffer's %" PRIu64 " bytes",
                   number, plan->buffers[state->buffer].nbytes);
  return PT2C_OK;
}

enum { kBufferAlignment = 64 }; /* the compiler's arena and weights blob layout */

static pt2c_status check_buffer(const pt2c_plan_header *header, uint32_t id,
                                const pt2c_plan_buffer *buffer) {
  int placed = buffer->kind == PT2C_BUFFER_WEIGHT || buffer->kind == PT2C_BUFFER_STATE ||
               buffer->kind == PT2C_BUFFER_ARENA;
  if (placed && buffer->offset % kBufferAlignment != 0)
    return CORRUPT("buffer %u: offset %" PRIu64 " is not a multiple of %d", id, buffer->offset,
                   kBufferAlignment);
  switch ((pt2c_plan_buffer_kind)buffer->kind) {
  case PT2C_BUFFER_INPUT:
    if (buffer->index >= header->num_inputs)
      return CORRUPT("buffer %u: input %u does not exist (%u inputs)", id, buffer->index,
                     header->num_inputs);
    return PT2C_OK;
  case PT2C_BUFFER_OUTPUT:
    if (buffer->index >= header->num_outputs)
      return CORRUPT("buffer %u: output %u does not exist (%u outputs)", id, buffer->index,
                     header->num_outputs);
    return PT2C_OK;
  case PT2C_BUFFER_WEIGHT:
  case PT2C_BUFFER_STATE:
    if (!range_fits(buffer->offset, buffer->nbytes, header->weights_size))
      return CORRUPT("buffer %u: weight bytes [%" PRIu64 ", +%" PRIu64 ") are outside the %" PRIu64
                     "-byte weights blob",
                     id, buffer->offset, buffer->nbytes, header->weights_size);
    return PT2C_OK;
  case PT2C_BUFFER_ARENA:
    if (!range_fits(buffer->offset, buffer->nbytes, header->arena_size))
      return CORRUPT("buffer %u: arena bytes [%" PRIu64 ", +%" PRIu64 ") are outside the %" PRIu64
                     "-byte arena",
                     id, buffer->offset, buffer->nbytes, header->arena_size);
    return PT2C_OK;
  case PT2C_BUFFER_SYMBOLS:
    if (!pt2c_plan_device_is_gpu(header->device) || header->num_syms == 0 || buffer->offset != 0 ||
        buffer->nbytes != (uint64_t)header->num_syms * sizeof(int64_t))
      return CORRUPT("buffer %u: a symbol-values buffer must hold the %u symbols of a GPU "
                     "plan",
                     id, header->num_syms);
    return PT2C_OK;
  }
  return CORRUPT("buffer %u: unknown kind %u", id, buffer->kind);
}

static pt2c_status check_step(const pt2c_plan *plan, uint32_t number, const pt2c_plan_step *step) {
  const pt2c_plan_header *header = plan->header;
  if (step->kind == PT2C_STEP_GEMM) {
    if (step->kernel >= header->num_gemms)
      return CORRUPT("step %u: GEMM %u is outside the %u-entry GEMM table", number, step->kernel,
                     header->num_gemms);
  } else if (step->kind == PT2C_STEP_CONV) {
    if (step->kernel >= header->num_convs)
      return CORRUPT("step %u: convolution %u is outside the %u-entry convolution table", number,
                     step->kernel, header->num_convs);
  } else if (step->kind != PT2C_STEP_KERNEL) {
    return CORRUPT("step %u: unknown kind %u", number, step->kind);
  } else if (step->kernel >= header->num_kernels)
    return CORRUPT("step %u: kernel %u is outside the %u-entry kernel table", number, step->kernel,
                   header->num_kernels);
  if (!range_fits(step->first_arg, step->num_args, header->num_step_args))
    return CORRUPT("step %u: args [%u, %u + %u) are outside the %u step args", number,
                   step->first_arg, step->first_arg, step->num_args, header->num_step_args);
  for (uint32_t i = 0; i < step->num_args; ++i) {
    uint32_t buffer = plan->step_args[step->first_arg + i];
    if (buffer >= header->num_buffers)
      return CORRUPT("step %u: arg %u is buffer %u, outside the %u buffers", number, i, buffer,
                     header->num_buffers);
  }
  return PT2C_OK;
}

/* Elements an operand spans: (batch - 1) * stride + (rows - 1) * ld + cols. */
static int operand_fits(const pt2c_plan *plan, uint32_t buffer, uint64_t element_size,
                        uint64_t batch, uint64_t stride, uint64_t rows, uint64_t cols,
                        uint64_t ld) {
  uint64_t a, b, span;
  if (batch == 0 || rows == 0 || cols == 0 || cols > ld)
    return 0;
  if (__builtin_mul_overflow(batch - 1, stride, &a) || __builtin_mul_overflow(rows - 1, ld, &b) ||
      __builtin_add_overflow(a, b, &span) || __builtin_add_overflow(span, cols, &span) ||
      __builtin_mul_overflow(span, element_size, &span))
    return 0;
  return span <= plan->buffers[buffer].nbytes;
}

/* Whether two buffers may share bytes: the same caller's tensor, or overlapping ranges of
 * one memory (arena, weights, state). */
static int buffers_overlap(const pt2c_plan *plan, uint32_t a, uint32_t b) {
  const pt2c_plan_buffer *x = &plan->buffers[a], *y = &plan->buffers[b];
  if (a == b)
    return 1;
  if (x->kind != y->kind)
    return 0;
  if (x->kind == PT2C_BUFFER_INPUT || x->kind == PT2C_BUFFER_OUTPUT)
    return x->index == y->index;
  return x->offset < y->offset + y->nbytes && y->offset < x->offset + x->nbytes;
}

/* What a library step (`what`: "GEMM" or "convolution") must have whatever it computes:
 * the `expected_args` buffers its epilogue takes, and `num_fallback_steps` steps after it
 * in the plan. */
static pt2c_status check_library_args(const pt2c_plan *plan, uint32_t number,
                                      const pt2c_plan_step *step, const char *what,
                                      uint32_t expected_args, uint32_t num_fallback_steps) {
  if (step->num_args != expected_args)
    return CORRUPT("step %u: a %s with this epilogue takes %u buffers, not %u", number, what,
                   expected_args, step->num_args);
  if (num_fallback_steps > plan->header->num_steps - 1 - number)
    return CORRUPT("step %u: %u fallback steps run past the plan's end", number,
                   num_fallback_steps);
  return PT2C_OK;
}

/* A library step's operands have the fixed sizes its record gives. */
static pt2c_status check_library_sizes_fixed(const pt2c_plan *plan, uint32_t number,
                                             const pt2c_plan_step *step, const char *what) {
  const uint32_t *args = plan->step_args + step->first_arg;
  for (uint32_t i = 0; i < step->num_args; ++i)
    if (pt2c_plan_buffer_is_dynamic(plan, args[i]))
      return CORRUPT("step %u: a %s's fixed sizes on buffer %u, whose size is dynamic", number,
                     what, args[i]);
  return PT2C_OK;
}

/* A GEMM step and its record: the operands fit their buffers, and the fallback steps
 * exist. Called after every step's own checks. */
static pt2c_status check_gemm_step(const pt2c_plan *plan, uint32_t number,
                                   const pt2c_plan_step *step) {
  const pt2c_plan_gemm *g = &plan->gemms[step->kernel];
  if (g->dtype != PT2C_F32 && g->dtype != PT2C_F16 && g->dtype != PT2C_BF16)
    return CORRUPT("step %u: GEMM dtype %u is not f32, f16 or bf16", number, g->dtype);
  if (g->epilogue > PT2C_GEMM_EPILOGUE_BIAS_ADD_RELU || g->transpose_a > 1 || g->transpose_b > 1)
    return CORRUPT("step %u: unknown GEMM epilogue or transpose", number);
  if (g->input_dtype != 0 && ((g->input_dtype != PT2C_F16 && g->input_dtype != PT2C_BF16) ||
                              g->dtype != PT2C_F32 || g->epilogue != PT2C_GEMM_EPILOGUE_NONE))
    return CORRUPT("step %u: GEMM input dtype %u: only f16 or bf16 operands of an f32 product "
                   "without epilogue",
                   number, g->input_dtype);
  int has_bias = pt2c_gemm_epilogue_has_bias(g->epilogue),
      has_c = pt2c_gemm_epilogue_has_c(g->epilogue);
  uint32_t expected_args = 3 + (uint32_t)has_bias + (uint32_t)has_c;
  pt2c_status status =
      check_library_args(plan, number, step, "GEMM", expected_args, g->num_fallback_steps);
  if (status == PT2C_OK)
    status = check_library_sizes_fixed(plan, number, step, "GEMM");
  if (status != PT2C_OK)
    return status;
  uint64_t size = pt2c_dtype_element_size((pt2c_dtype)g->dtype);
  uint64_t in_size = g->input_dtype ? pt2c_dtype_element_size((pt2c_dtype)g->input_dtype) : size;
  const uint32_t *args = plan->step_args + step->first_arg;
  int fits = operand_fits(plan, args[0], in_size, g->batch, g->stride_a,
                          g->transpose_a ? g->k : g->m, g->transpose_a ? g->m : g->k, g->ld_a) &&
             operand_fits(plan, args[1], in_size, g->batch, g->stride_b,
                          g->transpose_b ? g->n : g->k, g->transpose_b ? g->k : g->n, g->ld_b) &&
             operand_fits(plan, args[expected_args - 1], size, g->batch, g->stride_d, g->m, g->n,
                          g->ld_d) &&
             (!has_bias || operand_fits(plan, args[2], size, 1, 0, 1, g->n, g->n)) &&
             (!has_c || operand_fits(plan, args[expected_args - 2], size, g->batch, g->stride_d,
                                     g->m, g->n, g->ld_d));
  if (!fits)
    return CORRUPT("step %u: a GEMM operand is empty or larger than its buffer", number);
  /* The CPU microkernels accumulate into D over blocks of K, reading C at the last. */
  if (has_c && buffers_overlap(plan, args[expected_args - 2], args[expected_args - 1]))
    return CORRUPT("step %u: the GEMM's C and D share bytes", number);
  /* Distinct batch entries write distinct bytes of D (A and B may be shared, stride 0):
   * this also bounds the batch by D's buffer. */
  if (g->batch > 1 && g->stride_d < (g->m - 1) * g->ld_d + g->n)
    return CORRUPT("step %u: the GEMM's %" PRIu64 " products overlap in D (stride %" PRIu64 ")",
                   number, g->batch, g->stride_d);
  return PT2C_OK;
}

/* Whether `buffer` holds the product of `factors` elements of `size` bytes. */
static int holds(const pt2c_plan *plan, uint32_t buffer, uint64_t size, const uint64_t *factors,
                 int num_factors) {
  uint64_t nbytes = size;
  for (int i = 0; i < num_factors; ++i)
    if (__builtin_mul_overflow(nbytes, factors[i], &nbytes))
      return 0;
  return nbytes <= plan->buffers[buffer].nbytes;
}

/* A convolution step and its record: sizes that agree (the output size of each spatial
 * dim, groups dividing the channels, every count within cuDNN's int), operands that fit
 * their buffers, and fallback steps that exist. */
static pt2c_status check_conv_step(const pt2c_plan *plan, uint32_t number,
                                   const pt2c_plan_step *step) {
  const pt2c_plan_conv *c = &plan->convs[step->kernel];
  if (c->dtype != PT2C_F32 && c->dtype != PT2C_F16 && c->dtype != PT2C_BF16)
    return CORRUPT("step %u: convolution dtype %u is not f32, f16 or bf16", number, c->dtype);
  if (c->epilogue > PT2C_CONV_EPILOGUE_BIAS_SILU)
    return CORRUPT("step %u: unknown convolution epilogue %u", number, c->epilogue);
  if (c->layout > PT2C_CONV_LAYOUT_CHANNELS_LAST)
    return CORRUPT("step %u: unknown convolution layout %u", number, c->layout);
  uint32_t expected_args = c->epilogue == PT2C_CONV_EPILOGUE_NONE            ? 3
                           : c->epilogue == PT2C_CONV_EPILOGUE_BIAS_ADD_RELU ? 5
                                                                             : 4;
  pt2c_status status =
      check_library_args(plan, number, step, "convolution", expected_args, c->num_fallback_steps);
  if (status != PT2C_OK)
    return status;
  int ok = c->spatial_rank >= 1 && c->spatial_rank <= PT2C_CONV_MAX_SPATIAL && c->groups >= 1 &&
           c->batch >= 1 && c->in_channels >= 1 && c->out_channels >= 1 && c->batch <= INT32_MAX &&
           c->in_channels <= INT32_MAX && c->out_channels <= INT32_MAX &&
           c->in_channels % c->groups == 0 && c->out_channels % c->groups == 0;
  for (uint32_t d = 0; ok && d < PT2C_CONV_MAX_SPATIAL; ++d) {
    uint64_t span = 0, padded = 0;
    if (d >= c->spatial_rank) {
      ok = c->input[d] == 1 && c->kernel[d] == 1 && c->output[d] == 1 && c->stride[d] == 1 &&
           c->dilation[d] == 1 && c->padding[d] == 0;
      continue;
    }
    ok = c->input[d] >= 1 && c->kernel[d] >= 1 && c->stride[d] >= 1 && c->dilation[d] >= 1 &&
         c->input[d] <= INT32_MAX && c->kernel[d] <= INT32_MAX && c->stride[d] <= INT32_MAX &&
         c->dilation[d] <= INT32_MAX && c->padding[d] <= INT32_MAX &&
         !__builtin_mul_overflow(c->dilation[d], c->kernel[d] - 1, &span) &&
         (padded = c->input[d] + 2 * c->padding[d]) > span &&
         c->output[d] == (padded - span - 1) / c->stride[d] + 1;
  }
  if (!ok)
    return CORRUPT("step %u: convolution %u has sizes that do not agree", number, step->kernel);
  status = check_library_sizes_fixed(plan, number, step, "convolution");
  if (status != PT2C_OK)
    return status;
  uint64_t size = pt2c_dtype_element_size((pt2c_dtype)c->dtype);
  const uint32_t *args = plan->step_args + step->first_arg;
  /* Unused spatial entries are 1. */
  uint64_t x[] = {c->batch, c->in_channels, c->input[0], c->input[1], c->input[2]};
  uint64_t w[] = {c->out_channels, c->in_channels / c->groups, c->kernel[0], c->kernel[1],
                  c->kernel[2]};
  uint64_t y[] = {c->batch, c->out_channels, c->output[0], c->output[1], c->output[2]};
  int fits = holds(plan, args[0], size, x, 5) && holds(plan, args[1], size, w, 5) &&
             holds(plan, args[expected_args - 1], size, y, 5) &&
             (expected_args < 4 || holds(plan, args[2], size, &c->out_channels, 1)) &&
             (expected_args < 5 || holds(plan, args[3], size, y, 5));
  if (!fits)
    return CORRUPT("step %u: a convolution operand is larger than its buffer", number);
  return PT2C_OK;
}

static pt2c_status check_guard(const pt2c_plan *plan, uint32_t number,
                               const pt2c_plan_guard *guard) {
  const pt2c_plan_header *header = plan->header;
  if (guard->buffer >= header->num_buffers)
    return CORRUPT("guard %u: buffer %u is outside the %u buffers", number, guard->buffer,
                   header->num_buffers);
  if (!pt2c_dtype_is_valid(guard->dtype))
    return CORRUPT("guard %u: unknown dtype %u", number, guard->dtype);
  if (plan->buffers[guard->buffer].nbytes < pt2c_dtype_element_size((pt2c_dtype)guard->dtype))
    return CORRUPT("guard %u: buffer %u is smaller than one element", number, guard->buffer);
  if (guard->message >= header->strings_size)
    return CORRUPT("guard %u: message offset %u is outside the %" PRIu64 "-byte string table",
                   number, guard->message, header->strings_size);
  return PT2C_OK;
}

/* Launch limits every CUDA GPU shares (compute capability 3.0 and newer); AMD GPUs
 * (HIP) have the same ones. */
enum { kMaxThreadsPerBlock = 1024, kMaxGridYZ = 65535, kMaxGridX = 0x7fffffff };

static pt2c_status check_gpu_kernel(const pt2c_plan *plan, uint32_t number,
                                    const pt2c_plan_gpu_kernel *kernel) {
  const pt2c_plan_header *header = plan->header;
  if (kernel->name >= header->strings_size)
    return CORRUPT("gpu kernel %u: name offset %u is outside the %" PRIu64 "-byte string table",
                   number, kernel->name, header->strings_size);
  uint64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    if (kernel->grid[d] == 0 || kernel->block[d] == 0)
      return CORRUPT("gpu kernel %u ('%s'): a grid or block dimension is 0", number,
                     pt2c_plan_string(plan, kernel->name));
    threads *= kernel->block[d];
  }
  if (threads > kMaxThreadsPerBlock || kernel->grid[0] > kMaxGridX ||
      kernel->grid[1] > kMaxGridYZ || kernel->grid[2] > kMaxGridYZ)
    return CORRUPT("gpu kernel %u ('%s'): grid [%u, %u, %u] x block [%u, %u, %u] exceeds "
                   "what a GPU can launch",
                   number, pt2c_plan_string(plan, kernel->name), kernel->grid[0], kernel->grid[1],
                   kernel->grid[2], kernel->block[0], kernel->block[1], kernel->block[2]);
  return PT2C_OK;
}

/* Runs every record-level check; stops at the first problem. */
static pt2c_status check_records(pt2c_plan *plan) {
  const pt2c_plan_header *header = plan->header;
  pt2c_status status = PT2C_OK;
  for (uint32_t i = 0; i < header->num_buffers && status == PT2C_OK; ++i)
    status = check_buffer(header, i, &plan->buffers[i]);
  for (uint32_t i = 0; i < header->num_inputs && status == PT2C_OK; ++i)
    if (plan->inputs[i].rank > PT2C_MAX_RANK)
      status = CORRUPT("input %u: rank %u exceeds the maximum %d", i, plan->inputs[i].rank,
                       PT2C_MAX_RANK);
  if (status == PT2C_OK)
    status = pt2c_sym_check_plan(plan);
  for (uint32_t i = 0; i < header->num_inputs && status == PT2C_OK; ++i)
    status = check_tensor(plan, "input", i, &plan->inputs[i], PT2C_BUFFER_INPUT);
  for (uint32_t i = 0; i < header->num_outputs && status == PT2C_OK; ++i)
    status = check_tensor(plan, "output", i, &plan->outputs[i], PT2C_BUFFER_OUTPUT);
  for (uint32_t i = 0; i < header->num_states && status == PT2C_OK; ++i)
    status = check_state(plan, i);
  /* One buffer per input and output: a second buffer claiming the same tensor would
   * escape check_tensor's size check and alias the caller's memory. */
  for (uint32_t i = 0; i < header->num_buffers && status == PT2C_OK; ++i) {
    const pt2c_plan_buffer *b = &plan->buffers[i];
    uint32_t owner = b->kind == PT2C_BUFFER_INPUT    ? plan->inputs[b->index].buffer
                     : b->kind == PT2C_BUFFER_OUTPUT ? plan->outputs[b->index].buffer
                                                     : i;
    if (owner != i)
      status = CORRUPT("buffer %u claims %s %u, whose buffer is %u", i,
                       b->kind == PT2C_BUFFER_INPUT ? "input" : "output", b->index, owner);
  }
  plan->max_step_args = 0;
  for (uint32_t i = 0; i < header->num_steps && status == PT2C_OK; ++i) {
    status = check_step(plan, i, &plan->steps[i]);
    if (plan->steps[i].num_args > plan->max_step_args)
      plan->max_step_args = plan->steps[i].num_args;
  }
  for (uint32_t i = 0; i < header->num_steps && status == PT2C_OK; ++i)
    if (plan->steps[i].kind == PT2C_STEP_GEMM)
      status = check_gemm_step(plan, i, &plan->steps[i]);
    else if (plan->steps[i].kind == PT2C_STEP_CONV)
      status = check_conv_step(plan, i, &plan->steps[i]);
  if (status == PT2C_OK)
    status = pt2c_sym_check_producers(plan);
  for (uint32_t i = 0; i < header->num_guards && status == PT2C_OK; ++i)
    status = check_guard(plan, i, &plan->guards[i]);
  if (pt2c_plan_device_is_gpu(header->device))
    for (uint32_t i = 0; i < header->num_kernels && status == PT2C_OK; ++i)
      status = check_gpu_kernel(plan, i, &plan->gpu_kernels[i]);
  return status;
}

pt2c_status pt2c_plan_parse(const void *blob, uint64_t size, pt2c_plan *out_plan) {
  memset(out_plan, 0, sizeof(*out_plan));
  if (blob == NULL)
    return CORRUPT("the plan blob is missing");
  if (((uintptr_t)blob & 7) != 0)
    return CORRUPT("the plan blob is not 8-byte aligned");
  if (size < sizeof(pt2c_plan_header))
    return CORRUPT("truncated: %" PRIu64 " bytes is less than the %zu-byte header", size,
                   sizeof(pt2c_plan_header));
  pt2c_plan plan = {.header = blob};
  if (memcmp(plan.header->magic, PT2C_PLAN_MAGIC, sizeof(plan.header->magic)) != 0)
    return CORRUPT("bad magic (expected \"%s\"); this is not a pt2c plan", PT2C_PLAN_MAGIC);
  if (plan.header->version != PT2C_PLAN_VERSION)
    return CORRUPT("plan version %u, this runtime reads version %u", plan.header->version,
                   PT2C_PLAN_VERSION);
  if (plan.header->device != PT2C_DEVICE_CPU && !pt2c_plan_device_is_gpu(plan.header->device))
    return CORRUPT("unknown device %u", plan.header->device);
  /* The ABI counts inputs and outputs in int32_t. */
  if (plan.header->num_inputs > INT32_MAX || plan.header->num_outputs > INT32_MAX)
    return CORRUPT("%u inputs and %u outputs is more than the ABI can count",
                   plan.header->num_inputs, plan.header->num_outputs);
  pt2c_status status = locate_sections(blob, size, &plan);
  if (status == PT2C_OK)
    status = check_records(&plan);
  if (status == PT2C_OK)
    *out_plan = plan;
  return status;
}

int pt2c_plan_buffer_is_dynamic(const pt2c_plan *plan, uint32_t buffer) {
  const pt2c_plan_buffer *b = &plan->buffers[buffer];
  const pt2c_plan_tensor *tensor = b->kind == PT2C_BUFFER_INPUT    ? &plan->inputs[b->index]
                                   : b->kind == PT2C_BUFFER_OUTPUT ? &plan->outputs[b->index]
                                                                   : NULL;
  if (tensor == NULL)
    return 0;
  for (uint32_t d = 0; d < tensor->rank; ++d)
    if (plan->dims[tensor->dims + d] < 0)
      return 1;
  return 0;
}

const char *pt2c_plan_string(const pt2c_plan *plan, uint32_t offset) {
  return plan->strings + offset;
}
