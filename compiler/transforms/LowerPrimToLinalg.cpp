// pt2c-lower-prim-to-linalg: a dialect conversion with every prim op but prim.symbol
// illegal; the
// patterns live in lower/, one file per group of prim ops.
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace pt2c {

#define GEN_PASS_DEF_LOWERPRIMTOLINALGPASS
#include "compiler/transforms/Passes.h.inc"

namespace {

struct LowerPrimToLinalgPass : impl::LowerPrimToLinalgPassBase<LowerPrimToLinalgPass> {
  void runOnOperation() override {
    mlir::MLIRContext *context = &getContext();
    mlir::ConversionTarget target(*context);
    target.addIllegalDialect<prim::PrimDialect>();
    // Sizes stay index arithmetic on prim.symbol: the CPU pipeline binds the symbols to
    // a kernel argument before (pt2c-bind-kernel-symbols), the GPU pipeline after, inside
    // each launch (pt2c-gpu-load-symbols).
    target.addLegalOp<prim::SymbolOp>();
    target.markUnknownOpDynamicallyLegal([](mlir::Operation *) { return true; });
    mlir::RewritePatternSet patterns(context);
    lower::populateElementwiseLowering(patterns);
    lower::populateDataMovementLowering(patterns);
    lower::populateDotGeneralLowering(patterns);
    lower::populateConvolutionLowering(patterns);
    lower::populateReduceWindowLowering(patterns);
    lower::populatePadLowering(patterns);
    lower::populateReduceLowering(patterns);
    lower::populateIndexingLowering(patterns);
    lower::populateDataDependentLowering(patterns);
    lower::populateNonMaxSuppressionLowering(patterns);
    lower::populateSortLowering(patterns);
    if (mlir::failed(mlir::applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace pt2c
