"""A weight's bytes as the artifact stores them: dense, on the CPU, in its own dtype.
Shared by the artifact writer and the external weights file (weights_file.py), which
must give the same bytes; needs no pt2c_pb2."""
import ctypes


def dense_cpu(tensor):
    tensor = tensor.detach()
    if tensor.device.type != "cpu":
        tensor = tensor.cpu()
    return tensor.contiguous()


def tensor_bytes(tensor):
    """The raw bytes of a dense CPU tensor, any dtype (bf16 included, which numpy lacks)."""
    nbytes = tensor.numel() * tensor.element_size()
    return ctypes.string_at(tensor.data_ptr(), nbytes) if nbytes else b""
