/* A hand-written stand-in for the compiler's generated object: it defines the __pt2c_*
 * symbols a model.so needs (pt2c/plan_format.h) for the model
 *     y = (x + w) * 2,   x, w, y: f32 [2, 3]
 * with w a weight and x + w kept in the arena. Linked with the runtime archive into
 * tiny_model.so to check the real link line, the exported symbols and NEEDED. */
#include <stdint.h>

#include "pt2c/plan_format.h"
#include "pt2c/pt2c.h"

#define EMBEDDED __attribute__((visibility("hidden")))
#define NUM_ELEMENTS 6

/* buffers[0] + buffers[1] -> buffers[2] */
static void add_kernel(void *const *buffers, const int64_t *sym_values) {
  const float *a = buffers[0];
  const float *b = buffers[1];
  float *out = buffers[2];
  for (int i = 0; i < NUM_ELEMENTS; ++i)
    out[i] = a[i] + b[i];
}

/* buffers[0] * 2 -> buffers[1] */
static void double_kernel(void *const *buffers, const int64_t *sym_values) {
  const float *in = buffers[0];
  float *out = buffers[1];
  for (int i = 0; i < NUM_ELEMENTS; ++i)
    out[i] = in[i] * 2.0f;
}

enum { kInputBuffer, kOutputBuffer, kWeightBuffer, kArenaBuffer, kNumBuffers };

/* The plan's sections in file order; C's layout rules match the format's 8-byte records. */
struct tiny_plan {
  pt2c_plan_header header;
  pt2c_plan_tensor inputs[1];
  pt2c_plan_tensor outputs[1];
  pt2c_plan_buffer buffers[kNumBuffers];
  pt2c_plan_step steps[2];
  uint32_t step_args[6]; /* 5 used, padded to 8 bytes */
  int64_t dims[2];
  char strings[4];
};

EMBEDDED const struct tiny_plan __pt2c_plan = {
    .header = {.magic = PT2C_PLAN_MAGIC,
               .version = PT2C_PLAN_VERSION,
               .num_inputs = 1,
               .num_outputs = 1,
               .num_buffers = kNumBuffers,
               .num_steps = 2,
               .num_step_args = 5,
               .num_dims = 2,
               .num_kernels = 2,
               .strings_size = 4,
               .arena_size = NUM_ELEMENTS * 4,
               .weights_size = NUM_ELEMENTS * 4},
    .inputs = {{.name = 0, .dtype = PT2C_F32, .rank = 2, .dims = 0, .buffer = kInputBuffer}},
    .outputs = {{.name = 2, .dtype = PT2C_F32, .rank = 2, .dims = 0, .buffer = kOutputBuffer}},
    .buffers = {[kInputBuffer] = {.kind = PT2C_BUFFER_INPUT, .index = 0, .nbytes = 24},
                [kOutputBuffer] = {.kind = PT2C_BUFFER_OUTPUT, .index = 0, .nbytes = 24},
                [kWeightBuffer] = {.kind = PT2C_BUFFER_WEIGHT, .offset = 0, .nbytes = 24},
                [kArenaBuffer] = {.kind = PT2C_BUFFER_ARENA, .offset = 0, .nbytes = 24}},
    .steps = {{.kernel = 0, .num_args = 3, .first_arg = 0},
              {.kernel = 1, .num_args = 2, .first_arg = 3}},
    .step_args = {kInputBuffer, kWeightBuffer, kArenaBuffer, kArenaBuffer, kOutputBuffer},
    .dims = {2, 3},
    .strings = "x\0y",
};
EMBEDDED const uint64_t __pt2c_plan_size = sizeof(__pt2c_plan);
/* pt2c_content_hash of the plan above, as the compiler records it (create checks it);
 * after changing the plan, the failing create's message gives the new value. */
EMBEDDED const uint64_t __pt2c_plan_checksum = 0x87c7d43a3f1b0772ull;

EMBEDDED const float __pt2c_weights[NUM_ELEMENTS]
    __attribute__((aligned(64))) = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f};
EMBEDDED const uint64_t __pt2c_weights_size = sizeof(__pt2c_weights);

EMBEDDED const pt2c_kernel_fn __pt2c_kernels[] = {add_kernel, double_kernel};
EMBEDDED const uint32_t __pt2c_num_kernels = 2;
