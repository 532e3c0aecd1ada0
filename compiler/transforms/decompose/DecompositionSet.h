// The registry of aten -> prim decompositions. Each file of this folder decomposes one
// group of ops and exposes one populate function; adding an op is one `add` call with
// a function that builds its prim formula through PrimBuilder.
#ifndef PT2C_COMPILER_TRANSFORMS_DECOMPOSE_DECOMPOSITIONSET_H
#define PT2C_COMPILER_TRANSFORMS_DECOMPOSE_DECOMPOSITIONSET_H

#include "compiler/transforms/decompose/FailureLog.h"
#include "compiler/transforms/decompose/PrimBuilder.h"
#include "ir/aten/AtenDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace pt2c::decompose {

/// Builds the replacement of a single-result aten op; a null Value (or a failed
/// PrimBuilder) means the decomposition does not apply.
template <typename OpT> using Decomposition = mlir::Value (*)(OpT op, PrimBuilder &b);

/// Why an op whose argument `arg` follows a dynamic dimension did not decompose.
inline std::string symbolicArgumentMessage(const std::string &arg) {
  return "argument '" + arg +
         "' follows a dynamic dimension (model.py's dynamic_shapes), "
         "which this op does not support yet";
}

/// Replaces `op` by what its decomposition built (one value per result, each non-null):
/// unless the builder met a dynamic dimension it does not handle, or a value's type is
/// not the one the trace fixed, which a decomposition must reproduce exactly.
inline mlir::LogicalResult replaceDecomposed(mlir::Operation *op, mlir::PatternRewriter &rewriter,
                                             const PrimBuilder &b, mlir::ValueRange results) {
  if (std::string arg = b.unhandledSymbolicArgument(); !arg.empty())
    return decompositionFailed(rewriter, op, symbolicArgumentMessage(arg));
  for (auto [result, original] : llvm::zip_equal(results, op->getResults()))
    if (!result || result.getType() != original.getType())
      return decompositionFailed(rewriter, op, "decomposition produced the wrong type");
  rewriter.replaceOp(op, results);
  return mlir::success();
}

/// Runs one Decomposition as a rewrite pattern.
template <typename OpT> class DecompositionPattern : public mlir::OpRewritePattern<OpT> {
public:
  DecompositionPattern(mlir::MLIRContext *context, Decomposition<OpT> decompose)
      : mlir::OpRewritePattern<OpT>(context), decompose(decompose) {}

  mlir::LogicalResult matchAndRewrite(OpT op, mlir::PatternRewriter &rewriter) const override {
    PrimBuilder b(rewriter, op);
    mlir::Value result = decompose(op, b);
    if (b.failed() || !result)
      return decompositionFailed(rewriter, op, b.failureReason());
    return replaceDecomposed(op, rewriter, b, result);
  }

private:
  Decomposition<OpT> decompose;
};

/// Builds the replacements of every result of a multi-result aten op (one Value per
/// result, in order); an empty vector (or a failed PrimBuilder) means the
/// decomposition does not apply. Results nobody uses may still be built: canonicalize
/// removes them.
template <typename OpT>
using MultiDecomposition = llvm::SmallVector<mlir::Value> (*)(OpT op, PrimBuilder &b);

/// Runs one MultiDecomposition as a rewrite pattern.
template <typename OpT> class MultiDecompositionPattern : public mlir::OpRewritePattern<OpT> {
public:
  MultiDecompositionPattern(mlir::MLIRContext *context, MultiDecomposition<OpT> decompose)
      : mlir::OpRewritePattern<OpT>(context), decompose(decompose) {}

  mlir::LogicalResult matchAndRewrite(OpT op, mlir::PatternRewriter &rewriter) const override {
    PrimBuilder b(rewriter, op);
    llvm::SmallVector<mlir::Value> results = decompose(op, b);
    if (b.failed() || results.size() != op->getNumResults())
      return decompositionFailed(rewriter, op, b.failureReason());
    return replaceDecomposed(op, rewriter, b, results);
  }

private:
  MultiDecomposition<OpT> decompose;
};

