"""Tensor methods that hand a tensor's data to Python without any ATen call, reported
as DATA_DEPENDENT while tracing: `tolist()`, `numpy()` and `__array__` (np.asarray).

.item(), int() and bool() reach the dispatch mode as aten::_local_scalar_dense, but
these three read the memory directly, so the mode never sees them. While tracing they
are wrapped; a call made directly from the user's code (not from torch's own, such as
printing a tensor) is reported at its line, with the values it returned.
"""
import contextlib
import reprlib
import sys

import torch

from .user_errors import is_user_file

_METHODS = ("tolist", "numpy", "__array__")
_MESSAGE = ("Tensor.%s() read a tensor's values into Python; the graph keeps what the model "
            "did with them")
_MAX_SHOWN = 60  # characters of the values shown in `assumed`


@contextlib.contextmanager
def reported(report, locator):
    originals = {name: getattr(torch.Tensor, name) for name in _METHODS}
    for name, original in originals.items():
        setattr(torch.Tensor, name, _wrap(name, original, report, locator))
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(torch.Tensor, name, original)


def _wrap(name, original, report, locator):
    def method(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        if is_user_file(sys._getframe(1).f_code.co_filename):
            report.add("DATA_DEPENDENT", _MESSAGE % name, locator.current(), "Tensor." + name,
                       _shown(result))
        return result
    method.__name__ = name
    method.__doc__ = original.__doc__
    return method


def _shown(result):
    # reprlib shortens long and nested lists before they are formatted, so a large
    # tensor costs no more than its first few values.
    if hasattr(result, "ravel"):  # a numpy array
        text = "array of shape %s: %s" % (list(result.shape), reprlib.repr(result.ravel()[:8].tolist()))
    else:
        text = reprlib.repr(result)
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN - 3] + "..."
