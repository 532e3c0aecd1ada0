"""Report findings about single ATen calls: DATA_DEPENDENT, RANDOMNESS, UNSUPPORTED_OP,
and FAST_PATH for a fused kernel that reached the trace although fast_path.py steers
modules off them.

aten::nonzero is DATA_DEPENDENT too, but its row count is kept as a symbol
(data_dependent.py), which the finding names; mask indexing and masked_select arrive as
nonzero (mask_indexing.py). Other ops whose output shape depends on values are recorded
with the shape the trace saw.

Ops are classified by their tags where torch has them (`data_dependent_output`,
`dynamic_output_shape`, `nondeterministic_seeded`; torch 1.13 tags few ops, 2.x most)
and by name lists that cover what 1.13 leaves untagged. Checks run after the op, so a
data-dependent finding can say what the trace saw: the value read, the shape produced.
"""
import torch

from .aten_op_list import listed_name
from .fast_path import FUSED_OPS
from .guards import SCALAR_READS

# A tensor's value read into Python: `.item()`, int(), float(), bool(), `if tensor:`.
# All of these reach the mode as aten::_local_scalar_dense on 1.13 and 2.x.
_VALUE_READS = SCALAR_READS | {"aten::equal", "aten::allclose"}
_VALUE_READ_MESSAGE = ("a tensor's value was read into Python (.item(), int(), float(), "
                       "bool(), a condition); the graph keeps what the model did with it")

_GUARDED_READ_MESSAGE = ("a tensor's value was read into Python (.item(), int(), float(), "
                         "bool(), a condition); the compiled model checks on every run that "
                         "the input gives this value again (a guard) and refuses it otherwise")

# Output shapes that depend on tensor values.
_SHAPE_FROM_VALUES = {"aten::nonzero", "aten::masked_select", "aten::_unique",
                      "aten::_unique2", "aten::unique_dim", "aten::unique_consecutive",
                      "aten::bincount", "aten::repeat_interleave", "aten::index",
                      "aten::one_hot"}
_SHAPE_MESSAGE = ("the output's shape depends on tensor values (%s); the graph keeps the "
                  "shape seen here")
_ROW_COUNT_MESSAGE = ("the row count of %s depends on tensor values; the graph keeps it as "
                      "the data-dependent size %s, at most %d here (%s), and sizes "
                      "computed from it as expressions of it")
_ROW_BOUNDS = {"aten::nonzero": "the input's element count",
               "torchvision::nms": "the number of boxes"}

_RANDOM_OPS = {"aten::" + name for name in (
    "rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "randperm",
    "bernoulli", "bernoulli_", "multinomial", "normal", "normal_", "normal_functional",
    "uniform", "uniform_", "exponential", "exponential_", "geometric", "geometric_",
    "cauchy", "cauchy_", "log_normal", "log_normal_", "random", "random_", "poisson",
    "_standard_gamma", "_sample_dirichlet", "binomial", "dropout", "dropout_",
    "native_dropout", "_fused_dropout", "alpha_dropout", "feature_dropout",
    "feature_alpha_dropout", "rrelu", "rrelu_", "rrelu_with_noise", "rrelu_with_noise_")}
# Arguments that make a random op deterministic: a zero probability, or not training
# (the attention kernels 2.x reaches from F.scaled_dot_product_attention carry a
# dropout_p that is 0.0 in inference).
_ZERO_PROBABILITY_ARGS = ("p", "dropout_p", "dropout")
_TRAINING_ARGS = ("train", "training")


def _tag(name):
    tag_type = getattr(torch, "Tag", None)
    return getattr(tag_type, name, None) if tag_type is not None else None


_TAG_VALUE_READ = _tag("data_dependent_output")
_TAG_SHAPE = _tag("dynamic_output_shape")
_TAG_RANDOM = _tag("nondeterministic_seeded")


