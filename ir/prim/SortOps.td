// prim ops that order elements: sorting has no formulation as elementwise ops and
// reductions that runs in O(n log n) (decompose/TopK.cpp's selection and rank-table
// forms are O(k n) and O(n^2)), so it is an op of its own that each target lowers to a
// sorting loop. Kept apart from PrimOps.td so that adding one here rebuilds only the
// passes that handle them.
#ifndef PT2C_PRIM_SORT_OPS_TD
#define PT2C_PRIM_SORT_OPS_TD

include "ir/prim/PrimBase.td"

def Prim_ArgsortOp : Prim_Op<"argsort", [SameOperandsAndResultShape]> {
  let summary = "the stable sorting permutation of each row along the last dim";
  let description = [{
    `indices` (i64, the operand's shape) holds, for each row (the leading dims), the
    positions along the last dim in sorted order: ascending, or descending with
    `descending`. The order is PyTorch eager's: NaN counts as larger than every number
    (last ascending, first descending) and equal elements keep their order of position
    (a stable sort), so gathering the operand at `indices` gives torch.sort's values and
    `indices` its indices; topk takes the first k. Any dim may be dynamic: the op sorts
    the elements each row has in this run.
  }];
  let arguments = (ins Prim_Tensor:$operand, UnitAttr:$descending);
  let results = (outs Prim_Tensor:$indices);
  let assemblyFormat = [{
    $operand (`descending` $descending^)? attr-dict `:` type($operand) `->` type($indices)
  }];
  let hasVerifier = 1;
}

#endif // PT2C_PRIM_SORT_OPS_TD
