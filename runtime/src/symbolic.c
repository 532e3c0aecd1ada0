#include "symbolic.h"

#include <inttypes.h>
#include <stdio.h>

#include "error.h"

_Static_assert(PT2C_MAX_SYMS <= 32, "known-symbol masks are uint32_t");

#define CORRUPT(...) pt2c_fail(PT2C_ERROR_CORRUPT_MODEL, "corrupt plan: " __VA_ARGS__)

static int64_t floor_div(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Runs validated code: sym_code[at] = n, then n (opcode, operand) pairs. */
static int64_t run_code(const pt2c_plan *plan, uint64_t at, const int64_t *sym_values) {
  const int64_t *code = plan->sym_code + at;
  int64_t stack[PT2C_SYM_MAX_STACK];
  int depth = 0;
  for (int64_t i = 0; i < code[0]; ++i) {
    int64_t op = code[1 + 2 * i], operand = code[2 + 2 * i];
    if (op == PT2C_SYM_CONSTANT) {
      stack[depth++] = operand;
      continue;
    }
    if (op == PT2C_SYM_SYMBOL) {
      stack[depth++] = sym_values[operand];
      continue;
    }
    int64_t b = stack[--depth], a = stack[depth - 1], r = 0;
    switch (op) {
    case PT2C_SYM_ADD:
      r = a + b;
      break;
    case PT2C_SYM_SUB:
      r = a - b;
      break;
    case PT2C_SYM_MUL:
      r = a * b;
      break;
    case PT2C_SYM_FLOORDIV:
      r = floor_div(a, b);
      break;
    case PT2C_SYM_CEILDIV:
      r = b == 0 ? 0 : -floor_div(-a, b);
      break;
    case PT2C_SYM_MIN:
      r = a < b ? a : b;
      break;
    }
    stack[depth - 1] = r;
  }
  return stack[0];
}

int pt2c_sym_computed_by(const pt2c_plan *plan, const pt2c_plan_step *step,
                         const pt2c_plan_sym *sym) {
  if (!(sym->flags & PT2C_SYM_FLAG_PRODUCED))
    return 0;
  for (uint32_t a = 0; a < step->num_args; ++a)
    if (plan->step_args[step->first_arg + a] == sym->dim)
      return 1;
  return 0;
}

pt2c_status pt2c_sym_check_producers(const pt2c_plan *plan) {
  for (uint32_t k = 0; k < plan->header->num_syms; ++k) {
    const pt2c_plan_sym *sym = &plan->syms[k];
    if (!(sym->flags & PT2C_SYM_FLAG_PRODUCED))
      continue;
    uint32_t steps = 0;
    for (uint32_t s = 0; s < plan->header->num_steps; ++s)
      steps += (uint32_t)pt2c_sym_computed_by(plan, &plan->steps[s], sym);
    if (steps != 1)
      return CORRUPT("data-dependent symbol %u: %u steps name its buffer %u, not one", k, steps,
                     sym->dim);
  }
  return PT2C_OK;
}

int32_t pt2c_sym_of(const pt2c_plan *plan, int64_t entry) {
  if (entry >= 0)
    return -1;
  const int64_t *code = plan->sym_code + (uint64_t)(-(entry + 1));
  return code[0] == 1 && code[1] == PT2C_SYM_SYMBOL ? (int32_t)code[2] : -1;
}

/* Validates the expression at sym_code[at] that `what` ("dims[3]", "symbol 2") names:
 * its symbols must lie below `visible` (a derived symbol's, below its own index). */
static pt2c_status check_code(const pt2c_plan *plan, const char *what, uint64_t at,
                              uint32_t visible) {
  uint64_t words = plan->header->num_sym_words;
  if (at >= words)
    return CORRUPT("%s: word %" PRIu64 " points outside the %" PRIu64 "-word size code", what, at,
                   words);
  int64_t n = plan->sym_code[at];
  if (n < 1 || (uint64_t)n > (words - at - 1) / 2)
    return CORRUPT("%s: the size expression's length %" PRId64 " is impossible", what, n);
  int depth = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t op = plan->sym_code[at + 1 + 2 * i], operand = plan->sym_code[at + 2 + 2 * i];
    if (op == PT2C_SYM_CONSTANT || op == PT2C_SYM_SYMBOL) {
      if (op == PT2C_SYM_SYMBOL && (operand < 0 || operand >= plan->header->num_syms))
        return CORRUPT("%s: symbol %" PRId64 " does not exist (%u symbols)", what, operand,
                       plan->header->num_syms);
      if (op == PT2C_SYM_SYMBOL && operand >= visible)
        return CORRUPT("%s: uses symbol %" PRId64 ", which does not come before it", what, operand);
      if (++depth > PT2C_SYM_MAX_STACK)
        return CORRUPT("%s: the size expression is too deep", what);
    } else if (op >= PT2C_SYM_ADD && op <= PT2C_SYM_MIN) {
      if (depth < 2)
        return CORRUPT("%s: the size expression underflows", what);
      --depth;
    } else {
      return CORRUPT("%s: unknown size opcode %" PRId64, what, op);
    }
  }
  if (depth != 1)
    return CORRUPT("%s: the size expression leaves %d values", what, depth);
  return PT2C_OK;
}

/* Bit k set: validated code at sym_code[at] reads symbol k. */
static uint32_t symbols_used(const pt2c_plan *plan, uint64_t at) {
  const int64_t *code = plan->sym_code + at;
  uint32_t used = 0;
  for (int64_t i = 0; i < code[0]; ++i)
    if (code[1 + 2 * i] == PT2C_SYM_SYMBOL)
      used |= 1u << code[2 + 2 * i];
  return used;
}

