"""Why a Core ATen overload (tools/docs/core_aten_ops.txt) has no op in pt2c's aten
dialect: docs/OP_COVERAGE.md's "Core ATen opset" section prints these reasons, and
gen_op_coverage.py --check fails when a Core overload outside the dialect has none, or a
reason is kept for an overload the dialect now has.

Keys are MLIR op names (`aten.add.Tensor`; the default overload has no suffix).
"""

TRAINING = ("training only (an autograd backward op): pt2c compiles a model's inference "
            "forward, traced under torch.no_grad()")
RANDOM = ("random: the exporter reports RANDOMNESS (its values are fixed at trace time); "
          "the runtime has no random number generator")
SIZE_QUERY = ("a size query returning a Python int: the exporter records sizes in tensor "
              "metadata (dynamic ones as symbolic expressions), never as graph ops")

REASONS = {
    "aten._adaptive_avg_pool2d_backward": TRAINING,
    "aten.avg_pool2d_backward": TRAINING,
    "aten.convolution_backward": TRAINING,
    "aten.embedding_dense_backward": TRAINING,
    "aten.max_pool2d_with_indices_backward": TRAINING,
    "aten.native_group_norm_backward": TRAINING,
    "aten.native_layer_norm_backward": TRAINING,
    "aten.rand": RANDOM,
    "aten.randn": RANDOM,
    "aten.randperm": RANDOM,
    "aten.native_dropout": (
        "dropout in training: in eval mode (how the exporter traces) F.dropout returns its "
        "input without calling it; with train=True it draws random masks (RANDOMNESS)"),
    "aten.sym_numel": SIZE_QUERY,
    "aten.sym_size.int": SIZE_QUERY,
    "aten.sym_storage_offset": SIZE_QUERY,
    "aten.sym_stride.int": SIZE_QUERY,
    "aten._local_scalar_dense": (
        "`.item()`: a Python number read from tensor data, which the exporter reports as "
        "DATA_DEPENDENT (the traced value becomes a constant)"),
    "aten._fft_r2c": "complex results: the artifact and the dialects have no complex dtypes",
    "aten._fft_c2r": "complex inputs: the artifact and the dialects have no complex dtypes",
    "aten.atan2.out": ("an out= form (writes a tensor the caller passes); the dialect has "
                       "the functional form"),
    "aten.as_strided": (
        "arbitrary strides over a storage: pt2c's value semantics have no strides (the "
        "exporter drops as_strided_ calls that keep every element in place)"),
    "aten._native_batch_norm_legit": (
        "torch.export's form of batch norm with batch statistics; eager, which the "
        "exporter traces, calls native_batch_norm (in the dialect) instead"),
    "aten._native_batch_norm_legit.no_stats": (
        "torch.export's form of batch norm with batch statistics; eager, which the "
        "exporter traces, calls native_batch_norm (in the dialect) instead"),
}
