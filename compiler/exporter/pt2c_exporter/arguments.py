"""One argument of an ATen call -> an artifact Argument, by the schema's declared type.

The declared type decides where the Python value alone is ambiguous: an empty list, an
int that stands for a MemoryFormat, a Python number in a Tensor slot (a wrapped scalar,
as in `x + 2`), a single int for an `int[2]` argument.
"""
import numbers

import torch
import pt2c_pb2 as pb

from . import dtypes


class UnsupportedArgument(Exception):
    """A value the artifact cannot describe (a Generator, a complex number, ...)."""


def make_argument(name, declared, value, tensor_name):
    """Build the Argument `name` of declared type `declared` holding `value`.

    tensor_name(tensor) -> the graph Value name of a tensor.
    """
    arg = pb.Argument(name=name)
    base = declared.rstrip("?")
    if value is None:
        arg.none = True
    elif isinstance(value, torch.Tensor):
        arg.tensor = tensor_name(value)
    elif base.endswith("[]"):
        _set_list(arg, base[:-2].rstrip("?"), value, tensor_name)
    elif base == "ScalarType" or isinstance(value, torch.dtype):
        arg.dtype_value = dtypes.scalar_type_code(value)
        if arg.dtype_value == pb.DTYPE_UNSPECIFIED:
            raise UnsupportedArgument("dtype %s" % (value,))
    elif base == "MemoryFormat" or isinstance(value, torch.memory_format):
        arg.memory_format = dtypes.memory_format_code(value)
    elif base == "Layout" or isinstance(value, torch.layout):
        arg.layout = dtypes.layout_code(value)
    elif base == "Device" or isinstance(value, torch.device):
        arg.device_value = str(torch.device(value))
    elif isinstance(value, str):
        arg.string_value = value
    else:
        _set_scalar(arg, base, value)
    return arg


def _set_scalar(arg, base, value):
    if isinstance(value, bool):
        arg.bool_value = value
    elif base == "float" and isinstance(value, numbers.Real):
        arg.float_value = float(value)
    elif _is_int(value):
        _set_symint(arg.int_value, value)
    elif isinstance(value, float):
        arg.float_value = value
    elif _is_symbolic(value):
        arg.int_value.expr = str(value)
    else:
        raise UnsupportedArgument("%s value %r" % (type(value).__name__, value))


def _set_list(arg, element, value, tensor_name):
    if not isinstance(value, (list, tuple)):
        value = [value]  # `int[2] stride=1` style broadcast; the op repeats it itself
    if element.startswith("Tensor") or any(isinstance(v, torch.Tensor) for v in value):
        arg.tensors.SetInParent()  # an empty Tensor[] is still a tensor list
        for v in value:
            if v is not None and not isinstance(v, torch.Tensor):
                raise UnsupportedArgument("%s inside a tensor list" % type(v).__name__)
            arg.tensors.values.append("" if v is None else tensor_name(v))
    elif element == "bool" or (value and all(isinstance(v, bool) for v in value)):
        arg.bools.SetInParent()
        arg.bools.values.extend(bool(v) for v in value)
    elif element == "float" or any(isinstance(v, float) for v in value):
        arg.floats.SetInParent()
        arg.floats.values.extend(float(v) for v in value)
    elif all(_is_int(v) or _is_symbolic(v) for v in value):
        arg.ints.SetInParent()
        for v in value:
            _set_symint(arg.ints.values.add(), v)
    else:
        raise UnsupportedArgument("list %r" % (value,))


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_symbolic(value):
    # torch.SymInt exists on 2.x only; real-tensor tracing rarely meets one.
    return type(value).__name__ in ("SymInt", "SymFloat", "SymBool")


def _set_symint(symint, value):
    if _is_symbolic(value):
        symint.expr = str(value)
    else:
        symint.value = int(value)
