"""torch's dtypes, layouts and memory formats in the artifact's numbering."""
import torch
import pt2c_pb2 as pb

_DTYPES = {
    torch.float32: pb.F32,
    torch.float64: pb.F64,
    torch.float16: pb.F16,
    torch.bfloat16: pb.BF16,
    torch.int64: pb.I64,
    torch.int32: pb.I32,
    torch.int16: pb.I16,
    torch.int8: pb.I8,
    torch.uint8: pb.U8,
    torch.bool: pb.BOOL,
}

# c10::ScalarType codes: a ScalarType argument whose default comes from the schema arrives
# as a plain int (the JIT type of ScalarType is int), so map those codes too.
_SCALAR_TYPE_CODES = {
    0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32, 4: torch.int64,
    5: torch.float16, 6: torch.float32, 7: torch.float64, 11: torch.bool, 15: torch.bfloat16,
}

# c10::MemoryFormat and c10::Layout numbering (what a schema default int means).
_MEMORY_FORMATS = {
    torch.contiguous_format: 0,
    torch.preserve_format: 1,
    torch.channels_last: 2,
    torch.channels_last_3d: 3,
}
_LAYOUTS = {torch.strided: 0, torch.sparse_coo: 1}
for _name, _code in (("sparse_csr", 2), ("_mkldnn", 3)):
    if hasattr(torch, _name):
        _LAYOUTS[getattr(torch, _name)] = _code


def dtype_code(dtype):
    """The artifact DType of a torch dtype; DTYPE_UNSPECIFIED where the format has none."""
    return _DTYPES.get(dtype, pb.DTYPE_UNSPECIFIED)


def scalar_type_code(value):
    """A ScalarType argument (torch.dtype, or a c10 int code) as an artifact DType."""
    if isinstance(value, int):
        value = _SCALAR_TYPE_CODES.get(value)
    return _DTYPES.get(value, pb.DTYPE_UNSPECIFIED)


def memory_format_code(value):
    return value if isinstance(value, int) else _MEMORY_FORMATS.get(value, -1)


def layout_code(value):
    return value if isinstance(value, int) else _LAYOUTS.get(value, -1)
