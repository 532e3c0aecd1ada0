// Symbolic sizes in MLIR: where a model function keeps its symbols, how expressions
// travel in attributes, and how an expression becomes index arithmetic on prim.symbol.
//
//   model function attribute  pt2c.symbols = [{name, min, max, input, dim}, ...] (input:
//                             the pt2c.input name of the input whose dim gives it; or
//                             `produced`; or derived = "min(u0, 100)")
//   argument attribute        pt2c.dims = ["batch", "16"] (one per dim; static as numbers)
//   op attribute              pt2c.result_dims = [["batch", "16"], ...] (one per result)
//   aten op attribute         pt2c.sym.<arg> = "seq" or ["batch*seq", ""] (importer: the
//                             symbolic entries of an int or int-list argument, whose
//                             attribute then holds a placeholder)
//   kernel function attribute pt2c.symbol_names = ["batch", "seq"]
//   kernel function attribute pt2c.symbol_ranges = array<i64: min0, max0, ...>
//   kernel function attribute pt2c.kernel_dims = [dims or [] per argument, then per
//                             result] (kernel formation; [] = static)
#ifndef PT2C_IR_SYMBOLIC_SYMBOLICIR_H_
#define PT2C_IR_SYMBOLIC_SYMBOLICIR_H_

#include <optional>
#include <string>
#include <vector>

#include "ir/contract/ModelContract.h" // the attribute names below
#include "ir/symbolic/SymExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

namespace pt2c::sym {

// The symbol names of the function holding `op` (pt2c.symbols or pt2c.symbol_names);
// empty for a static graph.
std::vector<std::string> symbolNames(mlir::Operation *op);

struct SymbolRange {
  int64_t min, max;
};

// The ranges of the symbols of the function holding `op` (pt2c.symbols or
// pt2c.symbol_ranges), in symbolNames order; empty for a static graph.
std::vector<SymbolRange> symbolRanges(mlir::Operation *op);

// The expression of entry `position` of int-list argument `arg` of an aten op, or of
// the int argument when position < 0; std::nullopt when it is static.
std::optional<Expr> symbolicArgument(mlir::Operation *op, llvm::StringRef arg, int position = -1);

// The sizes of result `i` of an op the importer annotated (kResultDimsAttr).
std::optional<std::vector<Expr>> resultDims(mlir::Operation *op, unsigned i);

// A tensor value's dims as attribute entries: a function argument's pt2c.dims or its
// defining op's pt2c.result_dims entry; null when the value's shape is static or no
// annotation says (pt2c-symbolic-shapes annotates every dynamic value).
mlir::ArrayAttr dimsAttrOf(mlir::Value v);

// Index arithmetic computing `e` at the builder's position, each symbol's value from
// `symbolValue(position)`.
mlir::Value materialize(mlir::OpBuilder &b, mlir::Location loc, const Expr &e,
                        llvm::function_ref<mlir::Value(int64_t)> symbolValue);
// The same with symbols as prim.symbol ops.
mlir::Value materialize(mlir::OpBuilder &b, mlir::Location loc, const Expr &e,
                        llvm::ArrayRef<std::string> names);

// One string per dim ("batch*seq", "16").
mlir::ArrayAttr dimsAttr(mlir::Builder &b, llvm::ArrayRef<Expr> dims,
                         llvm::ArrayRef<std::string> names);
// std::nullopt when an entry does not parse.
std::optional<std::vector<Expr>> parseDims(mlir::ArrayAttr attr, llvm::ArrayRef<std::string> names);

} // namespace pt2c::sym

#endif // PT2C_IR_SYMBOLIC_SYMBOLICIR_H_
