// pt2c-sink-reshapes: see Passes.td. A pass of its own, not a canonicalization: it runs
// after weight folding has narrowed f16 math written as convert(f32 op on conversions),
// which a reshape moved between the op and its conversions would have kept from
// narrowing (DeiT's residual adds stayed f32 kernels of their own).
#include "compiler/transforms/kernels/SinkReshapes.h"

#include "ir/prim/LayoutSinking.h"
#include "ir/prim/PrimDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace pt2c {

#define GEN_PASS_DEF_SINKRESHAPESPASS
#include "compiler/transforms/Passes.h.inc"

namespace {

struct SinkReshapesPass : impl::SinkReshapesPassBase<SinkReshapesPass> {
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    prim::populateReshapeSinkingPatterns(patterns);
    if (mlir::failed(mlir::applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

} // namespace pt2c
