#include "compiler/codegen/SelectMinMax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace pt2c {

#define GEN_PASS_DEF_SELECTMINMAXPASS
#include "compiler/codegen/Passes.h.inc"

namespace {

// Whether `op` is a reduction's step, acc = op(acc, x) with acc loaded from and stored
// back to one element of a buffer (a max or min reduction after linalg-to-loops).
bool isAccumulation(mlir::Operation *op) {
  for (mlir::Value operand : op->getOperands()) {
    auto load = operand.getDefiningOp<mlir::memref::LoadOp>();
    if (!load)
      continue;
    for (mlir::Operation *user : op->getResult(0).getUsers()) {
      auto store = llvm::dyn_cast<mlir::memref::StoreOp>(user);
      if (store && store.getMemRef() == load.getMemRef() &&
          store.getIndices() == load.getIndices() && store->getBlock() == op->getBlock())
        return true;
    }
  }
  return false;
}

// x OP y -> (x PRED y || isnan(x)) ? x : y, except in reductions: LLVM vectorizes a
// reduction of llvm.maximum / llvm.minimum (16 lanes, then one horizontal step) but not
// of the select, whose loop-carried compare chain ran at 4 cycles an element (softmax's
// row max).
template <typename MinMaxOp, mlir::arith::CmpFPredicate kPredicate>
struct SelectForm : mlir::OpRewritePattern<MinMaxOp> {
  using mlir::OpRewritePattern<MinMaxOp>::OpRewritePattern;
  mlir::LogicalResult matchAndRewrite(MinMaxOp op, mlir::PatternRewriter &rewriter) const override {
    if (isAccumulation(op))
      return rewriter.notifyMatchFailure(op, "a reduction's step");
    mlir::Location loc = op.getLoc();
    mlir::Value x = op.getLhs(), y = op.getRhs();
    mlir::Value wins = rewriter.create<mlir::arith::CmpFOp>(loc, kPredicate, x, y);
    mlir::Value isNan =
        rewriter.create<mlir::arith::CmpFOp>(loc, mlir::arith::CmpFPredicate::UNO, x, x);
    mlir::Value pick = rewriter.create<mlir::arith::OrIOp>(loc, wins, isNan);
    rewriter.replaceOpWithNewOp<mlir::arith::SelectOp>(op, pick, x, y);
    return mlir::success();
  }
};

struct SelectMinMaxPass : impl::SelectMinMaxPassBase<SelectMinMaxPass> {
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    patterns.add<SelectForm<mlir::arith::MaximumFOp, mlir::arith::CmpFPredicate::OGT>,
                 SelectForm<mlir::arith::MinimumFOp, mlir::arith::CmpFPredicate::OLT>>(
        &getContext());
    if (mlir::failed(mlir::applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace pt2c
