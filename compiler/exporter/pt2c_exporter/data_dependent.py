"""Data-dependent sizes: the row count of aten::nonzero as a symbol u0, u1, ...

How many rows nonzero returns depends on its input's values, and so do the sizes
computed from its result (`x[mask]`, `torch.where(cond)` and masked_select arrive as
nonzero too: mask_indexing.py). The graph keeps such a count symbolic the way it keeps
a dynamic dimension (dynamic_trace.py): each nonzero call of the example trace gets a
symbol, u<k> in call order, in the range [0, its input's element count] (n elements have
at most n nonzero ones), and the model is traced again with the calls' results forced to
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
from .user_errors import ExportError


def is_nonzero(func):
    schema = op_schema(func)
    return schema.target == "aten::nonzero" and schema.overload == "default"


class NonzeroCall:
    """One nonzero call of a trace: its symbol (None over no elements), bound, rows."""

    def __init__(self, symbol, bound, rows):
        self.symbol = symbol
        self.bound = bound
        self.rows = rows
        self.value = None  # the result's Value name, once recorded


class NonzeroCalls:
    """The aten::nonzero calls of one trace, in call order (the tracer hands each over).

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

    def result(self, input, real):
        """The call's result: `real`, or forced to the row count this trace asks for."""
        rows = self._forced.get(len(self.calls))
        if rows is not None and rows != real.shape[0]:
            real = forced_rows(real, rows)
        symbol = None
        if input.numel() > 0:
            symbol = "u%d" % self._symbols
            self._symbols += 1
        self.calls.append(NonzeroCall(symbol, input.numel(), real.shape[0]))
        self._seen.append((input, input._version, real))
        return real

    def recorded_as(self, value):
        """The Value name the graph gave the last call's result."""
        self.calls[-1].value = value


def forced_rows(real, rows):
    """nonzero's result `real` ([n, rank]) as `rows` rows: its rows repeated cyclically,
    or zero rows (the first element's index) where it has none."""
    if real.shape[0] == 0:
        return real.new_zeros((rows, real.shape[1]))
    picks = torch.arange(rows, device=real.device) % real.shape[0]
    return real.index_select(0, picks)


class RowCount(Symbol):
    """A data-dependent symbol: the row count of the call-th nonzero call of the trace,
    dim 0 of its result Value `produced`."""

    def __init__(self, call_index, call, loc):
        super().__init__(call.symbol, 0, call.bound)
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
        return "the row count of aten::nonzero%s" % where


def row_count_symbols(traced):
    """The RowCount symbols of the example trace's nonzero calls."""
    locs = {value: node.loc if node.HasField("loc") else None
            for node in traced.graph.nodes for value in node.outputs}
    return [RowCount(index, call, locs.get(call.value))
            for index, call in enumerate(traced.nonzero_calls) if call.symbol]


def check_inputs_keep_elements(graphs, points, shown):
    """Raise ExportError where a nonzero call over no elements at the example (which got no
    symbol: its result is empty) has elements in another trace. graphs[i] was traced at
    points[i]."""
    base = _nonzero_input_shapes(graphs[0])
    for graph, point in zip(graphs[1:], points[1:]):
        for (node, example), (_, other) in zip(base, _nonzero_input_shapes(graph)):
            if _count(example) == 0 and _count(other) > 0:
                changed = ", ".join("%s=%d" % (name, size) for name, size in point.items()
                                    if size != points[0][name])
                where = (" at %s:%d: `%s`" % (node.loc.file, node.loc.line, node.loc.code)
                         if node.loc.file else "")
                raise ExportError(
                    "%s: aten::nonzero%s takes a tensor with no elements at the example (%s) "
                    "but some at %s (%s): export with an example that gives it elements"
                    % (shown, where, example, changed, other))


def bound_row_counts(graph, shapes):
    """Set each data-dependent symbol's maximum: its nonzero input's element count with
    every symbol at its maximum, in call order (a selection of a selection is bounded by
    the first one's bound). Sizes grow with the symbols (the compiler checks that), so
    the bound holds at every run. `graph`: the fitted example graph."""
    maxima = {s.name: s.max for s in shapes.symbols if not isinstance(s, RowCount)}
    producers = {out: node for node in graph.nodes for out in node.outputs}
    sizes = {v.name: v.meta.sizes for v in graph.values}
    for symbol in shapes.symbols:
        if not isinstance(symbol, RowCount):
            continue
        node = producers[symbol.produced]
        operand = next(a.tensor for a in node.args if a.name == "self")
        bound = 1
        for size in sizes[operand]:
            bound *= evaluate(size, maxima)
        symbol.max = maxima[symbol.name] = bound


def evaluate(symint, values):
    """A fitted integer (pt2c.proto SymInt) at the given symbol values ({name: value})."""
    if symint.WhichOneof("kind") != "expr":
        return symint.value
    e = symint.symbolic
    total = e.constant
    for term in e.terms:
        product = term.coefficient
        for name in term.symbols:
            product *= values[name]
        total += product
    return total // (e.divisor or 1)


def _count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _nonzero_input_shapes(graph):
    """[(node, its input's sizes)] of the graph's nonzero calls, before any fitting."""
    sizes = {v.name: [s.value for s in v.meta.sizes] for v in graph.values}
    return [(node, sizes[next(a.tensor for a in node.args if a.name == "self")])
            for node in graph.nodes if node.target == "aten::nonzero"]
