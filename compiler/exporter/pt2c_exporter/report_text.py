"""The draft report as text, printed by `--strict` and `--print-report`.

`pt2c report model.pt2c` (tools/pt2c/ReportCommand.cpp) prints the same text from the
artifact; tests/e2e/test_report_command.py checks that the two agree, so change them
together. The layout:

    draft report for model.py: 2 findings (pt2c-exporter torch=2.15.0 python=3.11.2)

    #  KIND            COUNT  LOCATION    OP
    1  DATA_DEPENDENT  1      model.py:7  aten::_local_scalar_dense
    2  RANDOMNESS      1      model.py:9  aten::rand

    1. model.py:7: n = int(x.sum())
       <message>
       assumed: 3.0
    2. ...

Columns are left-aligned, two spaces apart, with no trailing blanks; `-` stands for a
missing location or op. A graph with dynamic dimensions (model.py's dynamic_shapes) adds
a table of them after the findings (_format_dynamic_dims).
"""


def location(entry):
    return "%s:%d" % (entry.loc.file, entry.loc.line) if entry.loc.file else "-"


def format_report(entries, model_path, producer, graphs=()):
    """graphs: the artifact's graphs, whose dynamic dimensions follow the findings."""
    return _format_findings(entries, model_path, producer) + _format_dynamic_dims(graphs)


def _table(rows):
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() + "\n"
            for row in rows]


def _format_dynamic_dims(graphs):
    """Per graph with dynamic dims: a table of them and the sizes traced to fit the graph.

        dynamic dimensions of forward:
        NAME   RANGE    INPUTS               TRACED AT
        batch  [1, 16]  x dim 0, keep dim 0  2 (example), 3, 5

    A data-dependent size's INPUTS say which value's dim the graph computes it for.
    """
    lines = []
    for graph in graphs:
        if not graph.dynamic_dims:
            continue
        rows = [["NAME", "RANGE", "INPUTS", "TRACED AT"]]
        for d in graph.dynamic_dims:
            sizes = ["%d (example)" % s if i == 0 else str(s) for i, s in enumerate(d.traced_sizes)]
            source = ", ".join("%s dim %d" % (i.input, i.dim) for i in d.inputs)
            if d.HasField("produced"):  # a data-dependent size: the graph computes it
                source = "data-dependent (%s dim %d)" % (d.produced.value, d.produced.dim)
            if d.HasField("clamp"):  # evaluated from the dims before it
                source = d.clamp.expr
            rows.append([d.name, "[%d, %d]" % (d.min, d.max), source, ", ".join(sizes)])
        lines.append("\ndynamic dimensions of %s:\n" % graph.name)
        lines.extend(_table(rows))
    return "".join(lines)


def _format_findings(entries, model_path, producer):
    entries = list(entries)
    n = len(entries)
    head = "draft report for %s: %s (%s)\n" % (
        model_path, "no findings" if n == 0 else "%d finding%s" % (n, "s" * (n != 1)), producer)
    if n == 0:
        return head
    rows = [["#", "KIND", "COUNT", "LOCATION", "OP"]]
    for i, e in enumerate(entries, 1):
        rows.append([str(i), e.kind, str(e.count), location(e), e.op or "-"])
    lines = [head, "\n"] + _table(rows) + ["\n"]
    for i, e in enumerate(entries, 1):
        label = "%d. " % i
        indent = " " * len(label)
        where = location(e)
        lines.append(label + (where + ": " + e.loc.code if e.loc.code else where) + "\n")
        lines.append(indent + e.message + "\n")
        if e.assumed:
            lines.append(indent + "assumed: " + e.assumed + "\n")
        if e.graph:  # multi-graph artifacts: which signature's trace found it
            lines.append(indent + "graph: " + e.graph + "\n")
    return "".join(lines)
