// Ops whose result sizes depend on values. aten.nonzero -> prim.nonzero: the trace made
// its row count a data-dependent symbol (the exporter's u0, u1, ...; pt2c.symbols entry
// with `produced`), which prim.nonzero names so that the execution plan binds it to the
// count the op computes. Boolean-mask indexing and masked_select arrive as nonzero and
// index.Tensor: the exporter rewrites them so (compiler/exporter/README.md).
//
// torchvision::nms (aten.torchvision_nms) keeps a data-dependent number of boxes too:
// prim.nms_keep sorts the boxes by score and marks the ones the greedy walk keeps, and a
// prim.nonzero of that mask, naming nms's symbol, counts them, so the plan binds it as
// for any nonzero. The kept positions index the score order back to box indices.
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "ir/prim/DataDependentOps.h"
#include "ir/symbolic/SymbolicIR.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

// The name of the data-dependent symbol that is dim 0 of `op`'s result, or "" (with the
// reason recorded in `b`) when the trace did not make it one; `what` names that dim.
std::string rowCountSymbol(Operation *op, StringRef what, PrimBuilder &b) {
  std::optional<std::vector<sym::Expr>> dims = sym::resultDims(op, 0);
  std::vector<std::string> names = sym::symbolNames(op);
  if (!dims || dims->empty() || (*dims)[0]->kind != sym::Kind::Symbol) {
    b.fail(what + " is not a data-dependent size of the trace (export the model again "
                  "with this pt2c)");
    return "";
  }
  return names[(*dims)[0]->value];
}

// prim.nonzero of `operand` binding `symbol`: its indices (the count result is the
// plan's, read by nothing here).
Value nonzeroBinding(PrimBuilder &b, RankedTensorType indices, Value operand,
                     const std::string &symbol) {
  auto count = RankedTensorType::get({}, IntegerType::get(operand.getContext(), 64));
  return b.create<prim::NonzeroOp>(indices, count, operand,
                                   StringAttr::get(operand.getContext(), symbol));
}

Value nonzero(aten::NonzeroOp op, PrimBuilder &b) {
  std::string symbol = rowCountSymbol(op, "nonzero's row count", b);
  if (symbol.empty())
    return {};
  return nonzeroBinding(b, b.resultType(), op.getSelf(), symbol);
}

Value nms(aten::TorchvisionNmsOp op, PrimBuilder &b) {
  std::string symbol = rowCountSymbol(op, "nms's kept-box count", b);
  if (symbol.empty())
    return {};
  RankedTensorType scores = tensorType(op.getScores());
  MLIRContext *context = op.getContext();
  auto i64 = IntegerType::get(context, 64);
  Value order =
      b.create<prim::NmsKeepOp>(scores.clone(i64), scores.clone(IntegerType::get(context, 1)),
                                op.getDets(), op.getScores(), op.getIouThresholdAttr());
  if (b.failed())
    return {};
  Value kept = order.getDefiningOp()->getResult(1);
  // The kept boxes' positions in score order [k, 1], as box indices [k].
  Value positions =
      nonzeroBinding(b, RankedTensorType::get({ShapedType::kDynamic, 1}, i64), kept, symbol);
  Value flat = b.reshape(positions, b.resultType());
  return b.create<prim::GatherOp>(order, flat, 0, 0);
}

} // namespace

void populateDataDependentDecompositions(DecompositionSet &set) {
  set.add<aten::NonzeroOp>(nonzero);
  set.add<aten::TorchvisionNmsOp>(nms);
}

} // namespace pt2c::decompose