class OpFindings:
    def __init__(self, report, supported_ops, nonzero_calls):
        """supported_ops: the names in aten_ops.txt, or None to skip UNSUPPORTED_OP.
        nonzero_calls: the trace's data_dependent.NonzeroCalls, which name the symbols."""
        self._report = report
        self._supported = supported_ops
        self._nonzero_calls = nonzero_calls

    def check(self, func, schema, args, kwargs, result, loc):
        tags = set(getattr(func, "tags", ()) or ())
        target = schema.target
        bound = bind(schema, args, kwargs)
        if target in _ROW_BOUNDS and schema.overload == "default":
            call = self._nonzero_calls.calls[-1]
            if call.symbol:  # over no elements it is empty whatever the values
                self._report.add("DATA_DEPENDENT", _ROW_COUNT_MESSAGE % (
                    target, call.symbol, call.bound, _ROW_BOUNDS[target]), loc, target,
                    "kept symbolic: shape [%s]; %s here" % (
                        ", ".join([call.symbol] + [str(d) for d in result.shape[1:]]),
                        list(result.shape)))
        elif target in SCALAR_READS:
            self._report.add("DATA_DEPENDENT", _GUARDED_READ_MESSAGE, loc, target, _value(result))
        elif target in _VALUE_READS or (_TAG_VALUE_READ is not None and _TAG_VALUE_READ in tags):
            self._report.add("DATA_DEPENDENT", _VALUE_READ_MESSAGE, loc, target, _value(result))
        elif ((target in _SHAPE_FROM_VALUES or (_TAG_SHAPE is not None and _TAG_SHAPE in tags))
              and _shape_depends_on_values(target, bound)):
            self._report.add("DATA_DEPENDENT", _SHAPE_MESSAGE % target, loc, target,
                             "shape %s" % _first_shape(result))
        if draws_random_numbers(func, schema, bound):
            self._report.add("RANDOMNESS", "%s draws random numbers; a compiled model cannot "
                             "reproduce torch's random stream" % target, loc, target,
                             "the op stays in the graph; the values drawn while tracing are "
                             "not baked in")
        name = listed_name(target, schema.overload)
        if target in FUSED_OPS:
            self._report.add("FAST_PATH", "%s took its fused inference kernel %s and it could "
                             "not be steered off" % (FUSED_OPS[target], target), loc, name,
                             "taken: the fused op is recorded as it is")
        # One-element reads become guards (guards.py), not graph nodes.
        if self._supported is not None and name not in self._supported and \
                target not in SCALAR_READS:
            self._report.add("UNSUPPORTED_OP", "%s has no op in the aten dialect yet "
                             "(ir/aten/aten_ops.txt); compiling this graph fails until it has"
                             % name, loc, name, "recorded as it is")


def draws_random_numbers(func, schema, bound):
    """True for a random op, unless its arguments make it deterministic (p=0, train=False).

    tools/compare_draft_export.py applies the same rule to draft_export's graphs.
    """
    tags = getattr(func, "tags", ()) or ()
    random = (schema.target in _RANDOM_OPS or (_TAG_RANDOM is not None and _TAG_RANDOM in tags)
              or "Generator" in schema.text)
    return random and not _deterministic_by_arguments(bound)


def bind(schema, args, kwargs):
    """{argument name: value} of one call, defaults filled in."""
    bound = {}
    for i, spec in enumerate(schema.arguments):
        if i < len(args):
            bound[spec.name] = args[i]
        elif spec.name in kwargs:
            bound[spec.name] = kwargs[spec.name]
        elif spec.has_default_value():
            bound[spec.name] = spec.default_value
    return bound


def _shape_depends_on_values(target, bound):
    if target == "aten::index":  # only boolean masks select a value-dependent count
        return any(isinstance(t, torch.Tensor) and t.dtype in (torch.bool, torch.uint8)
                   for t in (bound.get("indices") or ()))
    if target == "aten::one_hot":  # num_classes=-1 takes the count from the data
        return bound.get("num_classes", -1) == -1
    if target == "aten::repeat_interleave":  # tensor repeats without output_size
        return isinstance(bound.get("repeats"), torch.Tensor) and bound.get("output_size") is None
    return True


def _deterministic_by_arguments(bound):
    for name in _ZERO_PROBABILITY_ARGS:
        value = bound.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0:
            return True
    return any(bound.get(name) is False for name in _TRAINING_ARGS)


def _value(result):
    return repr(result)  # a Python bool, int or float


def _first_shape(result):
    while isinstance(result, (list, tuple)) and result:
        result = result[0]
    return list(result.shape) if isinstance(result, torch.Tensor) else "?"
