"""Reads an artifact back: for tests and debugging (the compiler reads it in C++)."""
import struct

import pt2c_pb2 as pb

from .weights import align
from .writer import MAGIC


class ArtifactFile:
    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:8] != MAGIC:
            raise ValueError("%s: not a .pt2c artifact (bad magic)" % path)
        (length,) = struct.unpack("<Q", data[8:16])
        self.message = pb.Artifact.FromString(data[16:16 + length])
        self.blob_start = align(16 + length)
        self.blob = data[self.blob_start:]
        self.file_size = len(data)

    def weight_bytes(self, name):
        for entry in self.message.weights:
            if entry.name == name:
                return self.blob[entry.offset:entry.offset + entry.nbytes]
        raise KeyError(name)
