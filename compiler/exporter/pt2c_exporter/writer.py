"""Writes an artifact file atomically, in the layout of ir/artifact/pt2c.proto:

  "PT2CART\\x02" | uint64 LE message length N | uint32 LE CRC-32 | uint32 0 | message |
  zero pad to 64 | weights blob

The CRC-32 (zlib's) runs over the message and then the blob, so that the compiler
refuses an artifact damaged after export instead of compiling wrong weights.

The file is written under a temporary name in the output's directory and renamed
into place, so a reader never sees a partial artifact and a failed export leaves none.
"""
import os
import struct
import tempfile
import zlib

from .weights import align, tensor_bytes

MAGIC = b"PT2CART\x02"
HEADER = struct.Struct("<8sQII")  # magic, message length, CRC-32, reserved (0)


def write_artifact(path, artifact, layout):
    """artifact: pb.Artifact with layout.entries set; layout: weights.BlobLayout."""
    message = artifact.SerializeToString(deterministic=True)
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                                suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(HEADER.pack(MAGIC, len(message), 0, 0))  # the CRC comes last
            f.write(message)
            crc = zlib.crc32(message)
            blob_start = align(HEADER.size + len(message))
            f.write(b"\0" * (blob_start - HEADER.size - len(message)))
            position = 0
            for offset, tensor in layout.regions:
                gap = b"\0" * (offset - position)
                data = tensor_bytes(tensor)
                f.write(gap)
                f.write(data)
                crc = zlib.crc32(data, zlib.crc32(gap, crc))
                position = offset + len(data)
            f.seek(0)
            f.write(HEADER.pack(MAGIC, len(message), crc, 0))
            f.flush()
            os.fsync(f.fileno())
        # mkstemp creates the file 0600; give it the permissions a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
