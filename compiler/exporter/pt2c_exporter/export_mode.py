"""Tells model code that it is being exported, as torch.export does, and says so.

Libraries guard their reads of tensor values with torch.compiler.is_exporting(), which
torch.export sets while it traces. transformers, deciding whether a padding mask may be
dropped, reads `mask.all()` in eager mode, but under export builds the attention bias
from the mask whatever it holds. Traced in eager mode, that read becomes a guard
(guards.py): the compiled model would refuse every input whose mask gives the other
answer, and every GPU run would wait for the kernels so as to check it.

While tracing, is_exporting() answers True to callers outside torch, so such code takes
the path it wrote for export, and an EXPORT_PATH entry records the place. torch's own
callers get the real answer (False): its modules would otherwise skip the fast-path
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

_TORCH_DIR = os.path.dirname(os.path.realpath(torch.__file__)) + os.sep
_NAMES = ("is_exporting",)
_MESSAGE = ("torch.compiler.%s() answered True, as under torch.export, to %s: the code took "
            "the path it has for export")


@contextlib.contextmanager
def answered(report, locator):
    compiler = getattr(torch, "compiler", None)
    originals = {name: getattr(compiler, name) for name in _NAMES
                 if compiler is not None and hasattr(compiler, name)}
    for name, original in originals.items():
        setattr(compiler, name, _wrap(name, original, report, locator))
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(compiler, name, original)


def _wrap(name, original, report, locator):
    def answer():
        caller = sys._getframe(1)
        if os.path.realpath(caller.f_code.co_filename).startswith(_TORCH_DIR):
            return original()
        report.add("EXPORT_PATH", _MESSAGE % (name, _asker(caller)), locator.current(),
                   "torch.compiler." + name, "True")
        return True
    answer.__name__ = name
    answer.__doc__ = original.__doc__
    return answer


def _asker(frame):
    """`f` or `f (from g at file.py:N)`: a library's helper that only wraps the question
    (transformers' is_torchdynamo_exporting) says little, so its caller is named too."""
    asked = frame.f_code.co_name
    outer = frame.f_back
    if outer is None:
        return asked
    return "%s (from %s at %s:%d)" % (asked, outer.f_code.co_name,
                                      os.path.basename(outer.f_code.co_filename), outer.f_lineno)
