"""The draft report: what tracing saw that a compiled graph may not reproduce.

Entries with the same kind, message and source line are merged and counted, so a
loop that calls .item() a thousand times gives one entry with count 1000.
"""
import pt2c_pb2 as pb

# Ops whose result depends on tensor data: the trace baked in one outcome.
DATA_DEPENDENT_OPS = {
    "aten::_local_scalar_dense": "a tensor value was read into Python (.item(), int(), "
                                 "float() or a Python condition); the graph assumes it stays the same",
    "aten::is_nonzero": "a tensor was used as a Python bool; the graph assumes the same branch",
    "aten::equal": "torch.equal's result steered Python code; the graph assumes the same outcome",
    "aten::nonzero": "the output shape depends on tensor values (nonzero)",
    "aten::masked_select": "the output shape depends on tensor values (masked_select)",
    "aten::_unique2": "the output shape depends on tensor values (unique)",
    "aten::unique_dim": "the output shape depends on tensor values (unique)",
    "aten::unique_consecutive": "the output shape depends on tensor values (unique_consecutive)",
}


class Report:
    def __init__(self):
        self._entries = {}

    def add(self, kind, message, loc=None):
        key = (kind, message, loc.file if loc else "", loc.line if loc else 0)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = pb.ReportEntry(kind=kind, message=message)
            if loc is not None:
                entry.loc.CopyFrom(loc)
        entry.count += 1

    def entries(self):
        return list(self._entries.values())