class DecompositionSet {
public:
  explicit DecompositionSet(mlir::RewritePatternSet &patterns) : patterns(patterns) {}

  template <typename OpT> DecompositionSet &add(Decomposition<OpT> decompose) {
    patterns.add<DecompositionPattern<OpT>>(patterns.getContext(), decompose);
    return *this;
  }

  template <typename OpT> DecompositionSet &add(MultiDecomposition<OpT> decompose) {
    patterns.add<MultiDecompositionPattern<OpT>>(patterns.getContext(), decompose);
    return *this;
  }

private:
  mlir::RewritePatternSet &patterns;
};

// One per file of this folder.
void populatePointwiseDecompositions(DecompositionSet &set);
/// fmod, remainder, div's rounding modes (Division.cpp).
void populateDivisionDecompositions(DecompositionSet &set);
/// cdist and pdist (Distances.cpp).
void populateDistanceDecompositions(DecompositionSet &set);
/// grid_sampler_2d (GridSample.cpp).
void populateGridSampleDecompositions(DecompositionSet &set);
/// col2im (Col2Im.cpp).
void populateCol2ImDecompositions(DecompositionSet &set);
/// im2col (Im2Col.cpp).
void populateIm2ColDecompositions(DecompositionSet &set);
/// histc and _grouped_mm of mixture-of-experts routing (ExpertRouting.cpp).
void populateExpertRoutingDecompositions(DecompositionSet &set);
/// nonzero and torchvision::nms, whose row counts the run binds (DataDependent.cpp).
void populateDataDependentDecompositions(DecompositionSet &set);
/// linalg_vector_norm, _weight_norm_interface (Norms.cpp).
void populateNormDecompositions(DecompositionSet &set);
void populateLinearAlgebraDecompositions(DecompositionSet &set);
void populateShapeDecompositions(DecompositionSet &set);
void populateConvolutionDecompositions(DecompositionSet &set);
void populateBatchNormDecompositions(DecompositionSet &set);
void populatePoolingDecompositions(DecompositionSet &set);
void populateReductionDecompositions(DecompositionSet &set);
void populateActivationDecompositions(DecompositionSet &set);
void populatePaddingDecompositions(DecompositionSet &set);
/// fill, zero, index_copy: functional forms of in-place ops (functionalize/ makes them).
void populateInPlaceFormDecompositions(DecompositionSet &set);
void populateNormalizationDecompositions(DecompositionSet &set);
void populateAttentionDecompositions(DecompositionSet &set);
void populateIndexingDecompositions(DecompositionSet &set);
void populateMaskingDecompositions(DecompositionSet &set);
void populateFactoryDecompositions(DecompositionSet &set);
void populateResizeDecompositions(DecompositionSet &set);
void populateArgReduceDecompositions(DecompositionSet &set);
void populateTopKDecompositions(DecompositionSet &set);
/// index_put, index_fill, index_add, scatter(_add), max_unpool2d, diagonal
/// (ScatterWrites.cpp).
void populateScatterWriteDecompositions(DecompositionSet &set);
void populateScatterReduceDecompositions(DecompositionSet &set);
void populateMaskedScatterDecompositions(DecompositionSet &set);
void populateEmbeddingBagDecompositions(DecompositionSet &set);

/// f16/bf16 ops rebuilt in f32 (LowPrecision.cpp); not a DecompositionSet entry: it
/// matches any aten op, before the op's own decomposition.
void populateLowPrecisionDecompositions(mlir::RewritePatternSet &patterns);

/// All decompositions.
void populateAtenToPrimDecompositions(mlir::RewritePatternSet &patterns);

} // namespace pt2c::decompose

#endif // PT2C_COMPILER_TRANSFORMS_DECOMPOSE_DECOMPOSITIONSET_H
