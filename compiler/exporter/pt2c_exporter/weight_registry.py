"""Where a tensor that no recorded op produced comes from: parameter, buffer, constant.

Parameters and buffers are found by object identity first, then by storage and layout
(the same view of the same memory), so a parameter reached through another Python
object is still named by its FQN. Plain tensor attributes of modules are constants
named by their attribute path; anything else is an anonymous constant.
"""
import torch
import pt2c_pb2 as pb

from .tensors import layout_key, storage_key

PARAMETER = pb.InputSpec.PARAMETER
BUFFER = pb.InputSpec.BUFFER
CONSTANT = pb.InputSpec.CONSTANT_TENSOR


class WeightRegistry:
    def __init__(self, model):
        self._by_id = {}
        self._by_layout = {}
        self._fqns = set()
        for fqn, tensor in model.named_parameters():
            self._register(PARAMETER, fqn, tensor)
        for fqn, tensor in model.named_buffers():
            self._register(BUFFER, fqn, tensor)
        for prefix, module in model.named_modules():
            for attr, value in vars(module).items():
                if isinstance(value, torch.Tensor):
                    self._register(CONSTANT, prefix + "." + attr if prefix else attr, value)
        self._anonymous = 0

    def _register(self, kind, fqn, tensor):
        self._fqns.add(fqn)
        entry = (kind, fqn)
        self._by_id.setdefault(id(tensor), (entry, tensor))
        self._by_layout.setdefault((storage_key(tensor), layout_key(tensor)), (entry, tensor))

    def checkpoint(self):
        """Where anonymous constant names stand, for rewind()."""
        return self._anonymous

    def rewind(self, checkpoint):
        """Name the next anonymous constants as after checkpoint(): a trace redone in
        place of another (forced rows, export.py) names its constants as the traces at
        other sizes do, which compare their graphs by value names."""
        self._anonymous = checkpoint

    def resolve(self, tensor):
        """(kind, fqn) of a tensor; unknown tensors become anonymous constants."""
        found = self._by_id.get(id(tensor))
        if found is None or found[1] is not tensor:
            found = self._by_layout.get((storage_key(tensor), layout_key(tensor)))
        if found is not None:
            return found[0]
        while True:  # the name torch.fx gives tensors created during tracing
            name = "_tensor_constant%d" % self._anonymous
            self._anonymous += 1
            if name not in self._fqns:
                return CONSTANT, name
