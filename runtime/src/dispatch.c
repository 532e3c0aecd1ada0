/* Plan sets and dispatch: a model with several graphs, and which graph runs for the
 * inputs a caller gives (pt2c/plan_format.h says how slots match). A model made from a
 * lone plan is one graph, "forward", whose slots are its inputs. */
#include "dispatch.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "shape.h"
#include "symbolic.h"

_Static_assert(sizeof(pt2c_plan_set_header) == 32, "pt2c_plan_set_header layout");
_Static_assert(sizeof(pt2c_plan_set_graph) == 40, "pt2c_plan_set_graph layout");
_Static_assert(sizeof(pt2c_plan_slot) == 8, "pt2c_plan_slot layout");

#define CORRUPT(...) pt2c_fail(PT2C_ERROR_CORRUPT_MODEL, "corrupt plan set: " __VA_ARGS__)

enum { kListCapacity = 900, kShapeCapacity = 96 };

int pt2c_is_plan_set(const void *blob, uint64_t size) {
  return blob != NULL && size >= 8 && memcmp(blob, PT2C_PLAN_SET_MAGIC, 8) == 0;
}

/* ---- the set ----------------------------------------------------------------------- */

static int range_fits(uint64_t offset, uint64_t nbytes, uint64_t limit) {
  uint64_t end;
  return !__builtin_add_overflow(offset, nbytes, &end) && end <= limit;
}

