"""Replacing a library function for the duration of a trace (batched_nms.py,
paste_masks.py): the attribute is swapped in every module that holds it, so callers that
reach it through any of them (torchvision's own modules import it by name) get the
replacement, and restored afterwards, whatever the trace raised."""
import contextlib
import sys


@contextlib.contextmanager
def replaced(name, make_replacement, module_names):
    """Within the block, `name` in each of the loaded modules `module_names` that has it
    is make_replacement(original), the original being the first module's function.
    Nothing changes where none of them is loaded (torchvision is not installed, or the
    model does not use it)."""
    holders = [m for m in (sys.modules.get(n) for n in module_names)
               if m is not None and getattr(m, name, None) is not None]
    if not holders:
        yield
        return
    originals = [(m, getattr(m, name)) for m in holders]
    replacement = make_replacement(originals[0][1])
    replacement.__doc__ = originals[0][1].__doc__
    for module, _ in originals:
        setattr(module, name, replacement)
    try:
        yield
    finally:
        for module, original in originals:
            setattr(module, name, original)
