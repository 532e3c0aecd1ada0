// pt2c-channels-last-convolutions: half-precision 2-d convolutions of a CUDA model compute
// channels-last, between two transposes that the canonicalizer then moves and cancels.
//
// Why: cuDNN's tensor-core convolutions read and write NHWC. With the model's NCHW tensors
// between them, every convolution that our own kernels feed or read (EfficientNet's SiLU,
// squeeze-excitation and scale; a bias that is not fused) paid a transpose of its input
// and one of its output at run time (cudnnTransformTensor through scratch memory, 2
// launches of the 5 around each of EfficientNet's convolutions). Written as
//   transpose(conv_channels_last(transpose(x, to NHWC), w), to NCHW)
// the transposes sink below the elementwise math and reductions that read the result
// (ir/prim/LayoutSinking.cpp) until they meet the next convolution's transpose and
// cancel: our kernels then read and write NHWC as well, and only the model's input and
// whatever leaves the convolutions for good (the classifier's pooled features) are
// transposed, each once.
//
// f32 keeps torch's layout (cuDNN's FMA kernels are fast on NCHW, and TF32 stays off);
// so do convolutions whose filter is computed (cuDNN serves channels-last ones only with
// a weight, which the runtime copies to KRSC order once) and dynamic shapes.
#include "compiler/transforms/kernels/ChannelsLastConvolutions.h"

#include "compiler/transforms/fold/FoldWeights.h"
#include "ir/prim/PrimDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace pt2c {

#define GEN_PASS_DEF_CHANNELSLASTCONVOLUTIONSPASS
#include "compiler/transforms/Passes.h.inc"

namespace {

bool wantsChannelsLast(prim::ConvolutionOp op) {
  auto lhs = op.getLhs().getType();
  mlir::Type element = lhs.getElementType();
  return !op.getChannelsLast() && lhs.getRank() == 4 && lhs.hasStaticShape() &&
         op.getRhs().getType().hasStaticShape() && op.getType().hasStaticShape() &&
         (element.isF16() || element.isBF16()) && isWeightOnly(op.getRhs());
}

void rewrite(prim::ConvolutionOp op) {
  mlir::IRRewriter rewriter(op.getContext());
  rewriter.setInsertionPoint(op);
  mlir::Location loc = op.getLoc();
  int64_t rank = op.getType().getRank();
  mlir::Value x = rewriter.create<prim::TransposeOp>(loc, op.getLhs(),
                                                     prim::ConvolutionOp::toChannelsLast(rank));
  mlir::Value conv = rewriter.create<prim::ConvolutionOp>(
      loc, x, op.getRhs(), op.getWindowStrides(), op.getPaddingLow(), op.getPaddingHigh(),
      op.getRhsDilation(), op.getFeatureGroupCount(), /*channels_last=*/true);
  rewriter.replaceOpWithNewOp<prim::TransposeOp>(op, conv,
                                                 prim::ConvolutionOp::fromChannelsLast(rank));
}

struct ChannelsLastConvolutionsPass
    : impl::ChannelsLastConvolutionsPassBase<ChannelsLastConvolutionsPass> {
  void runOnOperation() override {
    llvm::SmallVector<prim::ConvolutionOp> convs;
    getOperation().walk([&](prim::ConvolutionOp op) {
      if (wantsChannelsLast(op))
        convs.push_back(op);
    });
    for (prim::ConvolutionOp op : convs)
      rewrite(op);
  }
};

} // namespace
} // namespace pt2c
