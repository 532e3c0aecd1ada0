"""model.py's `dynamic_shapes`: which input dimensions are dynamic, their names and ranges.

    dynamic_shapes = {"x": {0: ("batch", 1, 64), 1: ("seq", 1, 128)},
                      "mask": {0: "batch"}}

Keys are forward()'s parameter names (or a tuple/list in example_inputs' order, None
for a static input); per input a dict dim -> spec, or a tuple/list with one spec or None
per dim. A spec is (name, min, max), {"name": .., "min": .., "max": ..}, any object with
`min`, `max` and `__name__` or `name` (torch.export.Dim("batch", min=1, max=64) works),
or a bare name that is declared with its range elsewhere. One name in several places is
one symbol: those dimensions have the same size. `dynamic_shapes` may also be a
zero-argument function returning the above.

Validation errors (an unknown input, a dim out of range, min > max, an example size
outside [min, max]) are ExportErrors: nothing is traced and nothing is written.
"""
import numbers

from .user_errors import ExportError, exception_summary, user_traceback


class Symbol:
    """One declared dynamic dimension; data_dependent.RowCount, a size the graph
    computes, is the other kind of symbol."""

    call = None      # RowCount: which nonzero call of the trace has it as its row count
    produced = None  # RowCount: the Value whose dim 0 it is

    def __init__(self, name, low, high):
        self.name = name
        self.min = low
        self.max = high
        self.example = None
        self.places = []  # [(input index, input name, dim)]

    def origin(self):
        """Where its size comes from, for messages: "x dim 0, mask dim 0"."""
        return ", ".join("%s dim %d" % (name, dim) for _, name, dim in self.places)


class Clamp:
    """A size that is min(of, at_most) of the other symbols (c0, c1, ...): what
    `topk(min(k, n))` or `keep[:100]` make of a data-dependent count. No input gives it
    and no op computes it; the compiled model evaluates it once the symbols in `of` are
    known. of: a symbolic_fit.SymExpr."""

    def __init__(self, name, of, at_most):
        self.name = name
        self.of = of
        self.at_most = at_most
        self.min = self.max = None  # once the other symbols' ranges are final

    def value(self, values):
        return min(self.of.evaluate(values), self.at_most)

    def text(self):
        return "min(%s, %d)" % (self.of.text(), self.at_most)


class _WithClamps(dict):
    """Symbol values that compute a clamp's value when it is first looked up."""

    def __init__(self, values, clamps):
        super().__init__(values)
        self._clamps = {c.name: c for c in clamps}

    def __missing__(self, name):
        if name not in self._clamps:
            raise KeyError(name)
        value = self[name] = self._clamps[name].value(self)
        return value


class DynamicShapes:
    """The validated declaration: symbols in the order first declared (and, once the
    example is traced, its data-dependent symbols after them: with_symbols), and the
    clamps the fit finds (add_clamp)."""

    def __init__(self, symbols):
        self.symbols = symbols
        self.clamps = []

    def __bool__(self):
        return bool(self.symbols)

    def with_symbols(self, more):
        return DynamicShapes(self.symbols + list(more))

    def add_clamp(self, of, at_most):
        """The clamp min(of, at_most): an existing one, or a new c<k>."""
        for clamp in self.clamps:
            if clamp.at_most == at_most and clamp.of.text() == of.text():
                return clamp
        clamp = Clamp("c%d" % len(self.clamps), of, at_most)
        self.clamps.append(clamp)
        return clamp

    def clamped(self, values):
        """{symbol name: value} that also answers the clamps' values at those values."""
        return _WithClamps(values, self.clamps)

    def set_clamp_ranges(self):
        """Each clamp's range from the symbols' ranges (`of` grows with them: the compiler
        checks every size expression for that)."""
        low = self.clamped({s.name: s.min for s in self.symbols})
        high = self.clamped({s.name: s.max for s in self.symbols})
        for clamp in self.clamps:
            clamp.min, clamp.max = low[clamp.name], high[clamp.name]

    def sizes_at(self, assignment):
        """{(input index, dim): size} for {symbol name: size}."""
        return {(index, dim): assignment[s.name]
                for s in self.symbols for index, _, dim in s.places}

    def rows_at(self, assignment):
        """{nonzero call index: row count} for {symbol name: size}."""
        return {s.call: assignment[s.name] for s in self.symbols if s.call is not None}

    def example_assignment(self):
        return {s.name: s.example for s in self.symbols}


def load_dynamic_shapes(declared, input_names, example_inputs, shown):
    """model.py's `dynamic_shapes` value (None: absent) -> a validated DynamicShapes."""
    if declared is None:
        return DynamicShapes([])
    if callable(declared) and not isinstance(declared, (dict, list, tuple)):
        try:
            declared = declared()
        except Exception as e:
            raise ExportError("%s: dynamic_shapes() raised: %s" % (shown, exception_summary(e)),
                              user_traceback(e))
    per_input = _per_input(declared, input_names, example_inputs, shown)
    symbols = {}
    references = []  # (where, name, index, input name, dim): bare names, resolved last
    for index, dims in per_input:
        name = input_names[index]
        for dim, spec in _per_dim(dims, name, example_inputs[index], shown):
            where = "%s: dynamic_shapes[%r] dim %d" % (shown, name, dim)
            if isinstance(spec, str):
                references.append((where, spec, index, name, dim))
                continue
            sym_name, low, high = _spec_fields(spec, where)
            symbol = symbols.get(sym_name)
            if symbol is None:
                symbol = symbols[sym_name] = Symbol(sym_name, low, high)
            elif (symbol.min, symbol.max) != (low, high):
                raise ExportError("%s: %s is declared with range [%d, %d] here and [%d, %d] "
                                  "elsewhere; one name is one dimension: give it one range"
                                  % (where, sym_name, low, high, symbol.min, symbol.max))
            _place(symbol, index, name, dim, example_inputs, where)
    for where, sym_name, index, name, dim in references:
        symbol = symbols.get(sym_name)
        if symbol is None:
            raise ExportError("%s: %r names no dimension declared with a range; declare it "
                              "once as (%r, min, max)" % (where, sym_name, sym_name))
        _place(symbol, index, name, dim, example_inputs, where)
    return DynamicShapes(list(symbols.values()))


