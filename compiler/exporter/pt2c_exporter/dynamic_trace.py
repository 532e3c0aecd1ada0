"""Dynamic dimensions: trace again at other sizes and make the sizes symbolic.

The example trace is the graph we keep. For each symbol the model is traced again at two
other sizes of it (the others at their example size), and once more with every symbol
changed when there are several (so batch*seq is told apart from terms in batch and in seq
alone). The symbols are the dims model.py declares dynamic and the data-dependent sizes
the example trace found (nonzero's row counts, data_dependent.py): inputs at other sizes
repeat the example's values cyclically along the dynamic dims, so token ids and masks
stay valid; a row count at another size is forced on the nonzero call's result, every
call's in every retrace (at its example count where it is not the one changed).

Every trace must record the same graph: the same ops with the same kinds of arguments
and ranks; otherwise the graph depends on a size and the export fails, naming the first
difference. Then every integer (op arguments and value sizes) that differs between the
traces is fitted as an expression of the symbols (symbolic_fit.py) and written into the
example graph. Strides and storage offsets stay the example's numbers: the compiler
derives layouts itself.
"""
import torch
import pt2c_pb2 as pb

from .data_dependent import bound_row_counts, check_inputs_keep_elements, evaluate
from .symbolic_fit import Fitter, SymExpr
from .tracer import ExporterBug
from .user_errors import ExportError, exception_summary, user_traceback

USER_INPUT = pb.InputSpec.USER_INPUT