pt2c_status pt2c_sym_check_plan(const pt2c_plan *plan) {
  const pt2c_plan_header *header = plan->header;
  if (header->num_syms > PT2C_MAX_SYMS)
    return CORRUPT("%u symbols; at most %d are supported", header->num_syms, PT2C_MAX_SYMS);
  for (uint32_t s = 0; s < header->num_syms; ++s) {
    const pt2c_plan_sym *sym = &plan->syms[s];
    if (sym->name >= header->strings_size)
      return CORRUPT("symbol %u: name offset %u is outside the string table", s, sym->name);
    if (sym->flags != 0 && sym->flags != PT2C_SYM_FLAG_PRODUCED &&
        sym->flags != PT2C_SYM_FLAG_DERIVED)
      return CORRUPT("symbol %u: unknown flags %#x", s, sym->flags);
    if (sym->flags != 0 && pt2c_plan_device_is_gpu(header->device))
      return CORRUPT("symbol %u: data-dependent and derived sizes need a CPU plan", s);
    if (sym->flags & PT2C_SYM_FLAG_PRODUCED) {
      if (sym->dim >= header->num_buffers || plan->buffers[sym->dim].nbytes < sizeof(int64_t))
        return CORRUPT("symbol %u: buffer %u does not exist or holds no int64", s, sym->dim);
    } else if (sym->flags & PT2C_SYM_FLAG_DERIVED) {
      char what[32];
      snprintf(what, sizeof what, "symbol %u", s);
      pt2c_status status = check_code(plan, what, sym->dim, s);
      if (status != PT2C_OK)
        return status;
    } else if (sym->input >= header->num_inputs || sym->dim >= plan->inputs[sym->input].rank) {
      return CORRUPT("symbol %u: input %u dim %u does not exist", s, sym->input, sym->dim);
    }
    if (sym->min < 0 || sym->min > sym->max)
      return CORRUPT("symbol %u: range [%" PRId64 ", %" PRId64 "] is impossible", s, sym->min,
                     sym->max);
  }
  for (uint32_t d = 0; d < header->num_dims; ++d) {
    int64_t entry = plan->dims[d];
    if (entry >= 0)
      continue;
    char what[32];
    snprintf(what, sizeof what, "dims[%u]", d);
    pt2c_status status = check_code(
        plan, what, entry == INT64_MIN ? UINT64_MAX : (uint64_t)(-(entry + 1)), header->num_syms);
    if (status != PT2C_OK)
      return status;
  }
  return PT2C_OK;
}

int64_t pt2c_sym_size(const pt2c_plan *plan, int64_t entry, const int64_t *sym_values) {
  return entry >= 0 ? entry : run_code(plan, (uint64_t)(-(entry + 1)), sym_values);
}

void pt2c_sym_maxima(const pt2c_plan *plan, int64_t *sym_values) {
  for (uint32_t s = 0; s < plan->header->num_syms; ++s)
    sym_values[s] = plan->syms[s].max;
}

pt2c_status pt2c_sym_derive(const pt2c_plan *plan, int64_t *sym_values, uint32_t *known) {
  for (uint32_t s = 0; s < plan->header->num_syms; ++s) {
    const pt2c_plan_sym *sym = &plan->syms[s];
    if (!(sym->flags & PT2C_SYM_FLAG_DERIVED) || (*known & (1u << s)) ||
        (symbols_used(plan, sym->dim) & ~*known))
      continue;
    int64_t value = run_code(plan, sym->dim, sym_values);
    if (value < sym->min || value > sym->max)
      return pt2c_fail(PT2C_ERROR_SHAPE,
                       "dynamic dimension '%s', computed from other sizes (a clamp), is %" PRId64
                       ": it must lie in [%" PRId64 ", %" PRId64
                       "] (the range model.py was exported for)",
                       pt2c_plan_string(plan, sym->name), value, sym->min, sym->max);
    sym_values[s] = value;
    *known |= 1u << s;
  }
  return PT2C_OK;
}

pt2c_status pt2c_sym_bind(const pt2c_plan *plan, const pt2c_tensor *inputs, int32_t num_inputs,
                          int64_t *sym_values, uint32_t *known) {
  pt2c_sym_maxima(plan, sym_values);
  *known = 0;
  for (uint32_t s = 0; s < plan->header->num_syms; ++s) {
    const pt2c_plan_sym *sym = &plan->syms[s];
    if (sym->flags != 0 || inputs == NULL || (int64_t)sym->input >= num_inputs)
      continue; /* a data-dependent or derived size stays at its bound until it is known */
    const pt2c_tensor *x = &inputs[sym->input];
    if (x->rank != (int32_t)plan->inputs[sym->input].rank || x->dims == NULL)
      continue;
    int64_t value = x->dims[sym->dim];
    if (value < sym->min || value > sym->max)
      return pt2c_fail(PT2C_ERROR_SHAPE,
                       "input %u ('%s') dim %u is %" PRId64 ": dynamic dimension '%s' must lie in "
                       "[%" PRId64 ", %" PRId64 "] (model.py's dynamic_shapes)",
                       sym->input, pt2c_plan_string(plan, plan->inputs[sym->input].name), sym->dim,
                       value, pt2c_plan_string(plan, sym->name), sym->min, sym->max);
    sym_values[s] = value;
    *known |= 1u << s;
  }
  return pt2c_sym_derive(plan, sym_values, known);
}

void pt2c_sym_resolve(const pt2c_plan *plan, uint32_t first, uint32_t rank,
                      const int64_t *sym_values, int64_t *out_dims) {
  for (uint32_t i = 0; i < rank; ++i)
    out_dims[i] = pt2c_sym_size(plan, plan->dims[first + i], sym_values);
}
