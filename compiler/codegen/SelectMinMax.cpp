#include "compiler/codegen/SelectMinMax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace pt2c {
namespace {

// x OP y -> (x PRED y || isnan(x)) ? x : y.
template <typename MinMaxOp, mlir::arith::CmpFPredicate kPredicate>
struct SelectForm : mlir::OpRewritePattern<MinMaxOp> {
  using mlir::OpRewritePattern<MinMaxOp>::OpRewritePattern;
  mlir::LogicalResult matchAndRewrite(MinMaxOp op, mlir::PatternRewriter& rewriter) const override {
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

struct SelectMinMaxPass
    : public mlir::PassWrapper<SelectMinMaxPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SelectMinMaxPass)
  llvm::StringRef getArgument() const override { return "pt2c-select-minmax"; }
  llvm::StringRef getDescription() const override {
    return "Float maximum/minimum as a compare and a select (NaN propagating)";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<mlir::arith::ArithDialect>();
  }
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    patterns.add<SelectForm<mlir::arith::MaximumFOp, mlir::arith::CmpFPredicate::OGT>,
                 SelectForm<mlir::arith::MinimumFOp, mlir::arith::CmpFPredicate::OLT>>(
        &getContext());
    if (mlir::failed(mlir::applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

}  // namespace

void registerSelectMinMaxPass() { mlir::PassRegistration<SelectMinMaxPass>(); }

}  // namespace pt2c
