"""Errors the user can act on, and tracebacks trimmed to the user's own frames.

Anything raised as ExportError is printed as one `pt2c: error: ...` line (plus an
optional detail block, such as the user's traceback) and the exporter exits with 1.
"""
import os
import sys
import sysconfig
import traceback

_EXPORTER_DIR = os.path.dirname(os.path.realpath(__file__))


class ExportError(Exception):
    """An error in the user's model or command line: message first, then detail lines."""

    def __init__(self, message, detail=""):
        super().__init__(message)
        self.message = message
        self.detail = detail


def _library_dirs():
    # Frames from these directories are machinery, not the user's code. torch is found
    # lazily: the exporter must be able to report errors even when torch fails to import.
    dirs = [_EXPORTER_DIR, os.path.realpath(sysconfig.get_paths()["stdlib"])]
    torch = sys.modules.get("torch")
    if torch is not None and getattr(torch, "__file__", None):
        dirs.append(os.path.dirname(os.path.realpath(torch.__file__)))
    return dirs


_user_file_cache = {}


def is_user_file(filename):
    """True for a source file that belongs to the user (not torch, the exporter or stdlib)."""
    cached = _user_file_cache.get(filename)
    if cached is not None:
        return cached
    if filename.startswith("<"):  # <frozen importlib._bootstrap>, <string>, ...
        result = False
    else:
        path = os.path.realpath(filename)
        result = not any(path == d or path.startswith(d + os.sep) for d in _library_dirs())
    _user_file_cache[filename] = result
    return result


def user_traceback(exc):
    """The traceback of `exc` keeping only the user's frames, as one printable block."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if is_user_file(f.filename)]
    lines = []
    if frames:
        lines.append("Traceback (most recent call last, user code only):\n")
        lines.extend(traceback.format_list(frames))
    # format_exception_only also shows a SyntaxError's file, line and caret.
    lines.extend(traceback.format_exception_only(type(exc), exc))
    return "".join(lines).rstrip("\n")


def exception_summary(exc):
    """`ValueError: boom`, the last line of a traceback."""
    text = str(exc).strip().splitlines()
    return type(exc).__name__ + (": " + text[0] if text else "")
