"""Lays out the weights blob: one dense copy per distinct tensor, 64-byte aligned.

Tensors that are the same view of the same storage (tied weights, a constant that is
a parameter) share one region, so the blob holds their bytes once. A weight that is
not dense in memory is copied to a contiguous tensor first; its WeightEntry.meta
describes the bytes in the blob (contiguous strides, offset 0).
"""
import pt2c_pb2 as pb

from .tensor_bytes import dense_cpu, tensor_bytes  # noqa: F401 (writer.py's, too)
from .tensors import layout_key, storage_key, tensor_meta

ALIGNMENT = 64


def align(n):
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


class BlobLayout:
    def __init__(self, weights):
        """weights: [(fqn, tensor)] -> entries and the tensors to write, in blob order."""
        self.entries = []
        self.regions = []  # [(offset, dense cpu tensor)]
        self.size = 0
        placed = {}
        for fqn, tensor in weights:
            key = (storage_key(tensor), layout_key(tensor))
            nbytes = tensor.numel() * tensor.element_size()
            offset = placed.get(key)
            if offset is None:
                offset = placed[key] = align(self.size)
                self.regions.append((offset, dense_cpu(tensor)))
                self.size = offset + nbytes
            self.entries.append(pb.WeightEntry(name=fqn, meta=tensor_meta(tensor, contiguous=True),
                                               offset=offset, nbytes=nbytes))

    @property
    def data_bytes(self):
        """Bytes of weight data, without padding and counting shared regions once."""
        return sum(t.numel() * t.element_size() for _, t in self.regions)
