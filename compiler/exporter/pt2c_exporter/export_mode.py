"""Tells model code that it is being exported, as torch.export does, and says so.

Libraries guard their reads of tensor values with torch.compiler.is_exporting(), which
torch.export sets while it traces. transformers, deciding whether a padding mask may be
dropped, reads `mask.all()` in eager mode, but under export builds the attention bias
from the mask whatever it holds. Traced in eager mode, that read becomes a guard
(guards.py): the compiled model would refuse every input whose mask gives the other
answer, and every GPU run would wait for the kernels so as to check it.

While tracing, is_exporting() answers True to the model's code and its libraries (what
user_errors.is_user_file counts as the user's), so such code takes the path it wrote for
export, and an EXPORT_PATH entry records the place. torch's own callers get the real
answer (False): its modules would otherwise skip the fast-path
checks that fast_path.py steers off and reports. is_compiling(), which torch.export sets
too, keeps its answer: code behind it is written for dynamo's just-in-time graphs
(transformers skips registering its output classes with pytree there, for instance),
not for a graph that must stand alone. Nothing changes on torch 1.13, which has no
torch.compiler.
"""
import contextlib
import os
import sys

import torch

from .user_errors import is_user_file

_MESSAGE = ("torch.compiler.is_exporting() answered True, as under torch.export, to %s: the "
            "code took the path it has for export")


@contextlib.contextmanager
def answered(report, locator):
    compiler = getattr(torch, "compiler", None)
    original = getattr(compiler, "is_exporting", None)
    if original is None:
        yield
        return

    def is_exporting():
        caller = sys._getframe(1)
        if not is_user_file(caller.f_code.co_filename):  # torch's own code, or ours
            return original()
        report.add("EXPORT_PATH", _MESSAGE % _asker(caller), locator.current(),
                   "torch.compiler.is_exporting", "True")
        return True

    is_exporting.__doc__ = original.__doc__
    compiler.is_exporting = is_exporting
    try:
        yield
    finally:
        compiler.is_exporting = original


def _asker(frame):
    """`f` or `f (from g at file.py:N)`: a library's helper that only wraps the question
    (transformers' is_torchdynamo_exporting) says little, so its caller is named too."""
    asked = frame.f_code.co_name
    outer = frame.f_back
    if outer is None:
        return asked
    return "%s (from %s at %s:%d)" % (asked, outer.f_code.co_name,
                                      os.path.basename(outer.f_code.co_filename), outer.f_lineno)
