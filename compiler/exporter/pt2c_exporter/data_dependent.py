"""Data-dependent sizes: the row count of aten::nonzero as a symbol u0, u1, ...

How many rows nonzero returns depends on its input's values, and so do the sizes
computed from its result (`x[mask]`, `torch.where(cond)` and masked_select arrive as
nonzero too: mask_indexing.py). torchvision's nms (the indices of the boxes it keeps)
is the other op with such a count; both are "row producers" here. The graph keeps such a count symbolic the way it keeps
a dynamic dimension (dynamic_trace.py): each nonzero call of the example trace gets a
symbol, u<k> in call order, in the range [0, its bound] (n elements have at most n
nonzero ones; nms of n boxes keeps at most n), and the model is traced again with the calls' results forced to
other row counts. The fit then writes every size that follows them as an expression,
and the graph's DynamicDim u<k> names the value that computes it (`produced`: dim 0 of
the nonzero result); the compiled model reads the count when it runs.

A nonzero over no elements has no symbol: its result is empty whatever the values.
One over a tensor whose size itself varies (a declared dynamic dim, or another u: a mask
over an earlier selection) is bounded by that tensor's element count with every symbol
at its maximum (bound_row_counts, once the sizes are fitted).

A forced result of c rows repeats the real result's rows cyclically (its first c when it
has more), or is c all-zero rows when the real result is empty: either way every row is
the index of an element of the input, so the model can index with it as it would with
the real one. The values computed downstream are then not eager's, but only the ops and
sizes of those traces are used.
"""
import torch

from .dynamic_shapes import Symbol
from .schema import op_schema
from .symbolic_fit import SymExpr
from .user_errors import ExportError


# target -> (the argument that bounds the row count, the bound from its sizes)
_ROW_PRODUCERS = {
    "aten::nonzero": ("self", lambda sizes: _count(sizes)),
    "torchvision::nms": ("dets", lambda sizes: sizes[0]),
}


def is_nonzero(func):
    schema = op_schema(func)
    return schema.target == "aten::nonzero" and schema.overload == "default"


def is_row_producer(func):
    schema = op_schema(func)
    return schema.target in _ROW_PRODUCERS and schema.overload == "default"


def row_bound(target, sizes):
    """The most rows a row producer can return for an operand of these sizes."""
    return _ROW_PRODUCERS[target][1](list(sizes))


def bounding_operand(node):
    """The Value name of the argument that bounds a row producer node's count."""
    name = _ROW_PRODUCERS[node.target][0]
    return next(a.tensor for a in node.args if a.name == name)


class NonzeroCall:
    """One row producer call of a trace: its op, symbol (None when its bound is 0),
    bound, rows."""

    def __init__(self, target, symbol, bound, rows):
        self.target = target
        self.symbol = symbol
        self.bound = bound
        self.rows = rows
        self.value = None  # the result's Value name, once recorded


class NonzeroCalls:
    """The row producer calls of one trace, in call order (the tracer hands each over).

    forced: {call index: rows} in a retrace (each result is forced to that many rows),
    or None in the example trace (results as they are).
    """

    def __init__(self, forced=None):
        self._forced = forced or {}
        self.calls = []
        self._symbols = 0
        self._seen = []  # [(input, its version, result)] of the calls so far

    def earlier_result(self, input):
        """The result of an earlier call on this very tensor, unchanged since (boxes[keep]
        then scores[keep]: one mask, one count), or None. Such a call repeats that result
        instead of counting again: two symbols for one count could be forced apart in a
        retrace, which would make the model index with mismatched selections."""
        for seen, version, result in self._seen:
            if seen is input and seen._version == version:
                return result
        return None

    def result(self, target, input, real):
        """The call's result: `real`, or forced to the row count this trace asks for."""
        rows = self._forced.get(len(self.calls))
        if rows is not None and rows != real.shape[0]:
            real = forced_rows(real, rows)
        symbol = None
        bound = row_bound(target, input.shape)
        if bound > 0:
            symbol = "u%d" % self._symbols
            self._symbols += 1
        self.calls.append(NonzeroCall(target, symbol, bound, real.shape[0]))
        self._seen.append((input, input._version, real))
        return real

    def recorded_as(self, value):
        """The Value name the graph gave the last call's result."""
        self.calls[-1].value = value


def forced_rows(real, rows):
    """A row producer's result `real` ([n, rank] or [n] indices) as `rows` rows: its rows
    repeated cyclically, or zero rows (the first element's index) where it has none."""
    if real.shape[0] == 0:
        return real.new_zeros((rows,) + tuple(real.shape[1:]))
    picks = torch.arange(rows, device=real.device) % real.shape[0]
    return real.index_select(0, picks)


