// Ops whose result sizes depend on values. aten.nonzero -> prim.nonzero: the trace made
// its row count a data-dependent symbol (the exporter's u0, u1, ...; pt2c.symbols entry
// with `produced`), which prim.nonzero names so that the execution plan binds it to the
// count the op computes. Boolean-mask indexing and masked_select arrive as nonzero and
// index.Tensor: the exporter rewrites them so (compiler/exporter/README.md).
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "ir/prim/DataDependentOps.h"
#include "ir/symbolic/SymbolicIR.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

// The name of the data-dependent symbol that is dim 0 of `op`'s result, or "" (with the
// reason recorded in `b`) when the trace did not make it one.
std::string rowCountSymbol(aten::NonzeroOp op, PrimBuilder &b) {
  std::optional<std::vector<sym::Expr>> dims = sym::resultDims(op, 0);
  std::vector<std::string> names = sym::symbolNames(op);
  if (!dims || dims->empty() || (*dims)[0]->kind != sym::Kind::Symbol) {
    b.fail("nonzero's row count is not a data-dependent size of the trace (export the "
           "model again with this pt2c)");
    return "";
  }
  return names[(*dims)[0]->value];
}

Value nonzero(aten::NonzeroOp op, PrimBuilder &b) {
  std::string symbol = rowCountSymbol(op, b);
  if (symbol.empty())
    return {};
  RankedTensorType count = RankedTensorType::get({}, b.resultElementType());
  // The indices; the count result is the plan's, read by nothing here.
  return b.create<prim::NonzeroOp>(b.resultType(), count, op.getSelf(),
                                   StringAttr::get(op.getContext(), symbol));
}

} // namespace

void populateDataDependentDecompositions(DecompositionSet &set) {
  set.add<aten::NonzeroOp>(nonzero);
}

} // namespace pt2c::decompose
