"""Steers PyTorch modules off their fused inference kernels while tracing, and says so.

In eval mode under no_grad, nn.TransformerEncoderLayer and nn.MultiheadAttention call
one fused ATen op each (aten::_transformer_encoder_layer_fwd,
aten::_native_multi_head_attention), and nn.TransformerEncoder packs a padded batch
into a nested tensor (aten::_nested_tensor_from_mask): ops the compiler would have to
implement whole. Their forward() decides in Python, and on torch 1.13 and 2.x alike
the last check before the fused call is `torch.overrides.has_torch_function(args)`;
every other condition has passed by then. While tracing, that function is replaced by
one that answers True to those forward() methods, so they take their composite path
(the same math in plain ATen ops), and records a FAST_PATH finding at the user's line.
Every other caller gets the real answer.

torch.backends.mha.set_fastpath_enabled(False) (2.x only) would steer them off too, but
it is checked first, before the module knows whether its fast path applies, so it
cannot say which modules would have taken it.
"""
import contextlib
import os
import sys

import torch

# The fused op each module would call; op_findings reports these if one reaches the
# trace anyway (a direct call, or a torch whose forward() checks differently).
FUSED_OPS = {
    "aten::_transformer_encoder_layer_fwd": "nn.TransformerEncoderLayer",
    "aten::_native_multi_head_attention": "nn.MultiheadAttention",
    "aten::_nested_tensor_from_mask": "nn.TransformerEncoder",
    "aten::_transformer_decoder_only_layer_fwd": "nn.TransformerDecoderLayer",
    "aten::_native_decoder_only_multi_head_attention": "nn.MultiheadAttention",
    "aten::mkldnn_rnn_layer": "nn.LSTM",
}

# Checks the fast paths make before their has_torch_function() call, run but not
# recorded: nn.TransformerEncoder asks whether a padding mask is left-aligned. Its
# answer reads the mask's values, but with the fast path steered off either answer
# leads to the same composite path, so it is no node of the graph and no finding.
UNRECORDED_PROBES = {"aten::_nested_tensor_from_mask_left_aligned"}

# Checked in this order: TransformerEncoderLayer before its base class Module.
_STEERED = "steered off: traced through the module's composite path (the same math in plain ATen ops)"
_MODULES = [  # (class, name, fused op, message, assumed)
    (torch.nn.TransformerEncoderLayer, "nn.TransformerEncoderLayer",
     "aten::_transformer_encoder_layer_fwd", "would run its fused inference kernel", _STEERED),
    (torch.nn.MultiheadAttention, "nn.MultiheadAttention",
     "aten::_native_multi_head_attention", "would run its fused inference kernel", _STEERED),
    # The nested-tensor path leaves zeros at padded positions; the composite path
    # computes values there (equal everywhere else).
    (torch.nn.TransformerEncoder, "nn.TransformerEncoder",
     "aten::_nested_tensor_from_mask", "would pack its padded input into a nested tensor with",
     _STEERED + "; outputs at padded positions are computed values where eager gives zeros"),
]

_NN_MODULES_DIR = os.path.join(os.path.dirname(os.path.realpath(torch.__file__)), "nn",
                               "modules") + os.sep


@contextlib.contextmanager
def steered_off(report, locator):
    """Within the block, fast-path checks of the modules above fail and are reported."""
    original = torch.overrides.has_torch_function

    def has_torch_function(args):
        caller = sys._getframe(1)
        found = _fast_path_module(caller)
        if found is None:
            return original(args)
        name, op, what, assumed = found
        report.add("FAST_PATH", "%s %s %s" % (name, what, op), locator.current(), op, assumed)
        return True

    torch.overrides.has_torch_function = has_torch_function
    try:
        with _lstm_off_onednn(report, locator):
            yield
    finally:
        torch.overrides.has_torch_function = original


# torch 1.13's nn.LSTM has no oneDNN kernel: nothing to steer off or report there.
_LSTM_HAS_ONEDNN_KERNEL = hasattr(torch.ops.aten, "mkldnn_rnn_layer")


@contextlib.contextmanager
def _lstm_off_onednn(report, locator):
    """Within the block, every nn.LSTM forward() runs with oneDNN off, and is reported."""
    module_hooks = torch.nn.modules.module
    enabled_before = torch._C._get_mkldnn_enabled()
    switched = []  # the LSTMs whose forward() runs now, innermost last

    def pre_hook(module, args):
        if (isinstance(module, torch.nn.LSTM) and _LSTM_HAS_ONEDNN_KERNEL
                and torch._C._get_mkldnn_enabled() and args
                and isinstance(args[0], torch.Tensor) and args[0].device.type == "cpu"):
            report.add("FAST_PATH", "nn.LSTM would run its oneDNN kernel "
                       "aten::mkldnn_rnn_layer", locator.current(),
                       "aten::mkldnn_rnn_layer", _STEERED)
            torch._C._set_mkldnn_enabled(False)
            switched.append(module)

    def post_hook(module, args, result):
        if switched and switched[-1] is module:
            switched.pop()
            torch._C._set_mkldnn_enabled(True)

    handles = [module_hooks.register_module_forward_pre_hook(pre_hook),
               module_hooks.register_module_forward_hook(post_hook)]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()
        torch._C._set_mkldnn_enabled(enabled_before)


def _fast_path_module(frame):
    """(module name, fused op, message, assumed) when `frame` is one of the modules' forward()."""
    code = frame.f_code
    if code.co_name != "forward" or not os.path.realpath(code.co_filename).startswith(
            _NN_MODULES_DIR):
        return None
    module = frame.f_locals.get("self")
    for cls, *found in _MODULES:
        if isinstance(module, cls):
            return found
    return None
