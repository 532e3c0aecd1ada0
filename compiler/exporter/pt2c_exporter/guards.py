"""Guards: a tensor value read into Python (`if x.sum() > 0:`, `.item()`, int(t)) steers
the trace, so the graph is only right for inputs that give the same value. Instead of a
node the compiler cannot use (its result is a Python number), the read becomes a Guard:
the graph keeps computing the tensor that was read, and the compiled library checks after
every run that it still holds the value seen here, refusing the run otherwise.
"""
import pt2c_pb2 as pb

# Reads of one element into Python; all of `.item()`, int(), float(), bool() and `if t:`
# reach the dispatch mode as one of these.
SCALAR_READS = {"aten::_local_scalar_dense", "aten::item", "aten::is_nonzero"}


def guard_for(node, result):
    """The Guard replacing `node`, or None when the node is not a one-element read."""
    if node.target not in SCALAR_READS or not isinstance(result, (bool, int, float)):
        return None
    tensors = [a.tensor for a in node.args if a.WhichOneof("kind") == "tensor"]
    if len(tensors) != 1:
        return None
    guard = pb.Guard(value=tensors[0], expected=float(result),
                     description="a tensor value read into Python: %r" % (result,))
    if node.HasField("loc"):
        guard.loc.CopyFrom(node.loc)
    return guard
