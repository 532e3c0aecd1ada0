// prim.pad -> a padded copy (see Padding.h), and the helpers that prim.convolution and
// prim.reduce_window share with it.
#include "compiler/transforms/lower/Padding.h"

#include "compiler/transforms/lower/LoweringPatterns.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {

Value extractScalar(OpBuilder &b, Location loc, Value rank0) {
  return b.create<tensor::ExtractOp>(loc, rank0, ValueRange{});
}

Value padWithScalar(OpBuilder &b, Location loc, Value input, Value scalar, ArrayRef<int64_t> low,
                    ArrayRef<int64_t> high) {
  auto isZero = [](int64_t p) { return p == 0; };
  if (llvm::all_of(low, isZero) && llvm::all_of(high, isZero))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      shape.push_back(type.getDimSize(d) + low[d] + high[d]);
      continue;
    }
    shape.push_back(ShapedType::kDynamic);
    Value extra = b.create<arith::ConstantIndexOp>(loc, low[d] + high[d]);
    dynamicSizes.push_back(b.create<arith::AddIOp>(loc, cast<Value>(sizes[d]), extra).getResult());
  }
  Value empty = b.create<tensor::EmptyOp>(loc, shape, type.getElementType(), dynamicSizes);
  Value filled = b.create<linalg::FillOp>(loc, ValueRange{scalar}, ValueRange{empty})->getResult(0);
  SmallVector<OpFoldResult> offsets, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t p : low)
    offsets.push_back(b.getIndexAttr(p));
  Value interior = b.create<tensor::ExtractSliceOp>(loc, filled, offsets, sizes, strides);
  Value copied =
      b.create<linalg::CopyOp>(loc, ValueRange{input}, ValueRange{interior})->getResult(0);
  return b.create<tensor::InsertSliceOp>(loc, copied, filled, offsets, sizes, strides);
}

Value windowedSize(OpBuilder &b, Location loc, Value input, int64_t dim, int64_t low, int64_t high,
                   int64_t window, int64_t stride, int64_t dilation) {
  Value size = b.create<tensor::DimOp>(loc, input, dim);
  Value shift = b.create<arith::ConstantIndexOp>(loc, low + high - dilation * (window - 1) - 1);
  Value span = b.create<arith::AddIOp>(loc, size, shift);
  Value steps = b.create<arith::DivSIOp>(loc, span, b.create<arith::ConstantIndexOp>(loc, stride));
  return b.create<arith::AddIOp>(loc, steps, b.create<arith::ConstantIndexOp>(loc, 1));
}

namespace {

struct PadLowering : OpConversionPattern<prim::PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(prim::PadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value scalar = extractScalar(rewriter, loc, adaptor.getPaddingValue());
    rewriter.replaceOp(op, padWithScalar(rewriter, loc, adaptor.getOperand(), scalar,
                                         op.getEdgePaddingLow(), op.getEdgePaddingHigh()));
    return success();
  }
};

} // namespace

void populatePadLowering(RewritePatternSet &patterns) {
  patterns.add<PadLowering>(patterns.getContext());
}

WindowTap windowTap(OpBuilder &b, Location loc, Value index, int64_t stride, int64_t offset,
                    int64_t size) {
  auto constant = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
  Value zero = constant(0);
  // One op per statement: the order of the ops is then the order written here.
  Value scaled = b.create<arith::MulIOp>(loc, index, constant(stride));
  Value pos = b.create<arith::AddIOp>(loc, scaled, constant(offset));
  Value notBefore = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, pos, zero);
  Value notAfter = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, pos, constant(size));
  Value inside = b.create<arith::AndIOp>(loc, notBefore, notAfter);
  Value atLeastZero = b.create<arith::MaxSIOp>(loc, pos, zero);
  Value clamped = b.create<arith::MinSIOp>(loc, atLeastZero, constant(size - 1));
  return {clamped, inside};
}

} // namespace pt2c::lower
