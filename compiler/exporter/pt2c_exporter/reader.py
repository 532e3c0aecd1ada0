"""Reads an artifact back: for tests and debugging (the compiler reads it in C++)."""
import zlib

import pt2c_pb2 as pb

from .weights import align
from .writer import HEADER, MAGIC


class ArtifactFile:
    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:8] != MAGIC:
            raise ValueError("%s: not a .pt2c artifact (bad magic)" % path)
        _, length, crc, _ = HEADER.unpack(data[:HEADER.size])
        message = data[HEADER.size:HEADER.size + length]
        self.blob_start = align(HEADER.size + length)
        self.blob = data[self.blob_start:]
        if zlib.crc32(self.blob, zlib.crc32(message)) != crc:
            raise ValueError("%s: the artifact's CRC-32 does not match its contents" % path)
        self.message = pb.Artifact.FromString(message)
        self.file_size = len(data)

    def weight_bytes(self, name):
        for entry in self.message.weights:
            if entry.name == name:
                return self.blob[entry.offset:entry.offset + entry.nbytes]
        raise KeyError(name)