class RowCount(Symbol):
    """A data-dependent symbol: the row count of the call-th row producer call of the
    trace, dim 0 of its result Value `produced`."""

    def __init__(self, call_index, call, loc):
        super().__init__(call.symbol, 0, call.bound)
        self.target = call.target
        self.example = call.rows
        self.call = call_index
        self.produced = call.value
        self._loc = loc

    @property
    def loc(self):
        """The nonzero call's SourceLocation, or None."""
        return self._loc

    def origin(self):
        where = " at %s:%d" % (self._loc.file, self._loc.line) if self._loc else ""
        return "the row count of %s%s" % (self.target, where)


# Rows forced on a call whose example selection is empty (select_rows_where_empty).
EXAMPLE_ROWS = 3

_EMPTY_EXAMPLE = ("%s selects no rows at the example inputs, and a model often takes "
                  "another path for an empty selection (an early return): the graph was "
                  "traced with %d rows forced on it instead, so it has the path of a "
                  "non-empty selection; a trace at 0 rows then checks the empty case")


def select_rows_where_empty(traced, retrace):
    """The trace to keep: `traced` itself, or a retrace with each call that selected no
    rows at the example (of a bound above 0) forced to EXAMPLE_ROWS rows, in call order
    (forcing one may give later calls elements, or empty them). retrace(rows) -> a Trace
    with the calls forced ({call index: rows}). Each forced call is a DATA_DEPENDENT
    report entry."""
    forced = {}
    while True:
        empty = [i for i, call in enumerate(traced.nonzero_calls)
                 if call.symbol and call.rows == 0 and i not in forced]
        if not empty:
            break
        call = traced.nonzero_calls[empty[0]]
        forced[empty[0]] = min(EXAMPLE_ROWS, call.bound)
        traced = retrace(dict(forced))
    locs = _call_locations(traced)
    for index, rows in forced.items():
        call = traced.nonzero_calls[index]
        traced.report.add("DATA_DEPENDENT", _EMPTY_EXAMPLE % (call.target, rows),
                          locs.get(call.value), call.target,
                          "%s traced at %d rows" % (call.symbol, rows))
    return traced


def _call_locations(traced):
    return {value: node.loc if node.HasField("loc") else None
            for node in traced.graph.nodes for value in node.outputs}


def row_count_symbols(traced):
    """The RowCount symbols of the example trace's row producer calls."""
    locs = _call_locations(traced)
    return [RowCount(index, call, locs.get(call.value))
            for index, call in enumerate(traced.nonzero_calls) if call.symbol]


def check_inputs_keep_elements(graphs, points, shown):
    """Raise ExportError where a row producer with a bound of 0 at the example (which got
    no symbol: its result is empty) has elements in another trace. graphs[i] was traced
    at points[i]."""
    base = _row_producer_operand_shapes(graphs[0])
    for graph, point in zip(graphs[1:], points[1:]):
        for (node, example), (_, other) in zip(base, _row_producer_operand_shapes(graph)):
            if row_bound(node.target, example) == 0 and row_bound(node.target, other) > 0:
                changed = ", ".join("%s=%d" % (name, size) for name, size in point.items()
                                    if size != points[0][name])
                where = (" at %s:%d: `%s`" % (node.loc.file, node.loc.line, node.loc.code)
                         if node.loc.file else "")
                raise ExportError(
                    "%s: %s%s takes a tensor with no elements at the example (%s) "
                    "but some at %s (%s): export with an example that gives it elements"
                    % (shown, node.target, where, example, changed, other))


def bound_row_counts(graph, shapes):
    """Set each data-dependent symbol's maximum: the bound of its row producer's operand
    with every symbol at its maximum, in call order (a selection of a selection is
    bounded by the first one's bound), then each clamp's range. Sizes grow with the
    symbols (the compiler checks that), so the bound holds at every run. `graph`: the
    fitted example graph."""
    maxima = shapes.clamped({s.name: s.max for s in shapes.symbols})
    producers = {out: node for node in graph.nodes for out in node.outputs}
    sizes = {v.name: v.meta.sizes for v in graph.values}
    for symbol in shapes.symbols:
        if not isinstance(symbol, RowCount):
            continue
        node = producers[symbol.produced]
        operand = bounding_operand(node)
        symbol.max = maxima[symbol.name] = row_bound(
            node.target, [evaluate(size, maxima) for size in sizes[operand]])
    shapes.set_clamp_ranges()


def evaluate(symint, values):
    """A fitted integer (pt2c.proto SymInt) at the given symbol values ({name: value})."""
    if symint.WhichOneof("kind") != "expr":
        return symint.value
    return SymExpr.from_message(symint.symbolic).evaluate(values)


def _count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _row_producer_operand_shapes(graph):
    """[(node, its bounding operand's sizes)] of the graph's row producer calls, before
    any fitting."""
    sizes = {v.name: [s.value for s in v.meta.sizes] for v in graph.values}
    return [(node, sizes[bounding_operand(node)])
            for node in graph.nodes if node.target in _ROW_PRODUCERS]
