/* Plan sets (pt2c/plan_format.h): one model per graph, and the choice of the graph for a
 * caller's inputs. Internal. */
#ifndef PT2C_RUNTIME_DISPATCH_H_
#define PT2C_RUNTIME_DISPATCH_H_

#include <stdint.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One graph of a plan set. */
typedef struct pt2c_model_graph {
  const char *name;
  const char *method;
  const char *strings;         /* the set's string table, for slot names */
  const pt2c_plan_slot *slots; /* num_slots entries, in the set copy */
  uint32_t num_slots;
  pt2c_model *model; /* owned: the graph's executable */
} pt2c_model_graph;

/* Whether a plan blob is a plan set (by its magic). */
int pt2c_is_plan_set(const void *blob, uint64_t size);

/* Validates the set in source->plan and creates one model per graph into `owner` (a
 * zeroed model); on failure the caller frees `owner` with pt2c_plan_set_free. */
pt2c_status pt2c_plan_set_create(const pt2c_model_source *source, pt2c_model *owner);

/* Frees what pt2c_plan_set_create or pt2c_plan_set_instance made (not `owner` itself). */
void pt2c_plan_set_free(pt2c_model *owner);

/* Makes `owner` (a zeroed model whose parent is set) an instance of the plan set
 * `parent`: the parent's tables, one instance per graph, state shared between graphs as
 * in the parent; on failure the caller frees `owner` (pt2c_model_destroy). */
pt2c_status pt2c_plan_set_instance(const pt2c_model *parent, pt2c_model *owner);

/* The executable the inputs select (see pt2c_model_find_graph) and those inputs in its
 * plan's order (pointing into the model's scratch, valid until the next call). */
pt2c_status pt2c_dispatch(pt2c_model *model, const char *function, const char *method,
                          const pt2c_tensor *inputs, int32_t num_inputs, pt2c_model **out_graph,
                          const pt2c_tensor **out_inputs, int32_t *out_num_inputs);

/* Graph g's executable and the caller's inputs (slot order) in its plan's order, in a
 * table the caller frees: for calls that take a graph number rather than a method. */
pt2c_status pt2c_graph_inputs(const pt2c_model *model, uint32_t g, const pt2c_tensor *inputs,
                              int32_t num_inputs, const pt2c_model **out_graph,
                              pt2c_tensor **out_inputs, int32_t *out_num_inputs);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_DISPATCH_H_ */
