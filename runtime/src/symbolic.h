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

/* The most symbols a plan may have (the run keeps their values on the stack, and which
 * of them are known in the bits of a uint32_t). */
#define PT2C_MAX_SYMS 16

/* Checks the sym table and every expression dims[] or a derived symbol refers to: in
 * range, well formed, symbols that exist (for a derived symbol, that come before it), a
 * stack that neither underflows nor exceeds PT2C_SYM_MAX_STACK, one value left. Part of
 * pt2c_plan_parse. */
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

/* Reads each input symbol's value from the caller's inputs (the input and dim the sym
 * table names) and checks it against the declared range, then derives what those give
 * (pt2c_sym_derive). `known` gets the bits of the symbols whose values are final. Inputs
 * of the wrong count or rank are left to the tensor checks that follow (their symbols
 * read as the maximum and are not known). */
pt2c_status pt2c_sym_bind(const pt2c_plan *plan, const pt2c_tensor *inputs, int32_t num_inputs,
                          int64_t *sym_values, uint32_t *known);

/* Evaluates each derived symbol (PT2C_SYM_FLAG_DERIVED) not yet in `known` whose
 * expression reads only known symbols (bit k of *known: sym_values[k] is final), checks
 * it against its range and marks it known; in sym order, so one call also derives what
 * the symbols it derived give. The rest keep their maxima, which buffers are planned
 * for. Called after the inputs are read and after each step that binds a data-dependent
 * size. */
pt2c_status pt2c_sym_derive(const pt2c_plan *plan, int64_t *sym_values, uint32_t *known);

/* dims[] entries [first, first + rank) resolved for the given symbol values. */
void pt2c_sym_resolve(const pt2c_plan *plan, uint32_t first, uint32_t rank,
                      const int64_t *sym_values, int64_t *out_dims);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_SYMBOLIC_H_ */
