// Registration of pt2c's passes with MLIR's global pass registry.
#include "compiler/transforms/Passes.h"

#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace pt2c {
namespace {
#define GEN_PASS_REGISTRATION
#include "compiler/transforms/Passes.h.inc"
} // namespace

void registerPasses() { registerPt2cPasses(); }

} // namespace pt2c
