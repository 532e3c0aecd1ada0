// prim ops whose result sizes depend on operand values (issue: data-dependent sizes).
// Such a size is a symbol of the model function's pt2c.symbols with `produced` set: the
// op computes its run-time value, the execution plan binds the symbol to it once the
// op's step ran (plan_format.h, PT2C_SYM_PRODUCED), and buffers are planned at the
// symbol's bound, as for dynamic dimensions. prim.nms_keep, whose size is static, is
// here because only such a size reads it: torchvision's nms is a prim.nonzero of its
// mask. Kept apart from PrimOps.td so that adding one here rebuilds only the passes
// that handle them.
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

def Prim_NmsKeepOp : Prim_Op<"nms_keep"> {
  let summary = "greedy non-maximum suppression: the boxes by score and which it keeps";
  let description = [{
    torchvision::nms's CPU kernel over `boxes` [N, 4] (x1, y1, x2, y2) and their
    `scores` [N] (one floating-point type; N may be dynamic). `order` [N] (i64) is the
    box indices by decreasing score, equal scores in index order (a stable sort; NaN
    first, as torch.sort puts it). Walking that order, a box that no earlier kept box
    suppressed is kept and suppresses every later box whose IoU with it,
    inter / (area_i + area_j - inter) computed in the boxes' type and compared in f64,
    is above `iou_threshold`. `kept` [N] (i1) says which, position r for box order[r]:
    the kept boxes' indices are order at the positions prim.nonzero finds in `kept`.
  }];
  let arguments = (ins Prim_FloatTensor:$boxes, Prim_FloatTensor:$scores,
                       F64Attr:$iou_threshold);
  let results = (outs Prim_Tensor:$order, Prim_BoolTensor:$kept);
  let assemblyFormat = [{
    $boxes `,` $scores `,` `iou_threshold` `=` $iou_threshold attr-dict `:`
    type($boxes) `,` type($scores) `->` type($order) `,` type($kept)
  }];
  let hasVerifier = 1;
}

#endif // PT2C_PRIM_DATA_DEPENDENT_OPS_TD
