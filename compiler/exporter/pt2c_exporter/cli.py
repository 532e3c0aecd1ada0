"""Command line: `python -m pt2c_exporter MODEL.py -o OUT.pt2c [--quiet] [--strict]
[--print-report] [--aten-ops FILE] [--pb2-dir DIR]`, and
`python -m pt2c_exporter weights MODEL.py --recipe R -o W` (weights_file.py).

Exit status 0 with one progress line on stderr (it summarizes the draft report), or 1
with a `pt2c: error:` line (and, for errors in the user's code, their traceback; for
--strict, the draft report) and no output file.
"""
import argparse
import sys
import time
import traceback


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse exits with 2; every pt2c failure exits with 1
        _fail(message)
        self.print_usage(sys.stderr)
        sys.exit(1)


def _fail(message, detail=""):
    # The first line stays one line: the driver and users grep for `pt2c: error:`.
    sys.stderr.write("pt2c: error: %s\n" % " ".join(str(message).split("\n")))
    if detail:
        sys.stderr.write(detail.rstrip("\n") + "\n")


def _parse(argv):
    parser = _Parser(prog="python -m pt2c_exporter",
                     description="Trace a model.py with real tensors into a .pt2c artifact.")
    parser.add_argument("model", help="the model.py defining `model` and `example_inputs` "
                        "(or `signatures`)")
    parser.add_argument("-o", "--output", required=True, help="the .pt2c file to write")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress line on success (errors are always printed)")
    parser.add_argument("--pb2-dir", help="directory holding pt2c_pb2.py (bazel-bin/ir/artifact);"
                        " otherwise it must be importable from PYTHONPATH")
    parser.add_argument("--strict", action="store_true",
                        help="fail, writing nothing, when the draft report has any finding")
    parser.add_argument("--print-report", action="store_true",
                        help="print the whole draft report after the progress line (the "
                        "driver asks for it when the artifact is a temporary file)")
    parser.add_argument("--aten-ops", help="the aten_ops.txt listing the ops the aten dialect "
                        "has (default: ir/aten/aten_ops.txt next to the exporter)")
    return parser.parse_args(argv)


def _import_dependencies(pb2_dir):
    if pb2_dir:
        sys.path.insert(0, pb2_dir)
    try:
        import pt2c_pb2  # noqa: F401
    except ImportError as e:
        _fail("cannot import pt2c_pb2 (%s): pass --pb2-dir DIR or put DIR on PYTHONPATH; build "
              "it with `bazel build //ir/artifact:pt2c_proto_py`" % e)
        return False
    try:
        import torch  # noqa: F401
    except ImportError as e:
        _fail("cannot import torch with %s: %s" % (sys.executable, e))
        return False
    return True


def _size(nbytes):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if nbytes < 1024 or unit == "GiB":
            return ("%d %s" if unit == "B" else "%.1f %s") % (nbytes, unit)
        nbytes /= 1024.0


def _supported_ops(args):
    """The op names of aten_ops.txt; None (UNSUPPORTED_OP unchecked) if the default is missing."""
    from . import aten_op_list
    path = args.aten_ops or aten_op_list.DEFAULT_PATH
    try:
        return aten_op_list.load(path)
    except OSError as e:
        if args.aten_ops:
            _fail("cannot read --aten-ops %s: %s" % (path, e.strerror or e))
            sys.exit(1)
        if not args.quiet:
            sys.stderr.write("pt2c: warning: %s not found: unsupported ops are not reported; "
                             "pass --aten-ops FILE\n" % path)
        return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["weights"]:  # needs torch only, not pt2c_pb2
        from .weights_file import main as weights_main
        return weights_main(argv[1:])
    start = time.perf_counter()
    args = _parse(argv)
    if not _import_dependencies(args.pb2_dir):
        return 1
    # Imported only now: these modules import pt2c_pb2, which --pb2-dir may have located.
    from .export import export
    from .report import summary as report_summary
    from .user_errors import ExportError
    supported_ops = _supported_ops(args)
    try:
        summary = export(args.model, args.output, supported_ops, args.strict)
    except ExportError as e:
        _fail(e.message, e.detail)
        return 1
    except Exception as e:  # ExporterBug and anything else of ours
        _fail("internal error in the exporter (please report it): %s" % e,
              traceback.format_exc())
        return 1
    if args.quiet:
        return 0
    report = ""
    if summary.report:
        report = "; report: %s (%s)" % (
            report_summary(summary.report),
            "below" if args.print_report else "details: pt2c report %s" % args.output)
    graphs = "%d graphs, " % summary.graphs if summary.graphs > 1 else ""
    dynamic = "".join(", dynamic %s [%d, %d]" % (d.name, d.min, d.max)
                      for d in summary.dynamic_dims if not d.HasField("produced"))
    sizes = sum(1 for d in summary.dynamic_dims if d.HasField("produced"))
    if sizes:  # nonzero's row counts (data_dependent.py); the report names each
        dynamic += ", %d data-dependent size%s" % (sizes, "s" * (sizes != 1))
    sys.stderr.write("pt2c: exported %s: %s%d ops, %d weights (%s)%s in %.2f s%s\n" % (
        args.model, graphs, summary.ops, summary.weights, _size(summary.weight_bytes),
        dynamic, time.perf_counter() - start, report))
    if args.print_report and summary.report:
        sys.stderr.write(summary.report_text)
    return 0
