"""The draft report: what tracing saw that a compiled graph may not reproduce.

One entry per kind of problem, op and place: the same (kind, op, message, file:line)
seen again raises the entry's count, so a loop that calls .item() a thousand times is
one entry with count 1000. `assumed` says what the graph takes for granted there; when
a line is reached with different values (a loop reading .item()), the distinct values
are listed, the first few of them.

The kinds (README.md says what each detects and misses):
  DATA_DEPENDENT      a tensor's value steered Python, or an output shape depends on values
  UNSUPPORTED_OP      an ATen op with no op in the aten dialect (ir/aten/aten_ops.txt)
  INPUT_MUTATION      a user input written in place
  BUFFER_MUTATION     a buffer written in place (supported as a write-back)
  PARAMETER_MUTATION  a parameter or constant written in place
  RANDOMNESS          an op that draws random numbers
  FAST_PATH           a module's fused inference kernel, steered off or taken
  EXPORT_PATH         code asked torch.compiler.is_exporting(), was told True and took
                      its export path (export_mode.py); torchvision's batched_nms
                      and paste_masks_in_image traced as one path for every count
                      (batched_nms.py, paste_masks.py)
  UNSUPPORTED_DTYPE, UNSUPPORTED_ARGUMENT, UNTRACKED_ALIAS, NON_TENSOR_OUTPUT
                      what the artifact format cannot describe
"""
import pt2c_pb2 as pb

# The order of kinds in summaries; other kinds follow in alphabetical order.
KIND_ORDER = ["DATA_DEPENDENT", "UNSUPPORTED_OP", "INPUT_MUTATION", "BUFFER_MUTATION",
              "PARAMETER_MUTATION", "RANDOMNESS", "FAST_PATH", "EXPORT_PATH"]

# More distinct assumed values than this at one place are elided with a count.
_MAX_LISTED_VALUES = 4


class Report:
    def __init__(self):
        self._entries = {}  # key -> [ReportEntry, [distinct assumed values]]

    def add(self, kind, message, loc=None, op="", assumed=""):
        key = (kind, op, message, loc.file if loc else "", loc.line if loc else 0)
        item = self._entries.get(key)
        if item is None:
            entry = pb.ReportEntry(kind=kind, message=message, op=op)
            if loc is not None:
                entry.loc.CopyFrom(loc)
            item = self._entries[key] = [entry, []]
        item[0].count += 1
        if assumed and assumed not in item[1]:
            item[1].append(assumed)

    def entries(self):
        """The entries in the order they were first seen, `assumed` filled in."""
        result = []
        for entry, values in self._entries.values():
            entry.assumed = _join_values(values)
            result.append(entry)
        return result

    def __len__(self):
        return len(self._entries)


def _join_values(values):
    if len(values) <= _MAX_LISTED_VALUES:
        return "; ".join(values)
    return "; ".join(values[:_MAX_LISTED_VALUES]) + "; ... (%d distinct values)" % len(values)


def counts_by_kind(entries):
    """[(kind, number of entries)] in KIND_ORDER, then other kinds alphabetically."""
    counts = {}
    for entry in entries:
        counts[entry.kind] = counts.get(entry.kind, 0) + 1
    order = lambda kind: (KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER), kind)
    return [(kind, counts[kind]) for kind in sorted(counts, key=order)]


def summary(entries):
    """`1 DATA_DEPENDENT, 2 UNSUPPORTED_OP`: entries (places), not occurrences, per kind."""
    return ", ".join("%d %s" % (n, kind) for kind, n in counts_by_kind(entries))
