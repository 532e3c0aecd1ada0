// The exporter's fitted size expressions (artifact::SymExpr: (c + sum a*prod(symbols)) // d)
// as sym::Expr, for the importer and for the tools that print an artifact's sizes.
#ifndef PT2C_COMPILER_IMPORT_ARTIFACTSYMEXPR_H_
#define PT2C_COMPILER_IMPORT_ARTIFACTSYMEXPR_H_

#include <string>

#include "ir/artifact/ArtifactFile.h"
#include "ir/symbolic/SymExpr.h"
#include "llvm/Support/Error.h"

namespace pt2c {

// `names`: the graph's dynamic dims in order, of which the expression may use the first
// `visible` (all for a size; those listed before it for a clamp). The error says what
// is wrong ("uses 'seq', which is no dynamic dimension"), for the caller to place.
llvm::Expected<sym::Expr> symExprOf(const artifact::SymExpr &e, llvm::ArrayRef<std::string> names,
                                    size_t visible);

// A clamp (DynamicDim.clamp) as its value, min(of, at_most), over the dims before it.
llvm::Expected<sym::Expr> clampExprOf(const artifact::Clamp &clamp,
                                      llvm::ArrayRef<std::string> names, size_t visible);

// The names of a graph's dynamic dims, in order: the symbols' positions.
std::vector<std::string> dynamicDimNames(const artifact::Graph &graph);

} // namespace pt2c

#endif // PT2C_COMPILER_IMPORT_ARTIFACTSYMEXPR_H_
