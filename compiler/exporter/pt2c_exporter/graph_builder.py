"""The graph being recorded: values, inputs, nodes and outputs.

Every tensor gets a Value. A map from tensor identity to its current Value name says
which Value an argument is; an op that writes a tensor in place gets a fresh Value
for its result and the tensor is rebound to it, so every Value is defined once. Values
that share memory (views, in-place results) share a storage_id, which is what the
functionalization pass needs; this builder does no aliasing analysis of its own.
"""
import re

import torch
import pt2c_pb2 as pb

from . import arguments
from .guards import guard_for
from .outputs import flatten_outputs, flatten_results
from .schema import op_schema
from .tensors import layout_key, storage_key, tensor_meta
from .weight_registry import BUFFER, CONSTANT, PARAMETER, WeightRegistry

USER_INPUT = pb.InputSpec.USER_INPUT
# Input order as torch.export's graph signature: parameters, buffers, constants, user inputs.
_INPUT_ORDER = {PARAMETER: 0, BUFFER: 1, CONSTANT: 2, USER_INPUT: 3}
_VALUE_PREFIX = {PARAMETER: "p_", BUFFER: "b_", CONSTANT: "c_", USER_INPUT: ""}


class GraphBuilder:
    def __init__(self, model, report, registry=None, name="forward"):
        self.report = report
        self._registry = registry if registry is not None else WeightRegistry(model)
        self._graph = pb.Graph(name=name)
        self._used_names = set()
        self._name_of = {}       # id(tensor) -> current Value name
        self._alive = []         # every tensor seen, so ids and data pointers stay unique
        self._by_layout = {}     # (storage, layout) -> Value name, for untracked aliases
        self._storage_ids = {}   # storage key -> storage_id
        self._inputs = []        # [(InputSpec, tensor)]
        self._input_by_fqn = {}
        self._weights = {}       # input value name -> [fqn, tensor, snapshot or None]
        self._weights_on = {}    # storage key -> those entries, to find them on a write
        self._inputs_on = {}     # storage key -> [(InputSpec, tensor)], to report writes
        self._written_ids = set()  # id(tensor) of tensors passed where an op writes

    # ---- values -------------------------------------------------------------------

    def _unique_name(self, base):
        base = re.sub(r"\W", "_", base) or "v"
        if base[0].isdigit():
            base = "_" + base
        name, n = base, 0
        while name in self._used_names:
            n += 1
            name = "%s_%d" % (base, n)
        self._used_names.add(name)
        return name

    def _new_value(self, base, tensor, loc=None):
        name = self._unique_name(base)
        key = storage_key(tensor)
        value = self._graph.values.add(name=name, meta=tensor_meta(tensor))
        value.storage_id = self._storage_ids.setdefault(key, len(self._storage_ids) + 1)
        if value.meta.dtype == pb.DTYPE_UNSPECIFIED:
            self.report.add("UNSUPPORTED_DTYPE", "value %s has dtype %s, which the artifact "
                            "format cannot describe" % (name, tensor.dtype), loc)
        self._bind(tensor, name)
        return name

    def _bind(self, tensor, name):
        self._name_of[id(tensor)] = name
        self._alive.append(tensor)
        self._by_layout[(storage_key(tensor), layout_key(tensor))] = name

    def tensor_name(self, tensor, loc=None):
        """The Value a tensor is now; tensors from nowhere become graph inputs."""
        name = self._name_of.get(id(tensor))
        if name is not None:
            return name
        alias = self._by_layout.get((storage_key(tensor), layout_key(tensor)))
        if alias is not None:  # e.g. `x.data`: a new object, no op, same memory and view
            self._bind(tensor, alias)
            return alias
        kind, fqn = self._registry.resolve(tensor)
        if kind == CONSTANT and storage_key(tensor) in self._storage_ids:
            self.report.add("UNTRACKED_ALIAS", "a tensor that shares memory with a graph value "
                            "appeared without an op; it was captured as constant %s" % fqn, loc)
        return self._add_input(kind, fqn, tensor, loc)

    def add_user_input(self, name, tensor):
        """-> the Value name the input is bound to."""
        if id(tensor) in self._name_of:  # the same tensor passed twice: one Value
            return self._name_of[id(tensor)]
        return self._add_input(USER_INPUT, name, tensor)

    def _add_input(self, kind, fqn, tensor, loc=None):
        existing = self._input_by_fqn.get((kind, fqn))
        if existing is not None:
            self._bind(tensor, existing)
            return existing
        prefix = _VALUE_PREFIX[kind]
        name = self._new_value(prefix + fqn.lstrip("_") if prefix else fqn, tensor, loc)
        spec = pb.InputSpec(kind=kind, value=name, name=fqn)
        self._inputs.append((spec, tensor))
        self._inputs_on.setdefault(storage_key(tensor), []).append((spec, tensor))
        self._input_by_fqn[(kind, fqn)] = name
        if kind != USER_INPUT:
            entry = self._weights[name] = [fqn, tensor, None]
            self._weights_on.setdefault(storage_key(tensor), []).append(entry)
        return name

    # ---- nodes --------------------------------------------------------------------

    def begin_node(self, func, args, kwargs, loc):
        """Record the call's target and arguments; runs before the op does."""
        schema = op_schema(func)
        node = pb.Node(target=schema.target, overload=schema.overload, schema=schema.text)
        if loc is not None:
            node.loc.CopyFrom(loc)
        tensor_name = lambda t: self.tensor_name(t, loc)
        for i, spec in enumerate(schema.arguments):
            if i < len(args):
                value = args[i]
            elif spec.name in kwargs:
                value = kwargs[spec.name]
            elif spec.has_default_value():
                value = spec.default_value  # explicit, so both torch versions record the same
            else:
                continue
            try:
                node.args.append(arguments.make_argument(
                    spec.name, schema.declared_types[i], value, tensor_name))
            except arguments.UnsupportedArgument as e:
                node.args.add(name=spec.name)  # no kind: the importer will reject the node
                self.report.add("UNSUPPORTED_ARGUMENT", "%s: argument %s: %s"
                                % (schema.qualified_name, spec.name, e), loc)
            if schema.mutated[i]:
                for t in _tensors_in(value):
                    self._before_write(t, loc, schema.target)
        return node

    def end_node(self, node, result):
        """Give the call's results fresh Values; runs after the op."""
        guard = guard_for(node, result)
        if guard is not None:
            self._graph.guards.append(guard)
            return
        base = node.target.split("::")[-1]
        loc = node.loc if node.HasField("loc") else None
        for t in flatten_results(result):
            node.outputs.append("" if t is None else self._new_value(base, t, loc))
        self._graph.nodes.append(node)

    def _before_write(self, tensor, loc, op):
        # Weights hold their values from before the trace: copy one before its first write.
        key = storage_key(tensor)
        self._written_ids.add(id(tensor))
        for entry in self._weights_on.get(key, ()):
            if entry[2] is None:
                entry[2] = entry[1].clone()
        for spec, input_tensor in self._inputs_on.get(key, ()):
            # A write through a view changes the input too: its last Value is written back.
            self._written_ids.add(id(input_tensor))
            self._report_write(spec, tensor is input_tensor, loc, op)

    def _report_write(self, spec, direct, loc, op):
        # Each write, where it happens; _mutation_outputs decides what the signature shows,
        # with the same rule: a direct write to a user input or buffer is written back.
        how = "in place" if direct else "through a view"
        if spec.kind == USER_INPUT:
            kind, what = "INPUT_MUTATION", "user input"
            assumed = "written back: the signature has a USER_INPUT_MUTATION output for it"
        elif spec.kind == BUFFER:
            kind, what = "BUFFER_MUTATION", "buffer"
            assumed = "supported: written back as a BUFFER_MUTATION output"
        else:
            kind = "PARAMETER_MUTATION"
            what = "parameter" if spec.kind == PARAMETER else "constant"
            assumed = "not written back: the compiled model keeps the value from before the trace"
        self.report.add(kind, "%s %s is written %s" % (what, spec.name, how), loc, op, assumed)

    # ---- the finished graph -------------------------------------------------------

    def finish(self, result):
        """Outputs, mutations and input order; -> (Graph, [(fqn, tensor)] for the blob)."""
        tensors, others = flatten_outputs(result)
        for path, value in others:
            self.report.add("NON_TENSOR_OUTPUT", "output %s is a %s (%r); it is not part of "
                            "the compiled graph" % (path, type(value).__name__, value))
        user_outputs = [pb.OutputSpec(kind=pb.OutputSpec.USER_OUTPUT, name=path,
                                      value=self.tensor_name(t)) for path, t in tensors]
        ordered = sorted(self._inputs, key=lambda item: _INPUT_ORDER[item[0].kind])
        # torch.export lists mutations first, in input order.
        self._graph.outputs.extend(self._mutation_outputs(ordered))
        self._graph.outputs.extend(user_outputs)
        self._graph.inputs.extend(spec for spec, _ in ordered)
        weights = [(fqn, snapshot if snapshot is not None else tensor)
                   for name, (fqn, tensor, snapshot) in self._weights.items()]
        return self._graph, weights

    def _mutation_outputs(self, inputs):
        specs = []
        for spec, tensor in inputs:
            current = self._name_of.get(id(tensor))
            # Written in place, as itself or through a view: its last Value is the new
            # state. (Rebinding alone is no write: aten::lift_fresh returns its argument.)
            # (Each write was reported where it happened, by _report_write.)
            if id(tensor) in self._written_ids:
                if spec.kind == USER_INPUT:
                    specs.append(pb.OutputSpec(kind=pb.OutputSpec.USER_INPUT_MUTATION,
                                               value=current, name=spec.name))
                elif spec.kind == BUFFER:
                    specs.append(pb.OutputSpec(kind=pb.OutputSpec.BUFFER_MUTATION,
                                               value=current, name=spec.name))
        return specs

    @property
    def node_count(self):
        return len(self._graph.nodes)



def _tensors_in(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return []