def _per_input(declared, input_names, example_inputs, shown):
    """-> [(input index, per-dim declaration)] for the inputs that declare any."""
    count = len(example_inputs)
    if isinstance(declared, dict):
        result = []
        for key, dims in declared.items():
            if key not in input_names:
                raise ExportError("%s: dynamic_shapes names input %r, but forward() takes %s"
                                  % (shown, key, ", ".join(input_names) or "no inputs"))
            if dims is not None:
                result.append((input_names.index(key), dims))
        return result
    if isinstance(declared, (list, tuple)):
        if len(declared) != count:
            raise ExportError("%s: dynamic_shapes has %d entries but example_inputs has %d "
                              "inputs; give one per input (None for a static one)"
                              % (shown, len(declared), count))
        return [(i, dims) for i, dims in enumerate(declared) if dims is not None]
    raise ExportError("%s: dynamic_shapes is a %s; expected a dict keyed by forward()'s "
                      "parameter names, such as {\"x\": {0: (\"batch\", 1, 64)}}"
                      % (shown, type(declared).__name__))


def _per_dim(dims, name, example, shown):
    """-> [(dim, spec)], dims normalized to 0..rank-1."""
    if example is None:
        raise ExportError("%s: dynamic_shapes declares dims of %r, which example_inputs passes "
                          "as None" % (shown, name))
    rank = example.dim()
    if isinstance(dims, dict):
        items = list(dims.items())
    elif isinstance(dims, (list, tuple)):
        if len(dims) != rank:
            raise ExportError("%s: dynamic_shapes[%r] has %d entries but the input has rank "
                              "%d (shape %s); give one per dim (None for a static one)"
                              % (shown, name, len(dims), rank, list(example.shape)))
        items = list(enumerate(dims))
    else:
        raise ExportError("%s: dynamic_shapes[%r] is a %s; expected a dict dim -> "
                          "(name, min, max), such as {0: (\"batch\", 1, 64)}"
                          % (shown, name, type(dims).__name__))
    result = []
    for dim, spec in items:
        if not _is_int(dim) or not -rank <= dim < rank:
            raise ExportError("%s: dynamic_shapes[%r] declares dim %r, but the input has rank "
                              "%d (shape %s)" % (shown, name, dim, rank, list(example.shape)))
        if spec is not None:
            if dim % rank in [d for d, _ in result]:
                raise ExportError("%s: dynamic_shapes[%r] declares dim %d twice"
                                  % (shown, name, dim % rank))
            result.append((dim % rank, spec))
    return result


def _spec_fields(spec, where):
    """(name, min, max) of one dim's spec."""
    if isinstance(spec, (tuple, list)) and len(spec) == 3:
        name, low, high = spec
    elif isinstance(spec, dict) and set(spec) == {"name", "min", "max"}:
        name, low, high = spec["name"], spec["min"], spec["max"]
    elif hasattr(spec, "min") and hasattr(spec, "max") and (
            hasattr(spec, "__name__") or hasattr(spec, "name")):
        name = getattr(spec, "name", None) or spec.__name__
        low, high = spec.min, spec.max
    else:
        raise ExportError("%s: %r is no dimension spec; expected (name, min, max), a dict "
                          "with name/min/max, or torch.export.Dim(name, min=.., max=..)"
                          % (where, spec))
    if not isinstance(name, str) or not name.isidentifier():
        raise ExportError("%s: the dimension's name %r must be an identifier, such as "
                          "\"batch\"" % (where, name))
    if not _is_int(low) or not _is_int(high):
        raise ExportError("%s: %s needs integer bounds; got min=%r, max=%r"
                          % (where, name, low, high))
    if low < 0 or low > high:
        raise ExportError("%s: %s has an empty or negative range [%d, %d]"
                          % (where, name, low, high))
    return name, int(low), int(high)


def _place(symbol, index, name, dim, example_inputs, where):
    size = int(example_inputs[index].shape[dim])
    if not symbol.min <= size <= symbol.max:
        raise ExportError("%s: the example input's size %d is outside %s's range [%d, %d]; "
                          "the example must be a size the model accepts"
                          % (where, size, symbol.name, symbol.min, symbol.max))
    if symbol.example is None:
        symbol.example = size
    elif symbol.example != size:
        first = symbol.places[0]
        raise ExportError("%s: %s is %d here but %d at %s dim %d; one name is one size"
                          % (where, symbol.name, size, symbol.example, first[1], first[2]))
    if symbol.min == symbol.max:
        raise ExportError("%s: %s's range [%d, %d] holds one size; it is not dynamic: drop it "
                          "from dynamic_shapes" % (where, symbol.name, symbol.min, symbol.max))
    symbol.places.append((index, name, dim))


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)
