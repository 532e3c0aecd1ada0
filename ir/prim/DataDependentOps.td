// prim ops whose result sizes depend on operand values (issue: data-dependent sizes).
// Such a size is a symbol of the model function's pt2c.symbols with `produced` set: the
// op computes its run-time value, the execution plan binds the symbol to it once the
// op's step ran (plan_format.h, PT2C_SYM_PRODUCED), and buffers are planned at the
// symbol's bound, as for dynamic dimensions. Kept apart from PrimOps.td so that adding
// one here rebuilds only the passes that handle them.
#ifndef PT2C_PRIM_DATA_DEPENDENT_OPS_TD
#define PT2C_PRIM_DATA_DEPENDENT_OPS_TD

include "ir/prim/PrimBase.td"

def Prim_NonzeroOp : Prim_Op<"nonzero"> {
  let summary = "the indices of the nonzero elements in row-major order, and their count";
  let description = [{
    `indices` is tensor<? x rank x i64>: row j holds the coordinates of the operand's
    j-th nonzero element (row-major order, as torch.nonzero); its dim 0 is the symbol
    `symbol`, at most the operand's element count. `count` (tensor<i64>) is the number of
    rows, the value the run binds `symbol` to. The operand may have dynamic sizes (a
    mask over an earlier data-dependent selection); the bound is the symbol's maximum.
  }];
  let arguments = (ins Prim_Tensor:$operand, StrAttr:$symbol);
  let results = (outs Prim_Tensor:$indices, Prim_Tensor:$count);
  let assemblyFormat = [{
    $operand `,` $symbol attr-dict `:` type($operand) `->` type($indices) `,` type($count)
  }];
  let hasVerifier = 1;
}

#endif // PT2C_PRIM_DATA_DEPENDENT_OPS_TD
