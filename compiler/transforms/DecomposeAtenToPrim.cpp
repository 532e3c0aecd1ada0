// pt2c-decompose-aten-to-prim: a dialect conversion with every aten op illegal, so that
// an op without an applicable decomposition is reported by name and nothing is left
// half-rewritten.
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "ir/aten/AtenDialect.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace pt2c {

#define GEN_PASS_DEF_DECOMPOSEATENTOPRIMPASS
#include "compiler/transforms/Passes.h.inc"

void decompose::populateAtenToPrimDecompositions(mlir::RewritePatternSet &patterns) {
  populateLowPrecisionDecompositions(patterns);
  DecompositionSet set(patterns);
  populatePointwiseDecompositions(set);
  populateDivisionDecompositions(set);
  populateDistanceDecompositions(set);
  populateGridSampleDecompositions(set);
  populateCol2ImDecompositions(set);
  populateIm2ColDecompositions(set);
  populateExpertRoutingDecompositions(set);
  populateDataDependentDecompositions(set);
  populateNormDecompositions(set);
  populateLinearAlgebraDecompositions(set);
  populateShapeDecompositions(set);
  populateConvolutionDecompositions(set);
  populateBatchNormDecompositions(set);
  populatePoolingDecompositions(set);
  populateReductionDecompositions(set);
  populateActivationDecompositions(set);
  populatePaddingDecompositions(set);
  populateInPlaceFormDecompositions(set);
  populateNormalizationDecompositions(set);
  populateAttentionDecompositions(set);
  populateIndexingDecompositions(set);
  populateMaskingDecompositions(set);
  populateFactoryDecompositions(set);
  populateResizeDecompositions(set);
  populateArgReduceDecompositions(set);
  populateTopKDecompositions(set);
  populateScatterWriteDecompositions(set);
  populateScatterReduceDecompositions(set);
  populateMaskedScatterDecompositions(set);
  populateEmbeddingBagDecompositions(set);
}

namespace {

struct DecomposeAtenToPrimPass : impl::DecomposeAtenToPrimPassBase<DecomposeAtenToPrimPass> {
  void runOnOperation() override {
    mlir::MLIRContext *context = &getContext();
    mlir::ConversionTarget target(*context);
    target.addIllegalDialect<aten::AtenDialect>();
    target.markUnknownOpDynamicallyLegal([](mlir::Operation *) { return true; });
    mlir::RewritePatternSet patterns(context);
    decompose::populateAtenToPrimDecompositions(patterns);
    decompose::FailureLog log;
    mlir::ScopedDiagnosticHandler explain(context, [&](mlir::Diagnostic &diag) {
      log.explain(diag);
      return mlir::failure(); // passed on, with the reason appended
    });
    if (mlir::failed(mlir::applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

std::vector<std::string> decomposedAtenOps(mlir::MLIRContext &context) {
  mlir::RewritePatternSet patterns(&context);
  decompose::populateAtenToPrimDecompositions(patterns);
  std::vector<std::string> names;
  for (const std::unique_ptr<mlir::RewritePattern> &pattern : patterns.getNativePatterns())
    if (std::optional<mlir::OperationName> root = pattern->getRootKind())
      names.push_back(root->getStringRef().str());
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

} // namespace pt2c
