// pt2c-recompute-at-extracts: see Passes.td. Linalg's elementwise fusion fuses a
// producer into the operands its consumer reads through indexing maps, not into
// tensor.extract reads in the consumer's body (a direct depthwise convolution's taps),
// so on the GPU the producer stayed a launch of its own.
#include "compiler/codegen/cuda/GpuPasses.h"

#include "compiler/codegen/cuda/ClonePayload.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace pt2c {

#define GEN_PASS_DEF_RECOMPUTEATEXTRACTSPASS
#include "compiler/codegen/cuda/Passes.h.inc"

namespace {

// Whether `op` is cheap enough to repeat at every read: integer and float arithmetic,
// comparisons, selects and conversions, not divisions or math functions. Measured on an
// H100: EfficientNet-B0 fp16's bias + SiLU (an exp and a division per element) computed
// at each of a depthwise convolution's 9 or 25 taps made those kernels 2x slower, more
// than the launch and the temporary it saved (396.7 against 364.7 us of GPU time).
bool isCheap(mlir::Operation &op) {
  return op.getDialect()->getNamespace() == "arith" &&
         !llvm::isa<mlir::arith::DivFOp, mlir::arith::DivSIOp, mlir::arith::DivUIOp,
                    mlir::arith::RemFOp, mlir::arith::RemSIOp, mlir::arith::RemUIOp,
                    mlir::arith::CeilDivSIOp, mlir::arith::CeilDivUIOp, mlir::arith::FloorDivSIOp>(
             op);
}

// A generic that computes each element of its one result from its inputs alone, cheaply:
// all loops parallel, the result indexed by a permutation of them, inputs by projected
// permutations (so an element's operands are picked from its indices), a payload of
// cheap ops (isCheap) that does not read the result's initial value.
bool isRecomputable(mlir::linalg::GenericOp generic) {
  if (!generic.hasPureTensorSemantics() || generic->getNumResults() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  mlir::OpOperand *init = generic.getDpsInitOperand(0);
  if (!generic.getMatchingIndexingMap(init).isPermutation() ||
      !generic.getMatchingBlockArgument(init).use_empty())
    return false;
  for (mlir::OpOperand *input : generic.getDpsInputOperands())
    if (!generic.getMatchingIndexingMap(input).isProjectedPermutation())
      return false;
  return llvm::all_of(generic.getBody()->without_terminator(), [](mlir::Operation &op) {
    return llvm::isa<mlir::linalg::IndexOp>(op) || (isCheap(op) && mlir::isMemoryEffectFree(&op));
  });
}

struct RecomputeAtExtract : mlir::OpRewritePattern<mlir::tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult matchAndRewrite(mlir::tensor::ExtractOp extract,
                                      mlir::PatternRewriter &rewriter) const override {
    auto generic = extract.getTensor().getDefiningOp<mlir::linalg::GenericOp>();
    // Only where the generic goes once its extracts do: a generic that also writes its
    // result for another reader would be computed twice.
    if (!generic || !isRecomputable(generic) ||
        !llvm::all_of(generic->getUsers(), [](mlir::Operation *user) {
          return llvm::isa<mlir::tensor::ExtractOp>(user);
        }))
      return mlir::failure();
    mlir::Location loc = extract.getLoc();
    // The loop indices of the element read: the result's map is a permutation.
    mlir::AffineMap resultMap = generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
    llvm::SmallVector<mlir::Value> ivs(generic.getNumLoops());
    for (auto [j, index] : llvm::enumerate(extract.getIndices()))
      ivs[resultMap.getDimPosition(j)] = index;
    mlir::IRMapping mapping;
    for (mlir::OpOperand *input : generic.getDpsInputOperands()) {
      mlir::Value value = input->get();
      if (llvm::isa<mlir::RankedTensorType>(value.getType())) {
        llvm::SmallVector<mlir::Value> at;
        mlir::AffineMap map = generic.getMatchingIndexingMap(input);
        for (unsigned j = 0; j < map.getNumResults(); ++j)
          at.push_back(ivs[map.getDimPosition(j)]);
        value = rewriter.create<mlir::tensor::ExtractOp>(loc, value, at);
      }
      mapping.map(generic.getMatchingBlockArgument(input), value);
    }
    clonePayload(rewriter, generic, ivs, mapping);
    rewriter.replaceOp(extract,
                       mapping.lookupOrDefault(generic.getBody()->getTerminator()->getOperand(0)));
    if (generic->use_empty())
      rewriter.eraseOp(generic);
    return mlir::success();
  }
};

struct RecomputeAtExtractsPass : impl::RecomputeAtExtractsPassBase<RecomputeAtExtractsPass> {
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    patterns.add<RecomputeAtExtract>(&getContext());
    if (mlir::failed(mlir::applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

} // namespace pt2c
