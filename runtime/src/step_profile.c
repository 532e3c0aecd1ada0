/* Per-step timing of CPU runs (step_profile.h). */
#define _POSIX_C_SOURCE 200112L /* clock_gettime */
#include "step_profile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kReportedSteps = 25 }; /* by default; PT2C_PROFILE=N (N > 1) reports N */

struct pt2c_step_profile {
  uint32_t num_steps;
  long reported_steps;
  int64_t *nanoseconds; /* per step, summed over runs */
};

pt2c_step_profile *pt2c_step_profile_create(const pt2c_plan *plan) {
  const char *value = getenv("PT2C_PROFILE");
  if (value == NULL || value[0] == '\0' || strcmp(value, "0") == 0)
    return NULL;
  pt2c_step_profile *profile = calloc(1, sizeof(*profile));
  if (profile == NULL)
    return NULL;
  profile->num_steps = plan->header->num_steps;
  char *end = NULL;
  long n = strtol(value, &end, 10);
  profile->reported_steps = end != value && *end == '\0' && n > 1 ? n : kReportedSteps;
  profile->nanoseconds = calloc(profile->num_steps + 1, sizeof(int64_t));
  if (profile->nanoseconds == NULL) {
    free(profile);
    return NULL;
  }
  return profile;
}

int64_t pt2c_step_profile_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void pt2c_step_profile_add(pt2c_step_profile *profile, uint32_t step, int64_t nanoseconds) {
  if (profile != NULL && step < profile->num_steps)
    profile->nanoseconds[step] += nanoseconds;
}

/* Whether step s is a generated kernel that divides among threads. */
static int splits(const pt2c_plan *plan, const pt2c_kernel_split *table, uint32_t s) {
  const pt2c_plan_step *step = &plan->steps[s];
  return step->kind == PT2C_STEP_KERNEL && table != NULL && table[step->kernel].range != NULL;
}

/* What a convolution step's epilogue adds, for its description. */
static const char *conv_epilogue_name(uint32_t epilogue) {
  switch (epilogue) {
  case PT2C_CONV_EPILOGUE_BIAS:
    return " + bias";
  case PT2C_CONV_EPILOGUE_BIAS_RELU:
    return " + bias, relu";
  case PT2C_CONV_EPILOGUE_BIAS_ADD_RELU:
    return " + bias + residual, relu";
  case PT2C_CONV_EPILOGUE_BIAS_SILU:
    return " + bias, silu";
  default:
    return "";
  }
}

/* "GEMM m=128 n=768 ... + bias", "conv 3->64 kernel 7x7 ... + bias, relu",
 * "kernel 17 (3 buffers, split 32)". */
static void describe(const pt2c_plan *plan, const pt2c_kernel_split *table, uint32_t s, char *text,
                     size_t size) {
  const pt2c_plan_step *step = &plan->steps[s];
  if (step->kind == PT2C_STEP_GEMM) {
    const pt2c_plan_gemm *g = &plan->gemms[step->kernel];
    snprintf(text, size, "GEMM m=%" PRIu64 " n=%" PRIu64 " k=%" PRIu64 " batch=%" PRIu64 "%s", g->m,
             g->n, g->k, g->batch, pt2c_gemm_epilogue_suffix(g->epilogue));
  } else if (step->kind == PT2C_STEP_CONV) {
    const pt2c_plan_conv *c = &plan->convs[step->kernel];
    snprintf(text, size,
             "conv %" PRIu64 "->%" PRIu64 " kernel %" PRIu64 "x%" PRIu64 " stride %" PRIu64
             " groups %u, input %" PRIu64 "x%" PRIu64 "%s",
             c->in_channels, c->out_channels, c->kernel[0], c->kernel[1], c->stride[0], c->groups,
             c->input[0], c->input[1], conv_epilogue_name(c->epilogue));
  } else if (splits(plan, table, s)) {
    snprintf(text, size, "kernel %u (%u buffers, split %" PRId64 " ways at most)", step->kernel,
             step->num_args, table[step->kernel].extent);
  } else {
    snprintf(text, size, "kernel %u (%u buffers)", step->kernel, step->num_args);
  }
}

void pt2c_step_profile_finish(pt2c_step_profile *profile, const pt2c_plan *plan,
                              const pt2c_kernel_split *table) {
  if (profile == NULL)
    return;
  int64_t total = 0;
  for (uint32_t s = 0; s < profile->num_steps; ++s)
    total += profile->nanoseconds[s];
  if (total > 0) {
    fprintf(stderr, "pt2c profile: %u steps, %.3f ms in all runs\n", profile->num_steps,
            (double)total / 1e6);
    /* By kind first: how much the library steps (GEMM, convolution) weigh against the
     * generated kernels decides where tuning pays. */
    static const struct {
      uint32_t kind;
      const char *name;
    } kKinds[] = {{PT2C_STEP_GEMM, "GEMM steps"}, {PT2C_STEP_CONV, "convolution steps"}};
    int64_t library = 0;
    for (size_t k = 0; k < sizeof(kKinds) / sizeof(kKinds[0]); ++k) {
      int64_t sum = 0;
      for (uint32_t s = 0; s < profile->num_steps; ++s)
        if (plan->steps[s].kind == kKinds[k].kind)
          sum += profile->nanoseconds[s];
      library += sum;
      if (sum > 0)
        fprintf(stderr, "  %-18s %9.3f ms %5.1f%%\n", kKinds[k].name, (double)sum / 1e6,
                100.0 * (double)sum / (double)total);
    }
    int64_t split_time = 0;
    for (uint32_t s = 0; s < profile->num_steps; ++s)
      if (splits(plan, table, s))
        split_time += profile->nanoseconds[s];
    fprintf(stderr, "  %-18s %9.3f ms %5.1f%% (%.3f ms in kernels split among threads)\n",
            "generated kernels", (double)(total - library) / 1e6,
            100.0 * (double)(total - library) / (double)total, (double)split_time / 1e6);
    fprintf(stderr, "the slowest steps:\n");
    for (long n = 0; n < profile->reported_steps; ++n) { /* selection: a report, not a hot path */
      uint32_t best = 0;
      for (uint32_t s = 1; s < profile->num_steps; ++s)
        if (profile->nanoseconds[s] > profile->nanoseconds[best])
          best = s;
      if (profile->nanoseconds[best] <= 0)
        break;
      char text[160];
      describe(plan, table, best, text, sizeof(text));
      fprintf(stderr, "  step %4u %9.3f ms %5.1f%%  %s\n", best,
              (double)profile->nanoseconds[best] / 1e6,
              100.0 * (double)profile->nanoseconds[best] / (double)total, text);
      profile->nanoseconds[best] = -1;
    }
  }
  free(profile->nanoseconds);
  free(profile);
}
