// pt2c-pointwise-convolution-products: a pointwise (1x1) convolution is a matrix product
// of its filter [O, C] with the input's channels, so it is written as one.
//
// Why: with TF32 off, cuDNN's legacy API serves f32 1x1 convolutions with
// implicit_convolve_sgemm, which took 1103 of EfficientNet-B0 fp32's 1673 us per pass
// on an H200 (49 such convolutions), while cuBLASLt's f32 GEMMs run the same products
// at library speed. A GEMM also takes bias, ReLU and residual epilogues where the
// result's last dim is the output channel.
//
// Forms (x the input, w [O, C, 1, ...] the filter as [O, C]):
// - channels-last x [N, spatial..., C]: dot(x, w) contracting C is the result
//   [N, spatial..., O] itself, row-major [N * spatial, C] x [C, O]^T;
// - torch's layout with one spatial position, x [N, C, 1...]: dot(x, w) is [N, 1..., O],
//   the same bytes as [N, O, 1...];
// - torch's layout with one image, x [1, C, spatial...]: dot(w, x) is [O, 1,
//   spatial...], the same bytes as [1, O, spatial...] (each row of the product is one
//   output channel's plane).
// A batch of several images in torch's layout would need a transpose: it stays a
// convolution.
#include "compiler/transforms/kernels/PointwiseConvolutions.h"

#include "ir/prim/PrimDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace pt2c {

#define GEN_PASS_DEF_POINTWISECONVOLUTIONPRODUCTSPASS
#include "compiler/transforms/Passes.h.inc"

namespace {

bool isPointwiseProduct(prim::ConvolutionOp op) {
  mlir::RankedTensorType lhs = op.getLhs().getType(), rhs = op.getRhs().getType();
  mlir::Type element = lhs.getElementType();
  if (!lhs.hasStaticShape() || !rhs.hasStaticShape() || !op.getType().hasStaticShape() ||
      op.getFeatureGroupCount() != 1 || op.getType().getElementType() != element ||
      !(element.isF32() || element.isF16() || element.isBF16()))
    return false;
  return op.isPointwise();
}

int64_t spatialSize(prim::ConvolutionOp op) {
  auto shape = op.getLhs().getType().getShape();
  int64_t size = 1;
  for (int64_t d : op.getChannelsLast() ? shape.drop_front().drop_back() : shape.drop_front(2))
    size *= d;
  return size;
}

// Whether the product can be written without moving bytes (see the forms above).
bool hasProductForm(prim::ConvolutionOp op) {
  return op.getChannelsLast() || spatialSize(op) == 1 || op.getLhs().getType().getDimSize(0) == 1;
}

void rewrite(prim::ConvolutionOp op) {
  mlir::IRRewriter rewriter(op.getContext());
  rewriter.setInsertionPoint(op);
  mlir::Location loc = op.getLoc();
  mlir::RankedTensorType rhsType = op.getRhs().getType();
  mlir::Value filter = rewriter.create<prim::ReshapeOp>(
      loc, rhsType.clone({rhsType.getDimSize(0), rhsType.getDimSize(1)}), op.getRhs(),
      mlir::ValueRange{});
  mlir::Value x = op.getLhs();
  int64_t channel = op.getChannelsLast() ? op.getLhs().getType().getRank() - 1 : 1;
  auto dims = [&](llvm::ArrayRef<int64_t> values) { return rewriter.getDenseI64ArrayAttr(values); };
  bool filterFirst = !op.getChannelsLast() && spatialSize(op) > 1;
  mlir::Value product =
      filterFirst ? rewriter.create<prim::DotGeneralOp>(loc, filter, x, dims({}), dims({}),
                                                        dims({1}), dims({channel}))
                  : rewriter.create<prim::DotGeneralOp>(loc, x, filter, dims({}), dims({}),
                                                        dims({channel}), dims({1}));
  if (product.getType() == op.getType())
    rewriter.replaceOp(op, product);
  else
    rewriter.replaceOpWithNewOp<prim::ReshapeOp>(op, op.getType(), product, mlir::ValueRange{});
}

struct PointwiseConvolutionProductsPass
    : impl::PointwiseConvolutionProductsPassBase<PointwiseConvolutionProductsPass> {
  using PointwiseConvolutionProductsPassBase::PointwiseConvolutionProductsPassBase;

  void runOnOperation() override {
    llvm::SmallVector<prim::ConvolutionOp> convs;
    getOperation().walk([&](prim::ConvolutionOp op) {
      bool half = !op.getType().getElementType().isF32();
      if (isPointwiseProduct(op) && hasProductForm(op) && (!half || halfPrecision))
        convs.push_back(op);
    });
    for (prim::ConvolutionOp op : convs)
      rewrite(op);
  }
};

} // namespace
} // namespace pt2c
