"""A model's (possibly nested) outputs -> flat, dotted names.

Like torch.export's pytree flattening: tuple and list items are named by index ("0",
"1.0"), dict entries by key ("logits", "parts.0"), named tuples by field. A lone tensor
is output "0". None leaves are dropped (transformers' ModelOutput leaves unset fields
None); other non-tensor leaves are returned separately so the caller can report them.
"""
import torch


def flatten_outputs(result):
    """-> ([(name, tensor)], [(name, non-tensor value)])."""
    tensors, others = [], []
    if isinstance(result, torch.Tensor):
        return [("0", result)], others
    _walk(result, "", tensors, others)
    return tensors, others


def _walk(value, path, tensors, others):
    if isinstance(value, torch.Tensor):
        tensors.append((path, value))
    elif value is None:
        return
    elif isinstance(value, dict):
        for key, item in value.items():
            _walk(item, _join(path, str(key)), tensors, others)
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        for key, item in zip(value._fields, value):
            _walk(item, _join(path, key), tensors, others)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _walk(item, _join(path, str(index)), tensors, others)
    else:
        others.append((path or "0", value))


def _join(path, key):
    return key if not path else path + "." + key


def flatten_results(result):
    """An ATen op's result -> flat list of its tensors, None for non-tensor results.

    A `Tensor[]` return contributes one entry per tensor (see the README).
    """
    if isinstance(result, (list, tuple)):
        flat = []
        for item in result:
            flat.extend(flatten_results(item))
        return flat
    return [result if isinstance(result, torch.Tensor) else None]
