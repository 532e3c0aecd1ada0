"""`python -m pt2c_exporter MODEL.py -o OUT.pt2c`."""
import signal
import sys

from .cli import main


class _Stopped(KeyboardInterrupt):
    """The driver sends SIGTERM when it stops the export (--export-timeout, pt2c itself
    interrupted). Raised instead of Python's default instant death, `finally` blocks run
    (the atomic writer removes its temporary file beside the output); a KeyboardInterrupt,
    it passes through model.py's `except Exception` and the loader's error reporting."""


def _stop(signum, frame):
    raise _Stopped()


signal.signal(signal.SIGTERM, _stop)
try:
    sys.exit(main())
except _Stopped:
    sys.exit(128 + signal.SIGTERM)  # quietly: the driver says why it stopped the export
