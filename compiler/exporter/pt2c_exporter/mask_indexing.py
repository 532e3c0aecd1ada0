"""Boolean-mask indexing and masked_select, recorded as the aten::nonzero they mean.

`x[mask]` reaches the mode as aten::index.Tensor with a bool (or uint8) index tensor,
and masked_select as itself: two more ops whose result size depends on values, each a
form the compiler would have to understand. Recorded as nonzero and plain indexing
instead, the graph has one data-dependent op, nonzero, whose row count is a symbol
(data_dependent.py):

    x[mask]              nz = nonzero(mask)   (k columns for a k-dim mask)
                         index(x, [select(nz, 1, 0), ..., select(nz, 1, k-1)])
    x[:, mask, idx]      the same, the k columns in the mask's place among the
                         indices (None entries and long indices stay)
    masked_select(x, m)  x and m expanded to their broadcast shape, then as x[m] (1-D)

This is how torch computes a mask index itself, so the results are eager's: the same
values, dtype and shape. Calls eager rejects (a mask whose shape does not match the dims
it indexes; masked_select with a mask that is not bool, which torch 2.x refuses) stay as
they are, so the model's error is eager's. A write through a mask (`x[mask] = v`,
index_put_) keeps its size, and is left as it is.
"""
import torch

from .schema import op_schema

_aten = torch.ops.aten
_MASK_DTYPES = (torch.bool, torch.uint8)


def rewrite(func, args, kwargs, dispatch):
    """The call's result, computed by recording what it means through
    dispatch(op, *args) (the recording mode); None where the call stays as it is."""
    name = op_schema(func).qualified_name
    if name not in ("aten::index.Tensor", "aten::masked_select.default") or kwargs \
            or len(args) != 2:
        return None
    if name == "aten::index.Tensor":
        return _index(args[0], list(args[1]), dispatch)
    return _masked_select(args[0], args[1], dispatch)


def _is_mask(index):
    return isinstance(index, torch.Tensor) and index.dtype in _MASK_DTYPES


def _index(x, indices, dispatch):
    if not any(_is_mask(i) for i in indices):
        return None
    # Each index consumes one dim of x, a mask as many as it has; eager requires the
    # mask's shape to be those dims' sizes.
    dim = 0
    for index in indices:
        if _is_mask(index):
            if index.dim() == 0 or tuple(index.shape) != tuple(x.shape[dim:dim + index.dim()]):
                return None  # a 0-dim mask adds a dim instead; a mismatch is eager's error
            dim += index.dim()
        else:
            dim += 1
    if dim > x.dim():
        return None
    long_indices = []
    for index in indices:
        if _is_mask(index):
            nz = dispatch(_aten.nonzero.default, index)
            long_indices.extend(dispatch(_aten.select.int, nz, 1, j) for j in range(index.dim()))
        else:
            long_indices.append(index)
    return dispatch(_aten.index.Tensor, x, long_indices)


def _masked_select(x, mask, dispatch):
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        return None
    try:
        shape = list(torch.broadcast_shapes(x.shape, mask.shape))
    except RuntimeError:
        return None  # eager's error
    if not shape:
        return None  # both 0-dim: no dim to index
    expanded = lambda t: t if list(t.shape) == shape else dispatch(_aten.expand.default, t, shape)
    return _index(expanded(x), [expanded(mask)], dispatch)
