// pt2c's passes over aten and prim (Passes.td; fold/, symbolic/ and kernels/ declare
// theirs in their own headers). Pass names are kebab-case with the `pt2c-` prefix.
#ifndef PT2C_COMPILER_TRANSFORMS_PASSES_H
#define PT2C_COMPILER_TRANSFORMS_PASSES_H

#include <memory>
#include <string>
#include <vector>

#include "mlir/Pass/Pass.h"

namespace pt2c {

// createFunctionalizePass, createDecomposeAtenToPrimPass, createLowerPrimToLinalgPass.
#define GEN_PASS_DECL_FUNCTIONALIZEPASS
#define GEN_PASS_DECL_DECOMPOSEATENTOPRIMPASS
#define GEN_PASS_DECL_LOWERPRIMTOLINALGPASS
#include "compiler/transforms/Passes.h.inc"

/// The names of the aten ops (`aten.add.Tensor`) that pt2c-decompose-aten-to-prim has a
/// decomposition for, sorted (`pt2c-opt --pt2c-list-decompositions` prints them for
/// tools/docs/gen_op_coverage.py).
std::vector<std::string> decomposedAtenOps(mlir::MLIRContext &context);

} // namespace pt2c

#endif // PT2C_COMPILER_TRANSFORMS_PASSES_H
