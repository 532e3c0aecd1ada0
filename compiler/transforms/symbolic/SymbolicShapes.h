// pt2c-symbolic-shapes: the size of every dynamic dim of a model function with dynamic
// dimensions (SymbolicIR.h), as an expression over its symbols.
//
// After the aten -> prim decomposition a dynamic size is an SSA index value (operands
// of prim.broadcast_in_dim, prim.reshape, prim.iota) or a dim of a value the prim op's
// semantics determine (elementwise ops, transpose, dot_general, reduce, gather, ...).
// This pass walks the function once, in order, and
//   - gives every op with a dynamic result pt2c.result_dims (what kernel formation and
//     the execution plan need: sizes of kernel arguments, outputs and arena buffers),
//   - replaces each prim.dim_size by index arithmetic on prim.symbol, so that kernels
//     compute sizes from the symbol values alone,
//   - refuses a size it cannot express, naming the op, and a size that may shrink when
//     a dimension grows (memory is planned at the dimensions' maxima).
// A function without pt2c.symbols is left alone.
#ifndef PT2C_COMPILER_TRANSFORMS_SYMBOLIC_SYMBOLICSHAPES_H_
#define PT2C_COMPILER_TRANSFORMS_SYMBOLIC_SYMBOLICSHAPES_H_

#include <memory>

#include "mlir/Pass/Pass.h"

namespace pt2c {

#define GEN_PASS_DECL_SYMBOLICSHAPESPASS
#include "compiler/transforms/Passes.h.inc"

} // namespace pt2c

#endif // PT2C_COMPILER_TRANSFORMS_SYMBOLIC_SYMBOLICSHAPES_H_
