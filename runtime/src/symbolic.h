/* Symbolic sizes of a plan (plan_format.h, "Symbolic sizes"): validating the size code,
 * binding the symbols to a run's inputs and evaluating sizes. Internal. */
#ifndef PT2C_RUNTIME_SYMBOLIC_H_
#define PT2C_RUNTIME_SYMBOLIC_H_

#include <stdint.h>

#include "plan.h"
#include "pt2c/pt2c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most symbols a plan may have (the run keeps their values on the stack). */
#define PT2C_MAX_SYMS 16

/* Checks the sym table and every expression dims[] refers to: in range, well formed,
 * symbols that exist, a stack that neither underflows nor exceeds PT2C_SYM_MAX_STACK,
 * one value left. Part of pt2c_plan_parse. */
pt2c_status pt2c_sym_check_plan(const pt2c_plan *plan);

/* The size a dims[] entry stands for, given the symbols' values (a validated plan). */
int64_t pt2c_sym_size(const pt2c_plan *plan, int64_t entry, const int64_t *sym_values);

/* The symbol a dims[] entry is exactly (input dims are), or -1 for a static size or a
 * compound expression (a validated plan). */
int32_t pt2c_sym_of(const pt2c_plan *plan, int64_t entry);

/* Whether `step` computes data-dependent symbol `sym` (PT2C_SYM_FLAG_PRODUCED): it has
 * the symbol's buffer among its arguments. */
int pt2c_sym_computed_by(const pt2c_plan *plan, const pt2c_plan_step *step,
                         const pt2c_plan_sym *sym);

/* Checks that exactly one step computes each data-dependent symbol. Part of
 * pt2c_plan_parse, after the steps are checked. */
pt2c_status pt2c_sym_check_producers(const pt2c_plan *plan);

/* The symbols' maxima: the values the plan's buffers are sized for. */
void pt2c_sym_maxima(const pt2c_plan *plan, int64_t *sym_values);

/* Reads each symbol's value from the caller's inputs (the input and dim the sym table
 * names) and checks it against the declared range. Inputs of the wrong count or rank are
 * left to the tensor checks that follow (their symbols read as the maximum). */
pt2c_status pt2c_sym_bind(const pt2c_plan *plan, const pt2c_tensor *inputs, int32_t num_inputs,
                          int64_t *sym_values);

/* dims[] entries [first, first + rank) resolved for the given symbol values. */
void pt2c_sym_resolve(const pt2c_plan *plan, uint32_t first, uint32_t rank,
                      const int64_t *sym_values, int64_t *out_dims);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_SYMBOLIC_H_ */