def trace_sizes(symbol):
    """Two sizes other than the example's, in range, deterministic: one next to it and
    one about twice as large (so divisions up to the example size show up). Sizes take
    special paths at the edges, so these come last: 0 and 1 (broadcasting) and the
    range's max (slicing `[:t]` of a buffer that long is no op at all)."""
    e, low, high = symbol.example, symbol.min, symbol.max
    candidates = [e + 1, 2 * e + 1, (e + high) // 2, e + 2, e - 1, (low + e) // 2, high, low]
    preferences = [lambda n: 2 <= n < high, lambda n: n >= 2, lambda n: True]
    chosen = []
    for preferred in preferences:
        for size in candidates:
            if low <= size <= high and size != e and size not in chosen and preferred(size):
                chosen.append(size)
            if len(chosen) == 2:
                return chosen
    return chosen


def row_count_trace_sizes(symbol):
    """For a data-dependent row count: the example's plus one, a small one (2, else 3
    or 4), 3 too where the example is larger, and the bound. A count ranges over
    [0, bound] from run to run, unlike a declared dim's example, and a size the model
    clamps (`keep[:100]`, `topk(min(k, n))`) must be traced below and above the clamp:
    the fit then finds min(n, 100) (a clamp symbol), where points on one side only
    would make it n or 100, wrong for the counts on the other side. _validate checks
    the fit at a count of 0 too. Never 1: a count of 1 makes views of sizes that need
    copies at other counts (reshape of a sliced [n, k, 4]), and indexing with one index
    takes another path, another graph. A count above the example's bound is fine to
    force (the rows repeat), and the bound over every run is often larger anyway."""
    e, high = symbol.example, symbol.max
    sizes = [e + 1]
    sizes += [n for n in (2, 3, 4) if n not in (e, e + 1)][:1]
    if e >= 4 and 3 not in sizes:
        sizes.append(3)  # two points below a clamp the example is above
    if high > max(sizes) and high != e:
        sizes.append(high)
    return sizes


def trace_points(shapes):
    """[{symbol: size}] for each trace; the first is the example."""
    base = shapes.example_assignment()
    points = [base]
    extra = {s.name: row_count_trace_sizes(s) if s.produced is not None else trace_sizes(s)
             for s in shapes.symbols}
    for symbol in shapes.symbols:
        for size in extra[symbol.name]:
            points.append(dict(base, **{symbol.name: size}))
    if len(shapes.symbols) > 1:
        points.append({name: sizes[0] for name, sizes in extra.items()})
    return points


def resized_inputs(example_inputs, sizes):
    """The example inputs with dims resized ({(input index, dim): size}), repeating the
    example's values cyclically along them and keeping the example's dim order."""
    result = []
    for index, tensor in enumerate(example_inputs):
        dims = {dim: size for (i, dim), size in sizes.items() if i == index}
        if not dims or all(tensor.shape[d] == n for d, n in dims.items()):
            result.append(tensor)
            continue
        # Work in memory order, so a transposed example stays transposed.
        order = sorted(range(tensor.dim()), key=lambda d: -tensor.stride(d))
        dense = tensor.permute(order).contiguous()
        for position, dim in enumerate(order):
            if dim in dims:
                picks = torch.arange(dims[dim], device=tensor.device) % tensor.shape[dim]
                dense = dense.index_select(position, picks)
        inverse = sorted(range(len(order)), key=lambda p: order[p])
        result.append(dense.permute(inverse))
    return tuple(result)


# Fits redone with traces at bounds that the fit raised (a selection of a selection).
_MAX_REFITS = 2


def fit_dynamic_shapes(traced, shapes, example_inputs, retrace, shown):
    """Make traced.graph's sizes symbolic. shapes: the DynamicShapes of the declared dims
    and the data-dependent sizes. retrace(inputs, rows) -> the Trace at other inputs, the
    nonzero calls forced to rows ({call index: row count}), from the module state the
    example trace started from."""
    points = trace_points(shapes)
    graphs = [traced.graph]
    for point in points[1:]:
        graphs.append(_trace_at(point, shapes, example_inputs, retrace, shown).graph)
    check_inputs_keep_elements(graphs, points, shown)
    for point, graph in zip(points[1:], graphs[1:]):
        _check_same_graph(graphs[0], points[0], graph, point, shapes, shown)
    unfitted = pb.Graph()
    unfitted.CopyFrom(traced.graph)
    for attempt in range(_MAX_REFITS + 1):
        fitter = Fitter([s.name for s in shapes.symbols], points)
        _symbolize(graphs, points, _Fill(fitter, shapes, points, shown))
        bound_row_counts(traced.graph, shapes)
        # A count over an earlier selection (nms of the boxes that passed a score
        # threshold) was traced up to its bound at the example only; where its bound
        # over every run is larger, a clamp above the example's count (keep[:100])
        # shows only in a trace there: trace it and fit again.
        beyond = [s for s in shapes.symbols if s.produced is not None
                  and s.max > max(point[s.name] for point in points)]
        if not beyond or attempt == _MAX_REFITS:
            break
        points = [{s.name: point[s.name] for s in shapes.symbols} for point in points]
        for symbol in beyond:
            point = dict(points[0], **{symbol.name: symbol.max})
            graph = _trace_at(point, shapes, example_inputs, retrace, shown).graph
            _check_same_graph(unfitted, points[0], graph, point, shapes, shown)
            points.append(point)
            graphs.append(graph)
        traced.graph.CopyFrom(unfitted)
        shapes.clamps = []
    _validate(traced.graph, points[0], shapes, example_inputs, retrace, traced.report, shown)
    for symbol in shapes.symbols:
        dim = traced.graph.dynamic_dims.add(name=symbol.name, min=symbol.min, max=symbol.max)
        for _, input_name, index in symbol.places:
            dim.inputs.add(input=input_name, dim=index)
        if symbol.produced is not None:
            dim.produced.value = symbol.produced
            dim.produced.dim = 0
        dim.traced_sizes.extend(_distinct(point[symbol.name] for point in points))
    for clamp in shapes.clamps:
        dim = traced.graph.dynamic_dims.add(name=clamp.name, min=clamp.min, max=clamp.max)
        clamp.of.fill_expr(dim.clamp.of)
        dim.clamp.at_most = clamp.at_most
        dim.clamp.expr = clamp.text()
        dim.traced_sizes.extend(_distinct(point[clamp.name] for point in points))


def _distinct(values):
    seen = []
    for value in values:
        if value not in seen:
            seen.append(value)
    return seen


_EMPTY_MESSAGE = ("the model takes another path, or raises, when %s is 0 (no element "
                  "selected), which the compiled graph does not have: a run that selects "
                  "none computes the path of the other counts (%s)")


def _validate(graph, base, shapes, example_inputs, retrace, report, shown):
    """Trace once more per data-dependent count, at 0 rows (else 1, else its bound: where
    the model raises on fewer), and check that every fitted integer predicts what that
    trace recorded. A few points fit more than one expression: a clamp (`keep[:3]`, 3,
    3, 2 at 5, 6, 2) also fits (u + 4) // 3, and a count ranges over [0, bound] at run
    time, so a wrong fit would be a wrong size there. A mismatch fails the export, naming
    the place."""
    for symbol in shapes.symbols:
        if symbol.produced is None:
            continue
        for size in (0, 1, symbol.max):  # an empty selection first: where clamps show
            point = shapes.clamped(dict(
                {s.name: base[s.name] for s in shapes.symbols}, **{symbol.name: size}))
            try:
                other = _trace_at(point, shapes, example_inputs, retrace, shown).graph
                _check_same_graph(graph, base, other, point, shapes, shown)
                break
            except ExportError as e:
                if size == symbol.max:
                    raise
                if size == 0:  # the model refuses an empty selection, or takes another path
                    report.add("DATA_DEPENDENT", _EMPTY_MESSAGE % (symbol.name, e.args[0]),
                               symbol.loc, "aten::nonzero", "%s >= 1" % symbol.name)
        at = "%s=%d" % (symbol.name, size)
        values = {v.name: v for v in other.values}
        for node, twin in zip(graph.nodes, other.nodes):
            for arg, twin_arg in zip(node.args, twin.args):
                for fitted, seen in zip(_ints(arg), _ints(twin_arg)):
                    _expect(fitted, seen.value, point, lambda: "argument %s of %s%s" % (
                        arg.name, _op(node), _where(node)), at, shown)
        for value in graph.values:
            for d, (fitted, seen) in enumerate(zip(value.meta.sizes,
                                                   values[value.name].meta.sizes)):
                _expect(fitted, seen.value, point, lambda: "the size of %s dim %d%s" % (
                    value.name, d, _where(_producer(graph, value.name))), at, shown)


def _expect(fitted, seen, point, where, at, shown):
    predicted = evaluate(fitted, point)
    if predicted != seen:
        text = fitted.expr if fitted.WhichOneof("kind") == "expr" else str(fitted.value)
        raise ExportError("%s: %s fitted as %s from the traces, but is %d at %s (it predicts "
                          "%d): a size that follows a data-dependent count in a way pt2c "
                          "cannot hold"
                          % (shown, where(), text, seen, at, predicted))


def _describe_point(point, base):
    changed = ["%s=%d" % (name, point[name]) for name in base if point[name] != base[name]]
    return ", ".join(changed)


def _trace_at(point, shapes, example_inputs, retrace, shown):
    inputs = resized_inputs(example_inputs, shapes.sizes_at(point))
    try:
        return retrace(inputs, shapes.rows_at(point))
    except ExporterBug:
        raise
    except (Exception, SystemExit) as e:
        raise ExportError("%s: the model raised when traced at %s (%s): %s" % (
            shown, _describe_point(point, shapes.example_assignment()), _ranges(shapes),
            exception_summary(e)), user_traceback(e))


def _ranges(shapes):
    """The symbols' ranges, for messages: where they come from, and the ranges."""
    declared = ", ".join("%s in [%d, %d]" % (s.name, s.min, s.max)
                         for s in shapes.symbols if s.call is None)
    parts = ["dynamic_shapes declares " + declared] if declared else []
    parts.extend("%s in [%d, %d] is %s" % (s.name, s.min, s.max, s.origin())
                 for s in shapes.symbols if s.call is not None)
    return "; ".join(parts)


# ---- same graph? --------------------------------------------------------------------

def _where(node):
    if not node.HasField("loc") or not node.loc.file:
        return ""
    text = " at %s:%d" % (node.loc.file, node.loc.line)
    return text + (": `%s`" % node.loc.code if node.loc.code else "")


def _op(node):
    return "%s.%s" % (node.target, node.overload or "default")


def _check_same_graph(base, base_point, other, point, shapes, shown):
    """Raise ExportError at the first place where the two traces recorded differently."""
    changed = [s for s in shapes.symbols if point[s.name] != base_point[s.name]]
    what = ", ".join("%s (%s)" % (s.name, s.origin()) for s in changed)
    at = lambda p: ", ".join("%s=%d" % (s.name, p[s.name]) for s in changed)
    head = ("%s: the graph depends on the size of %s: traced %d ops at %s and %d at %s"
            % (shown, what, len(base.nodes), at(base_point), len(other.nodes), at(point)))
    if all(s.call is None for s in changed):
        tail = ("; the model must run the same ops at every size in the declared range "
                "(or drop the dimension from dynamic_shapes)")
    else:
        tail = ("; the model must run the same ops whatever nonzero's row count is (a "
                "branch on a data-dependent size cannot be compiled)")
    values_a = {v.name: v for v in base.values}
    values_b = {v.name: v for v in other.values}
    for index, (a, b) in enumerate(zip(base.nodes, other.nodes)):
        if (a.target, a.overload) != (b.target, b.overload):
            raise ExportError("%s; first difference at op %d: %s%s at %s, %s%s at %s%s" % (
                head, index, _op(a), _where(a), at(base_point), _op(b), _where(b), at(point),
                tail))
        difference = _node_difference(a, b, values_a, values_b)
        if difference:
            raise ExportError("%s; first difference at op %d%s: %s%s"
                              % (head, index, _where(a), difference, tail))
    if len(base.nodes) != len(other.nodes):
        longer = base.nodes if len(base.nodes) > len(other.nodes) else other.nodes
        extra = longer[min(len(base.nodes), len(other.nodes))]
        raise ExportError("%s; first difference: %s%s only at %s%s" % (
            head, _op(extra), _where(extra),
            at(base_point) if longer is base.nodes else at(point), tail))
    if len(base.guards) != len(other.guards):
        raise ExportError("%s; it read %d tensor values into Python at %s and %d at %s%s"
                          % (head, len(base.guards), at(base_point), len(other.guards),
                             at(point), tail))
    signature = lambda g: ([(i.kind, i.name, i.value) for i in g.inputs],
                           [(o.kind, o.name, o.value) for o in g.outputs])
    if signature(base) != signature(other):
        raise ExportError("%s; its inputs or outputs differ%s" % (head, tail))
    for name, x in values_a.items():
        y = values_b.get(name)
        if y is None or len(x.meta.sizes) != len(y.meta.sizes):
            raise ExportError("%s; value %s%s has rank %d at one size and %s at the other%s"
                              % (head, name, _where(_producer(base, name)), len(x.meta.sizes),
                                 "none" if y is None else len(y.meta.sizes), tail))


def _node_difference(a, b, values_a, values_b):
    if len(a.args) != len(b.args) or list(a.outputs) != list(b.outputs):
        return "%s with other arguments or results" % _op(a)
    for x, y in zip(a.args, b.args):
        kind = x.WhichOneof("kind")
        if kind != y.WhichOneof("kind"):
            return "%s argument %s changes kind" % (_op(a), x.name)
        if kind in ("tensor", "tensors", "bool_value", "bools", "string_value",
                    "dtype_value", "device_value", "memory_format", "layout", "none"):
            if getattr(x, kind) != getattr(y, kind):
                return "%s argument %s changes" % (_op(a), x.name)
        elif kind == "ints" and len(x.ints.values) != len(y.ints.values):
            return "%s argument %s has %d entries at one size, %d at the other" % (
                _op(a), x.name, len(x.ints.values), len(y.ints.values))
        elif kind == "floats" and len(x.floats.values) != len(y.floats.values):
            return "%s argument %s changes length" % (_op(a), x.name)
    for name in a.outputs:
        x, y = values_a.get(name), values_b.get(name)
        if x is not None and (len(x.meta.sizes), x.meta.dtype) != (len(y.meta.sizes), y.meta.dtype):
            return "%s result %s has rank %d at one size, %d at the other" % (
                _op(a), name, len(x.meta.sizes), len(y.meta.sizes))
    return ""


# ---- fitting ------------------------------------------------------------------------

class _Fill:
    """Fits each integer that differs between the traces and writes its expression:
    a plain one (symbolic_fit.Fitter), else min(expression, c) as a clamp symbol.
    Clamps are of data-dependent counts only: those are traced at their bound, where
    the clamp shows; a declared dim is traced at a few sizes near its example."""

    def __init__(self, fitter, shapes, points, shown):
        self._fitter = fitter
        self._shapes = shapes
        self._points = points
        self._counts = {s.name for s in shapes.symbols if s.produced is not None}
        self.shown = shown

    def __call__(self, symint, seen, where):
        # A clamp is preferred to a floor division that happens to fit the points:
        # keep[:100] gives 1, 0, 100 at u9 = 1, 0, 8080, which (u9 + 80) // 81 fits
        # too, wrong at most counts in between. Where the size really is a floor
        # division, the clamp at its value at the largest count traced (the bound) is
        # the same size at every count up to the bound.
        expr = self._fitter.fit(seen)
        if expr is None or expr.divisor != 1:
            found = self._fitter.fit_clamp(seen)
            if found is not None and self._of_counts(found[0]):
                clamp = self._shapes.add_clamp(*found)
                if clamp.name not in self._points[0]:
                    self._fitter.add_symbol(clamp.name, [clamp.value(p) for p in self._points])
                expr = SymExpr([((clamp.name,), 1)])
        if expr is None:
            raise ExportError("%s: %s follows no expression of the dynamic dims that pt2c can "
                              "hold (%s; tried a*m + b, a*m1 + b*m2 + c, (a*m + b) // d over "
                              "products m of the dims, sums of the dims, and min(any of "
                              "those, c))" % (self.shown, where(), _listed(seen, self._points)))
        expr.fill(symint, seen[0])

    def _of_counts(self, expr):
        clamps = {c.name for c in self._shapes.clamps}
        return all(name in self._counts or name in clamps
                   for monomial, _ in expr.terms for name in monomial)


def _symbolize(graphs, points, fill):
    # Arguments first: where both fail, "argument size of aten::zeros" says more than the
    # size of the value it makes.
    base = graphs[0]
    values_by_name = [{v.name: v for v in g.values} for g in graphs]
    weights = {i.value for i in base.inputs if i.kind != USER_INPUT}
    for index, node in enumerate(base.nodes):
        for position, arg in enumerate(node.args):
            kind = arg.WhichOneof("kind")
            twins = [g.nodes[index].args[position] for g in graphs]
            where = lambda: "argument %s of %s%s" % (arg.name, _op(node), _where(node))
            twin_ints = [_ints(t) for t in twins]
            for i, entry in enumerate(_ints(arg)):
                seen = [ints[i].value for ints in twin_ints]
                if len(set(seen)) > 1:
                    fill(entry, seen, where if kind == "int_value" else
                         lambda: "entry %d of %s" % (i, where()))
            if kind in ("float_value", "floats"):
                seen = [_floats(t, kind) for t in twins]
                if len(set(seen)) > 1:
                    raise ExportError("%s: %s is a float that depends on the dynamic dims (%s); "
                                      "the artifact holds integer expressions of them only: "
                                      "compute it from a tensor instead" % (
                                          fill.shown, where(), _listed(seen, points)))
    for value in base.values:
        others = [vs[value.name] for vs in values_by_name]
        for d, size in enumerate(value.meta.sizes):
            seen = [o.meta.sizes[d].value for o in others]
            if len(set(seen)) == 1:
                continue
            if value.name in weights:
                spec = next(i for i in base.inputs if i.value == value.name)
                raise ExportError("%s: %s %s has a size that depends on the dynamic dims (dim %d "
                                  "is %s at the traced sizes); weights and constants must have "
                                  "one shape" % (fill.shown, _input_kind(spec), spec.name, d,
                                                 _listed(seen, points)))
            fill(size, seen, lambda: "the size of %s dim %d%s" % (
                value.name, d, _where(_producer(base, value.name))))


def _ints(arg):
    """The SymInts of an int or int-list argument (none for other kinds)."""
    kind = arg.WhichOneof("kind")
    if kind == "int_value":
        return [arg.int_value]
    return list(arg.ints.values) if kind == "ints" else []


def _listed(seen, points):
    parts = []
    for value, point in zip(seen, points):
        parts.append("%s at %s" % (_short(value), ", ".join("%s=%d" % kv for kv in point.items())))
    return "; ".join(parts)


def _short(value):
    return repr(value[0] if isinstance(value, tuple) and len(value) == 1 else value)


def _floats(arg, kind):
    return (arg.float_value,) if kind == "float_value" else tuple(arg.floats.values)


def _producer(graph, value_name):
    for node in graph.nodes:
        if value_name in node.outputs:
            return node
    return pb.Node()


def _input_kind(spec):
    return {pb.InputSpec.PARAMETER: "parameter", pb.InputSpec.BUFFER: "buffer",
            pb.InputSpec.CONSTANT_TENSOR: "constant tensor"}.get(spec.kind, "input")
