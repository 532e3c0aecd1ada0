"""Tensor identity, storage identity and metadata."""
import pt2c_pb2 as pb

from . import dtypes


def storage_key(tensor):
    """An identity of the memory a tensor lives in: equal keys mean the tensors alias.

    A storage's data pointer is only unique while the storage is alive; the graph
    builder keeps every tensor it has seen alive for the whole trace, so no pointer is
    reused. Empty storages have no memory (pointer 0) and alias nothing.
    """
    storage = tensor.untyped_storage() if hasattr(tensor, "untyped_storage") else tensor.storage()
    ptr = storage.data_ptr()
    if ptr == 0:
        return ("empty", id(tensor))
    return (tensor.device.type, tensor.device.index, ptr)


def layout_key(tensor):
    """Two tensors on the same storage with equal keys are the same view of it."""
    return (tensor.dtype, tuple(tensor.shape), tuple(tensor.stride()), tensor.storage_offset())


def tensor_meta(tensor, contiguous=False):
    """The artifact TensorMeta: dtype, sizes, strides, storage offset.

    contiguous=True describes the bytes the weights blob holds (a dense copy).
    """
    meta = pb.TensorMeta(dtype=dtypes.dtype_code(tensor.dtype))
    for size in tensor.shape:
        meta.sizes.add().value = int(size)
    if contiguous:
        meta.strides.extend(contiguous_strides(tensor.shape))
    else:
        meta.strides.extend(int(s) for s in tensor.stride())
        meta.storage_offset = int(tensor.storage_offset())
    return meta


def contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(list(shape)):
        strides.append(step)
        step *= max(int(size), 1)
    return list(reversed(strides))
