// pt2c's own passes (Passes.td). Pass names are kebab-case with the `pt2c-` prefix.
#ifndef PT2C_COMPILER_TRANSFORMS_PASSES_H
#define PT2C_COMPILER_TRANSFORMS_PASSES_H

#include <memory>
#include <string>
#include <vector>

#include "mlir/Pass/Pass.h"

namespace pt2c {

/// pt2c-functionalize: in-place aten ops and writes through views -> value semantics.
std::unique_ptr<mlir::Pass> createFunctionalizePass();

/// pt2c-decompose-aten-to-prim: aten ops -> prim ops (fails on an op it cannot rewrite).
std::unique_ptr<mlir::Pass> createDecomposeAtenToPrimPass();

/// pt2c-lower-prim-to-linalg: prim ops -> linalg/tensor/arith/math on tensors.
std::unique_ptr<mlir::Pass> createLowerPrimToLinalgPass();

/// The names of the aten ops (`aten.add.Tensor`) that pt2c-decompose-aten-to-prim has a
/// decomposition for, sorted (`pt2c-opt --pt2c-list-decompositions` prints them for
/// tools/docs/gen_op_coverage.py).
std::vector<std::string> decomposedAtenOps(mlir::MLIRContext &context);

/// Registers the passes above with the global registry (for pipelines given as text
/// and for pt2c-opt).
void registerPasses();

} // namespace pt2c

#endif // PT2C_COMPILER_TRANSFORMS_PASSES_H
