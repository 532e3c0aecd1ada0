#include "compiler/codegen/ApproximateMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace pt2c {

#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "compiler/codegen/Passes.h.inc"

namespace {

struct ApproximateMathPass : impl::ApproximateMathPassBase<ApproximateMathPass> {
  using ApproximateMathPassBase::ApproximateMathPassBase;

  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    // powf first becomes exp and log, which the approximations then replace.
    if (expandPow)
      mlir::populateExpandPowFPattern(patterns);
    mlir::populateMathPolynomialApproximationPatterns(patterns);
    if (mlir::failed(mlir::applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace pt2c
