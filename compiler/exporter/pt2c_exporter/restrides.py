"""Recognises in-place restrides that leave a tensor exactly as it was.

Some ATen kernels finish by calling `as_strided_` on their own output to give it the
layout they promise (the CPU mean of a channels-last tensor does, torch 2.x): with the
same sizes, the same storage offset and the same strides on every dim of size > 1
(a stride of a size-1 dim is never used to address an element), every element stays
where it was, so the call changes nothing a graph could see. Such a call is run but
not recorded; any other as_strided_ is recorded and reported as usual.
"""
import torch

_AS_STRIDED_ = "aten::as_strided_"


def is_identity_restride(func, args, kwargs):
    """True for an as_strided_ call that keeps every element of its tensor in place."""
    if func._schema.name != _AS_STRIDED_:
        return False
    bound = list(args) + [kwargs.get(k) for k in ("size", "stride", "storage_offset")
                          if k in kwargs]
    if len(bound) < 3 or not isinstance(bound[0], torch.Tensor):
        return False
    self, size, stride = bound[0], bound[1], bound[2]
    offset = bound[3] if len(bound) > 3 else None
    if list(size) != list(self.shape) or len(stride) != self.dim():
        return False
    if offset is not None and offset != self.storage_offset():
        return False
    return all(n <= 1 or s == old for n, s, old in zip(self.shape, stride, self.stride()))