/* Checks the header and tables; fills the graphs' names and slots (not their models). */
static pt2c_status read_tables(const unsigned char *base, uint64_t size, pt2c_model *owner) {
  const pt2c_plan_set_header *h = (const pt2c_plan_set_header *)base;
  if (size < sizeof(*h))
    return CORRUPT("truncated header");
  if (h->version != PT2C_PLAN_SET_VERSION)
    return CORRUPT("version %u, this runtime reads version %u", h->version, PT2C_PLAN_SET_VERSION);
  if (h->num_graphs == 0 || h->num_graphs > INT32_MAX)
    return CORRUPT("%u graphs", h->num_graphs);
  uint64_t graphs_at = sizeof(*h);
  uint64_t slots_at = graphs_at + (uint64_t)h->num_graphs * sizeof(pt2c_plan_set_graph);
  uint64_t strings_at = slots_at + (uint64_t)h->num_slots * sizeof(pt2c_plan_slot);
  if (!range_fits(strings_at, h->strings_size, size))
    return CORRUPT("its tables leave the %" PRIu64 "-byte blob", size);
  const char *strings = (const char *)base + strings_at;
  if (h->strings_size == 0 || strings[h->strings_size - 1] != '\0')
    return CORRUPT("the string table is not NUL-terminated");
  uint64_t tables_end = strings_at + h->strings_size;
  const pt2c_plan_set_graph *graphs = (const pt2c_plan_set_graph *)(base + graphs_at);
  const pt2c_plan_slot *slots = (const pt2c_plan_slot *)(base + slots_at);

  owner->graphs = calloc(h->num_graphs, sizeof(pt2c_model_graph));
  if (owner->graphs == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate graphs");
  owner->num_graphs = h->num_graphs;
  for (uint32_t g = 0; g < h->num_graphs; ++g) {
    const pt2c_plan_set_graph *graph = &graphs[g];
    if (graph->name >= h->strings_size || graph->method >= h->strings_size)
      return CORRUPT("graph %u: a name is outside the string table", g);
    if (!range_fits(graph->first_slot, graph->num_slots, h->num_slots))
      return CORRUPT("graph %u: slots [%u, +%u) are outside the %u slots", g, graph->first_slot,
                     graph->num_slots, h->num_slots);
    if (graph->plan_offset < tables_end || graph->plan_offset % 8 != 0 ||
        !range_fits(graph->plan_offset, graph->plan_size, size))
      return CORRUPT("graph %u: its plan [%" PRIu64 ", +%" PRIu64 ") is misplaced", g,
                     graph->plan_offset, graph->plan_size);
    for (uint32_t i = 0; i < graph->num_slots; ++i)
      if (slots[graph->first_slot + i].name >= h->strings_size)
        return CORRUPT("graph %u: slot %u's name is outside the string table", g, i);
    pt2c_model_graph *out = &owner->graphs[g];
    out->name = strings + graph->name;
    out->method = strings + graph->method;
    out->strings = strings;
    out->slots = slots + graph->first_slot;
    out->num_slots = graph->num_slots;
  }
  return PT2C_OK;
}

/* Every slot binds an input of the graph's plan (or none), and every input is bound. */
static pt2c_status check_slots(const pt2c_model_graph *graph, uint32_t g) {
  uint32_t num_inputs = graph->model->plan.header->num_inputs;
  for (uint32_t i = 0; i < graph->num_slots; ++i) {
    int32_t input = graph->slots[i].input;
    if (input < -1 || (input >= 0 && (uint32_t)input >= num_inputs))
      return CORRUPT("graph %u: slot %u binds input %d of %u", g, i, input, num_inputs);
  }
  for (uint32_t j = 0; j < num_inputs; ++j) {
    int bound = 0;
    for (uint32_t i = 0; i < graph->num_slots && !bound; ++i)
      bound = graph->slots[i].input == (int32_t)j;
    if (!bound)
      return CORRUPT("graph %u: no slot binds its input %u", g, j);
  }
  return PT2C_OK;
}

/* The dispatch scratch: room for the inputs of the graph that takes the most. */
static pt2c_status allocate_gathered(pt2c_model *owner) {
  uint32_t max_inputs = 0;
  for (uint32_t g = 0; g < owner->num_graphs; ++g)
    if (owner->graphs[g].model->plan.header->num_inputs > max_inputs)
      max_inputs = owner->graphs[g].model->plan.header->num_inputs;
  owner->gathered = calloc(max_inputs > 0 ? max_inputs : 1, sizeof(pt2c_tensor));
  if (owner->gathered == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate the dispatch tables");
  return PT2C_OK;
}

/* Creates each graph's executable; created[g] collects them, the siblings of the next. */
static pt2c_status create_graphs(const pt2c_model_source *source, const pt2c_plan_set_graph *graphs,
                                 pt2c_model *owner, pt2c_model **created) {
  const unsigned char *base = owner->set_copy;
  pt2c_status status = PT2C_OK;
  for (uint32_t g = 0; g < owner->num_graphs; ++g) {
    if (graphs[g].first_kernel > source->num_kernels)
      return CORRUPT("graph %u: kernel %u is outside the kernel table", g, graphs[g].first_kernel);
    pt2c_model_source part = *source;
    part.plan = base + graphs[g].plan_offset;
    part.plan_size = graphs[g].plan_size;
    part.kernels = source->kernels ? source->kernels + graphs[g].first_kernel : NULL;
    part.num_kernels = source->num_kernels - graphs[g].first_kernel;
    part.kernel_splits =
        source->kernel_splits ? source->kernel_splits + graphs[g].first_kernel : NULL;
    part.kernel_arg_first =
        source->kernel_arg_first ? source->kernel_arg_first + graphs[g].first_kernel : NULL;
    part.siblings = created;
    part.num_siblings = g;
    if (pt2c_is_plan_set(part.plan, part.plan_size))
      return CORRUPT("graph %u is a plan set", g);
    status = pt2c_model_create_from(&part, &owner->graphs[g].model);
    if (status != PT2C_OK) {
      /* Keep the graph's own message, say which graph it was. */
      char reason[512];
      snprintf(reason, sizeof(reason), "%s", pt2c_last_error());
      return pt2c_fail(status, "graph '%s': %s", owner->graphs[g].name, reason);
    }
    created[g] = owner->graphs[g].model;
    status = check_slots(&owner->graphs[g], g);
    if (status != PT2C_OK)
      return status;
  }
  return PT2C_OK;
}

pt2c_status pt2c_plan_set_create(const pt2c_model_source *source, pt2c_model *owner) {
  if (source->plan_size > SIZE_MAX)
    return CORRUPT("its size is impossible");
  owner->set_copy = malloc((size_t)source->plan_size);
  if (owner->set_copy == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not copy the plan set");
  memcpy(owner->set_copy, source->plan, (size_t)source->plan_size);
  const unsigned char *base = owner->set_copy;
  pt2c_status status = read_tables(base, source->plan_size, owner);
  if (status != PT2C_OK)
    return status;
  const pt2c_plan_set_graph *graphs =
      (const pt2c_plan_set_graph *)(base + sizeof(pt2c_plan_set_header));
  pt2c_model **created = calloc(owner->num_graphs, sizeof(pt2c_model *));
  if (created == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate graphs");
  status = create_graphs(source, graphs, owner, created);
  free(created);
  if (status == PT2C_OK)
    status = allocate_gathered(owner);
  return status;
}

pt2c_status pt2c_plan_set_instance(const pt2c_model *parent, pt2c_model *owner) {
  owner->graphs = calloc(parent->num_graphs, sizeof(pt2c_model_graph));
  if (owner->graphs == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a context's graph tables");
  owner->num_graphs = parent->num_graphs;
  pt2c_model **created = calloc(parent->num_graphs, sizeof(pt2c_model *));
  if (created == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate a context's graph tables");
  pt2c_status status = PT2C_OK;
  for (uint32_t g = 0; g < parent->num_graphs && status == PT2C_OK; ++g) {
    owner->graphs[g] = parent->graphs[g]; /* names and slots point into the parent's set */
    owner->graphs[g].model = NULL;
    status =
        pt2c_model_instance_create(parent->graphs[g].model, created, g, &owner->graphs[g].model);
    created[g] = owner->graphs[g].model;
  }
  free(created);
  if (status == PT2C_OK)
    status = allocate_gathered(owner);
  return status;
}

void pt2c_plan_set_free(pt2c_model *owner) {
  for (uint32_t g = 0; g < owner->num_graphs; ++g)
    pt2c_model_destroy(owner->graphs[g].model);
  free(owner->graphs);
  free(owner->gathered);
  free(owner->set_copy);
}

/* ---- one graph, whether from a set or a lone plan ----------------------------------- */

typedef struct graph_view {
  const char *name;
  const char *method;
  uint32_t num_slots;
  const pt2c_model_graph *set_graph; /* NULL: a lone plan, slot i binds input i */
  pt2c_model *model;
} graph_view;

static uint32_t graph_count(const pt2c_model *model) {
  return model->num_graphs > 0 ? model->num_graphs : 1;
}

static graph_view view_of(const pt2c_model *model, uint32_t g) {
  graph_view v;
  if (model->num_graphs == 0) {
    v.name = v.method = "forward";
    v.num_slots = model->plan.header->num_inputs;
    v.set_graph = NULL;
    v.model = (pt2c_model *)model;
  } else {
    const pt2c_model_graph *graph = &model->graphs[g];
    v.name = graph->name;
    v.method = graph->method;
    v.num_slots = graph->num_slots;
    v.set_graph = graph;
    v.model = graph->model;
  }
  return v;
}

static int32_t slot_input(const graph_view *v, uint32_t slot) {
  return v->set_graph ? v->set_graph->slots[slot].input : (int32_t)slot;
}

static const char *slot_name(const graph_view *v, uint32_t slot) {
  if (v->set_graph)
    return v->set_graph->strings + v->set_graph->slots[slot].name;
  return pt2c_plan_string(&v->model->plan, v->model->plan.inputs[slot].name);
}

static int given(const pt2c_tensor *inputs, int32_t num_inputs, uint32_t slot) {
  return (int64_t)slot < num_inputs && inputs[slot].dtype != PT2C_DTYPE_UNDEFINED;
}

/* Whether each dynamic dimension of the graph, read from the input it names, lies in its
 * range: of two graphs of one method, a prefill for prompts of 2..512 tokens and a
 * decode step for 1, a run of one token selects the decode step. (The run checks the
 * ranges again, with its own message; here a size outside them only means "not this
 * graph".) */
static int dynamic_sizes_fit(const graph_view *v, const pt2c_tensor *inputs) {
  const pt2c_plan *plan = &v->model->plan;
  if (plan->header->num_syms == 0)
    return 1;
  for (uint32_t i = 0; i < v->num_slots; ++i) {
    if (slot_input(v, i) < 0)
      continue;
    const pt2c_plan_tensor *t = &plan->inputs[slot_input(v, i)];
    for (uint32_t d = 0; d < t->rank; ++d) {
      int32_t k = pt2c_sym_of(plan, plan->dims[t->dims + d]);
      if (k < 0)
        continue;
      int64_t size = inputs[i].dims[d];
      if (size < plan->syms[k].min || size > plan->syms[k].max)
        return 0;
    }
  }
  return 1;
}

/* Whether the inputs select this graph: the same slots present, each as the plan wants. */
static int matches(const graph_view *v, const pt2c_tensor *inputs, int32_t num_inputs) {
  uint32_t n = (uint32_t)num_inputs > v->num_slots ? (uint32_t)num_inputs : v->num_slots;
  for (uint32_t i = 0; i < n; ++i) {
    int want = i < v->num_slots && slot_input(v, i) >= 0;
    if (want != given(inputs, num_inputs, i))
      return 0;
    if (!want)
      continue;
    const pt2c_plan_tensor *t = &v->model->plan.inputs[slot_input(v, i)];
    const pt2c_tensor *x = &inputs[i];
    if ((uint32_t)x->dtype != t->dtype || x->rank < 0 || (uint32_t)x->rank != t->rank ||
        (x->rank > 0 && x->dims == NULL))
      return 0;
    const int64_t *dims = v->model->plan.dims + t->dims;
    for (uint32_t d = 0; d < t->rank; ++d)
      if (dims[d] >= 0 && x->dims[d] != dims[d])
        return 0;
  }
  return dynamic_sizes_fit(v, inputs);
}

/* Appends to `text` (capacity kListCapacity): "x: f32[2, 8]", "mask: none", ... */
static void append(char *text, const char *piece) {
  size_t used = strlen(text);
  if (used + 1 < kListCapacity)
    snprintf(text + used, kListCapacity - used, "%s", piece);
}

static void append_tensor(char *text, const char *name, pt2c_dtype dtype, uint32_t rank,
                          const int64_t *dims) {
  char piece[kShapeCapacity + 64], shape[kShapeCapacity];
  if (dtype == PT2C_DTYPE_UNDEFINED) {
    snprintf(piece, sizeof(piece), "%s: none", name);
  } else {
    pt2c_shape_format(shape, sizeof(shape), rank, dims);
    snprintf(piece, sizeof(piece), "%s: %s%s", name, pt2c_dtype_name(dtype), shape);
  }
  append(text, piece);
}

/* "ids: i64[1, prompt 2..64]": a plan input, its dynamic dims by name and range. */
static void append_plan_input(char *text, const char *name, const pt2c_plan *plan, uint32_t input) {
  const pt2c_plan_tensor *t = &plan->inputs[input];
  char piece[kShapeCapacity];
  snprintf(piece, sizeof(piece), "%s: %s[", name, pt2c_dtype_name((pt2c_dtype)t->dtype));
  append(text, piece);
  for (uint32_t d = 0; d < t->rank; ++d) {
    int64_t size = plan->dims[t->dims + d];
    int32_t k = pt2c_sym_of(plan, size);
    if (k >= 0)
      snprintf(piece, sizeof(piece), "%s%s %" PRId64 "..%" PRId64, d > 0 ? ", " : "",
               pt2c_plan_string(plan, plan->syms[k].name), plan->syms[k].min, plan->syms[k].max);
    else
      snprintf(piece, sizeof(piece), "%s%" PRId64, d > 0 ? ", " : "", size);
    append(text, piece);
  }
  append(text, "]");
}

static void describe_signature(char *text, const graph_view *v) {
  append(text, v->name);
  append(text, "(");
  for (uint32_t i = 0; i < v->num_slots; ++i) {
    if (i > 0)
      append(text, ", ");
    int32_t input = slot_input(v, i);
    if (input < 0) {
      append_tensor(text, slot_name(v, i), PT2C_DTYPE_UNDEFINED, 0, NULL);
    } else {
      append_plan_input(text, slot_name(v, i), &v->model->plan, (uint32_t)input);
    }
  }
  append(text, ")");
}

static void describe_given(char *text, const pt2c_tensor *inputs, int32_t num_inputs) {
  append(text, "(");
  for (int32_t i = 0; i < num_inputs; ++i) {
    char name[24];
    snprintf(name, sizeof(name), "%s%d", i > 0 ? ", " : "", i);
    const pt2c_tensor *x = &inputs[i];
    int valid = x->dtype == PT2C_DTYPE_UNDEFINED ||
                (pt2c_dtype_is_valid((uint32_t)x->dtype) && x->rank >= 0 &&
                 x->rank <= PT2C_MAX_RANK && (x->rank == 0 || x->dims != NULL));
    if (valid)
      append_tensor(text, name, x->dtype, (uint32_t)x->rank, x->dims);
    else
      append(text, strcat(name, ": invalid"));
  }
  append(text, ")");
}

/* The graphs `method` names: its graphs, or the one graph of that name. */
static int selects(const pt2c_model *model, const graph_view *v, const char *method, int by_name) {
  (void)model;
  return by_name ? strcmp(v->name, method) == 0 : strcmp(v->method, method) == 0;
}

static pt2c_status find_graph(const pt2c_model *model, const char *function, const char *method,
                              const pt2c_tensor *inputs, int32_t num_inputs, uint32_t *out) {
  if (num_inputs < 0 || (inputs == NULL && num_inputs > 0))
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: %d inputs at %p", function, num_inputs,
                     (const void *)inputs);
  uint32_t count = graph_count(model);
  graph_view first = view_of(model, 0);
  if (method == NULL)
    method = first.method;
  int by_name = 0;
  uint32_t candidates = 0, candidate = 0;
  for (uint32_t g = 0; g < count; ++g) {
    graph_view v = view_of(model, g);
    if (selects(model, &v, method, 0))
      candidates++, candidate = candidates == 1 ? g : candidate;
  }
  if (candidates == 0) {
    by_name = 1;
    for (uint32_t g = 0; g < count; ++g) {
      graph_view v = view_of(model, g);
      if (selects(model, &v, method, 1))
        candidates++, candidate = g;
    }
  }
  if (candidates == 0) {
    char list[kListCapacity] = "";
    for (uint32_t g = 0; g < count; ++g) {
      graph_view v = view_of(model, g);
      if (g > 0)
        append(list, ", ");
      append(list, v.method);
      append(list, " (graph ");
      append(list, v.name);
      append(list, ")");
    }
    return pt2c_fail(PT2C_ERROR_NO_MATCHING_GRAPH,
                     "%s: the model has no method or graph named "
                     "'%s'; it has: %s",
                     function, method, list);
  }
  if (candidates == 1) {
    /* The run's own checks say precisely what differs; here only presence, which they
     * cannot see. */
    graph_view v = view_of(model, candidate);
    uint32_t n = (uint32_t)num_inputs > v.num_slots ? (uint32_t)num_inputs : v.num_slots;
    for (uint32_t i = 0; i < n; ++i) {
      int want = i < v.num_slots && slot_input(&v, i) >= 0;
      if (want == given(inputs, num_inputs, i))
        continue;
      if (i >= v.num_slots)
        return pt2c_fail(PT2C_ERROR_INPUT_COUNT, "expected %u input%s, got %d", v.num_slots,
                         v.num_slots == 1 ? "" : "s", num_inputs);
      return pt2c_fail(PT2C_ERROR_INPUT_COUNT, "input %u ('%s') of graph '%s' %s", i,
                       slot_name(&v, i), v.name,
                       want ? "is required, but absent" : "was traced as None; pass it absent");
    }
    *out = candidate;
    return PT2C_OK;
  }
  for (uint32_t g = 0; g < count; ++g) {
    graph_view v = view_of(model, g);
    if (selects(model, &v, method, by_name) && matches(&v, inputs, num_inputs)) {
      *out = g;
      return PT2C_OK;
    }
  }
  char list[kListCapacity] = "";
  append(list, "no graph of method '");
  append(list, method);
  append(list, "' takes the inputs ");
  describe_given(list, inputs, num_inputs);
  append(list, "; its signatures: ");
  int listed = 0;
  for (uint32_t g = 0; g < count; ++g) {
    graph_view v = view_of(model, g);
    if (!selects(model, &v, method, by_name))
      continue;
    if (listed++)
      append(list, ", ");
    describe_signature(list, &v);
  }
  return pt2c_fail(PT2C_ERROR_NO_MATCHING_GRAPH, "%s: %s", function, list);
}

/* The caller's inputs (slot order) in the plan's order; a slot past num_inputs is
 * absent there (a zeroed tensor), which the checks of the run report. */
static void gather(const graph_view *v, const pt2c_tensor *inputs, int32_t num_inputs,
                   pt2c_tensor *out) {
  uint32_t num_plan_inputs = v->model->plan.header->num_inputs;
  memset(out, 0, num_plan_inputs * sizeof(pt2c_tensor));
  for (uint32_t i = v->num_slots; i-- > 0;) /* backwards: the first slot of an input wins */
    if (slot_input(v, i) >= 0 && (int64_t)i < num_inputs)
      out[slot_input(v, i)] = inputs[i];
}

pt2c_status pt2c_dispatch(pt2c_model *model, const char *function, const char *method,
                          const pt2c_tensor *inputs, int32_t num_inputs, pt2c_model **out_graph,
                          const pt2c_tensor **out_inputs, int32_t *out_num_inputs) {
  if (model->num_graphs == 0 && (method == NULL || strcmp(method, "forward") == 0)) {
    /* A lone plan: its run checks everything, with the messages it always had. */
    *out_graph = model;
    *out_inputs = inputs;
    *out_num_inputs = num_inputs;
    return PT2C_OK;
  }
  uint32_t g = 0;
  pt2c_status status = find_graph(model, function, method, inputs, num_inputs, &g);
  if (status != PT2C_OK)
    return status;
  graph_view v = view_of(model, g);
  *out_graph = v.model;
  if (v.set_graph == NULL) { /* a lone plan: the caller's inputs as they are */
    *out_inputs = inputs;
    *out_num_inputs = num_inputs;
    return PT2C_OK;
  }
  gather(&v, inputs, num_inputs, model->gathered);
  *out_inputs = model->gathered;
  *out_num_inputs = (int32_t)v.model->plan.header->num_inputs;
  return PT2C_OK;
}

pt2c_status pt2c_graph_inputs(const pt2c_model *model, uint32_t g, const pt2c_tensor *inputs,
                              int32_t num_inputs, const pt2c_model **out_graph,
                              pt2c_tensor **out_inputs, int32_t *out_num_inputs) {
  graph_view v = view_of(model, g);
  uint32_t num_plan_inputs = v.model->plan.header->num_inputs;
  /* A lone plan takes the inputs as they are (its checks count them). */
  uint32_t count = v.set_graph == NULL ? (uint32_t)num_inputs : num_plan_inputs;
  pt2c_tensor *table = calloc(count > 0 ? count : 1, sizeof(pt2c_tensor));
  if (table == NULL)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY, "could not allocate an input table");
  if (v.set_graph == NULL) {
    if (count > 0)
      memcpy(table, inputs, count * sizeof(pt2c_tensor));
  } else {
    gather(&v, inputs, num_inputs, table);
  }
  *out_graph = v.model;
  *out_inputs = table;
  *out_num_inputs = (int32_t)count;
  return PT2C_OK;
}

/* ---- the ABI ------------------------------------------------------------------------ */

PT2C_API int32_t pt2c_model_num_graphs(const pt2c_model *model) {
  if (model == NULL) {
    pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_num_graphs: model is null");
    return -1;
  }
  return (int32_t)graph_count(model);
}

static pt2c_status check_graph(const pt2c_model *model, const char *function, int32_t graph,
                               const void *out) {
  if (model == NULL || out == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: %s is null", function,
                     model == NULL ? "model" : "out_info");
  if (graph < 0 || (uint32_t)graph >= graph_count(model))
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: graph %d is out of range [0, %u)", function,
                     graph, graph_count(model));
  return PT2C_OK;
}

PT2C_API pt2c_status pt2c_model_graph_info(const pt2c_model *model, int32_t graph,
                                           pt2c_graph_info *out_info) {
  pt2c_status status = check_graph(model, "pt2c_model_graph_info", graph, out_info);
  if (status != PT2C_OK)
    return status;
  graph_view v = view_of(model, (uint32_t)graph);
  out_info->name = v.name;
  out_info->method = v.method;
  out_info->num_inputs = (int32_t)v.num_slots;
  out_info->num_outputs = (int32_t)v.model->plan.header->num_outputs;
  return PT2C_OK;
}

PT2C_API pt2c_status pt2c_model_graph_input_info(const pt2c_model *model, int32_t graph,
                                                 int32_t index, pt2c_tensor_info *out_info) {
  const char *function = "pt2c_model_graph_input_info";
  pt2c_status status = check_graph(model, function, graph, out_info);
  if (status != PT2C_OK)
    return status;
  graph_view v = view_of(model, (uint32_t)graph);
  if (index < 0 || (uint32_t)index >= v.num_slots)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "%s: index %d is out of range [0, %u)", function,
                     index, v.num_slots);
  int32_t input = slot_input(&v, (uint32_t)index);
  if (input < 0) {
    out_info->name = slot_name(&v, (uint32_t)index);
    out_info->dtype = PT2C_DTYPE_UNDEFINED;
    out_info->rank = 0;
    out_info->dims = NULL;
    return PT2C_OK;
  }
  status = pt2c_model_input_info(v.model, input, out_info);
  out_info->name = slot_name(&v, (uint32_t)index);
  return status;
}

PT2C_API pt2c_status pt2c_model_graph_output_info(const pt2c_model *model, int32_t graph,
                                                  int32_t index, pt2c_tensor_info *out_info) {
  pt2c_status status = check_graph(model, "pt2c_model_graph_output_info", graph, out_info);
  if (status != PT2C_OK)
    return status;
  return pt2c_model_output_info(view_of(model, (uint32_t)graph).model, index, out_info);
}

PT2C_API pt2c_status pt2c_model_find_graph(const pt2c_model *model, const char *method,
                                           const pt2c_tensor *inputs, int32_t num_inputs,
                                           int32_t *out_graph) {
  if (model == NULL || out_graph == NULL)
    return pt2c_fail(PT2C_ERROR_INVALID_ARGUMENT, "pt2c_model_find_graph: %s is null",
                     model == NULL ? "model" : "out_graph");
  uint32_t g = 0;
  pt2c_status status = find_graph(model, "pt2c_model_find_graph", method, inputs, num_inputs, &g);
  if (status == PT2C_OK)
    *out_graph = (int32_t)g;
  return status;
}
