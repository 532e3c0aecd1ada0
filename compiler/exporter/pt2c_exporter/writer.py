"""Writes an artifact file atomically, in the layout of ir/artifact/pt2c.proto:

  "PT2CART\\x01" | uint64 LE message length N | message | zero pad to 64 | weights blob

The file is written under a temporary name in the output's directory and renamed
into place, so a reader never sees a partial artifact and a failed export leaves none.
"""
import os
import struct
import tempfile

from .weights import align, tensor_bytes

MAGIC = b"PT2CART\x01"


def write_artifact(path, artifact, layout):
    """artifact: pb.Artifact with layout.entries set; layout: weights.BlobLayout."""
    message = artifact.SerializeToString(deterministic=True)
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                                suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC)
            f.write(struct.pack("<Q", len(message)))
            f.write(message)
            blob_start = align(16 + len(message))
            f.write(b"\0" * (blob_start - 16 - len(message)))
            position = 0
            for offset, tensor in layout.regions:
                f.write(b"\0" * (offset - position))
                data = tensor_bytes(tensor)
                f.write(data)
                position = offset + len(data)
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
