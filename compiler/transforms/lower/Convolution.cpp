// prim.convolution -> zero-padded input (Padding.h) + one linalg.generic for every
// rank, stride, dilation and group count.
//
// The loop order is chosen for plain loops (convert-linalg-to-loops keeps it): batch,
// [group,] output channel, input channel, kernel taps, then the output's spatial dims,
// innermost. The innermost loop then walks the output row and the input row with unit
// stride (for stride 1) while the weight stays fixed, which LLVM vectorizes; the
// named linalg conv ops put the short kernel loops innermost instead.
//
// With groups, the weight [O, C/G, k...] is viewed as [G, O/G, C/G, k...] and the
// result as [N, G, O/G, out...], so that input channel g * C/G + c is an affine
// function of the loops (no division).
//
// A channels-last convolution is lowered between two transposes (its library step's
// fallback only).
//
// A pointwise convolution (1x1 kernel, stride 1, no padding) is a matrix product over
// the flattened spatial dims: it first becomes a 1-D convolution over [N, C, H*W], so
// that the innermost loop runs H*W times rather than W (7 in ResNet's last stage).
#include "compiler/transforms/lower/LowPrecision.h"
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "compiler/transforms/lower/Padding.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

struct ConvolutionLowering : OpConversionPattern<prim::ConvolutionOp> {
  explicit ConvolutionLowering(MLIRContext *context) : OpConversionPattern(context) {
    // A pointwise convolution is rewritten into a 1-D one that this pattern lowers.
    setHasBoundedRewriteRecursion();
  }

  LogicalResult matchAndRewrite(prim::ConvolutionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType lhsType = op.getLhs().getType(), rhsType = op.getRhs().getType(),
                     outType = op.getType();
    Type elementType = outType.getElementType();
    if (!isa<FloatType>(elementType) && !elementType.isSignlessInteger())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    // Channels and kernel sizes come from weights: static in every traced model.
    if (!rhsType.hasStaticShape() || lhsType.isDynamicDim(1))
      return rewriter.notifyMatchFailure(op, "dynamic channel or kernel sizes");
    int64_t spatial = lhsType.getRank() - 2;
    if (op.isDirectDepthwise()) {
      rewriter.replaceOp(op, directDepthwise(rewriter, op, adaptor));
      return success();
    }
    if (op.getChannelsLast()) {
      rewriter.replaceOp(op, throughTorchLayout(rewriter, op, adaptor));
      return success();
    }
    if (spatial > 1 && op.isPointwise()) {
      rewriter.replaceOp(op, flattenedPointwise(rewriter, op, adaptor));
      return success();
    }
    int64_t groups = op.getFeatureGroupCount();
    int64_t outPerGroup = rhsType.getDimSize(0) / groups;
    int64_t inPerGroup = rhsType.getDimSize(1);
    ArrayRef<int64_t> strides = op.getWindowStrides(), dilations = op.getRhsDilation();

    SmallVector<int64_t> low = {0, 0}, high = {0, 0};
    llvm::append_range(low, op.getPaddingLow());
    llvm::append_range(high, op.getPaddingHigh());
    Value zero = rewriter.create<arith::ConstantOp>(loc, rewriter.getZeroAttr(elementType));
    Value lhs = padWithScalar(rewriter, loc, adaptor.getLhs(), zero, low, high);

    // Loops: n, [g,] o, c, k_0..k_{s-1}, x_0..x_{s-1}.
    bool grouped = groups > 1;
    int64_t n = 0, g = 1, o = grouped ? 2 : 1, c = o + 1, k0 = c + 1, x0 = k0 + spatial;
    int64_t numLoops = x0 + spatial;
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, context); };
    SmallVector<AffineExpr> lhsExprs = {dim(n), grouped ? dim(g) * inPerGroup + dim(c) : dim(c)};
    SmallVector<AffineExpr> rhsExprs, outExprs = {dim(n)};
    if (grouped) {
      rhsExprs.push_back(dim(g));
      outExprs.push_back(dim(g));
    }
    rhsExprs.append({dim(o), dim(c)});
    outExprs.push_back(dim(o));
    for (int64_t i = 0; i < spatial; ++i) {
      lhsExprs.push_back(dim(x0 + i) * strides[i] + dim(k0 + i) * dilations[i]);
      rhsExprs.push_back(dim(k0 + i));
      outExprs.push_back(dim(x0 + i));
    }
    SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, lhsExprs, context),
                                   AffineMap::get(numLoops, 0, rhsExprs, context),
                                   AffineMap::get(numLoops, 0, outExprs, context)};
    SmallVector<utils::IteratorType> iterators(numLoops, utils::IteratorType::parallel);
    for (int64_t i = c; i < x0; ++i)
      iterators[i] = utils::IteratorType::reduction;

    // Destination: [N, (G, O/G | O), out...], zero-filled.
    Value rhs = adaptor.getRhs();
    SmallVector<int64_t> accShape = {outType.getDimSize(0)};
    if (grouped) {
      accShape.append({groups, outPerGroup});
      rhs = expandDim(rewriter, loc, rhs, 0, {groups, outPerGroup});
    } else {
      accShape.push_back(outType.getDimSize(1));
    }
    llvm::append_range(accShape, outType.getShape().drop_front(2));
    Type accElementType = accumulatorType(elementType);
    auto accType = RankedTensorType::get(accShape, accElementType);
    SmallVector<Value> dynamicSizes;
    if (outType.isDynamicDim(0))
      dynamicSizes.push_back(rewriter.create<tensor::DimOp>(loc, adaptor.getLhs(), 0));
    for (int64_t i = 0; i < spatial; ++i)
      if (outType.isDynamicDim(2 + i))
        dynamicSizes.push_back(windowedSize(rewriter, loc, adaptor.getLhs(), 2 + i, low[2 + i],
                                            high[2 + i], rhsType.getDimSize(2 + i), strides[i],
                                            dilations[i]));
    Value empty = emptyTensor(rewriter, loc, accType, dynamicSizes);
    Value accZero =
        accElementType == elementType
            ? zero
            : rewriter.create<arith::ConstantOp>(loc, rewriter.getZeroAttr(accElementType));
    Value acc =
        rewriter.create<linalg::FillOp>(loc, ValueRange{accZero}, ValueRange{empty})->getResult(0);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{accType}, ValueRange{lhs, rhs}, ValueRange{acc}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value sum;
          if (isa<FloatType>(elementType)) {
            Value product = b.create<arith::MulFOp>(l, extendTo(b, l, args[0], accElementType),
                                                    extendTo(b, l, args[1], accElementType));
            sum = b.create<arith::AddFOp>(l, args[2], product);
          } else {
            Value product = b.create<arith::MulIOp>(l, args[0], args[1]);
            sum = b.create<arith::AddIOp>(l, args[2], product);
          }
          b.create<linalg::YieldOp>(l, sum);
        });
    Value result = generic->getResult(0);
    if (grouped) { // [N, G, O/G, out...] -> [N, O, out...]
      SmallVector<ReassociationIndices> groupsOfDims = {{0}, {1, 2}};
      for (int64_t i = 0; i < spatial; ++i)
        groupsOfDims.push_back({3 + i});
      result = rewriter.create<tensor::CollapseShapeOp>(loc, outType.clone(accElementType), result,
                                                        groupsOfDims);
    }
    rewriter.replaceOp(op, roundAccumulator(rewriter, loc, result, outType));
    return success();
  }

  /// The pointwise `op` as a 1-D convolution over the flattened spatial dims (which
  /// this pattern then lowers), its result unflattened.
  static Value flattenedPointwise(OpBuilder &b, prim::ConvolutionOp op, OpAdaptor adaptor) {
    Location loc = op.getLoc();
    int64_t rank = op.getType().getRank();
    SmallVector<ReassociationIndices> groups = {{0}, {1}, {}};
    for (int64_t d = 2; d < rank; ++d)
      groups.back().push_back(d);
    Value lhs = b.create<tensor::CollapseShapeOp>(loc, adaptor.getLhs(), groups);
    Value rhs = b.create<tensor::CollapseShapeOp>(loc, adaptor.getRhs(), groups);
    Value flat = b.create<prim::ConvolutionOp>(loc, lhs, rhs, ArrayRef<int64_t>{1},
                                               ArrayRef<int64_t>{0}, ArrayRef<int64_t>{0},
                                               ArrayRef<int64_t>{1}, op.getFeatureGroupCount());
    return b.create<tensor::ExpandShapeOp>(loc, op.getType(), flat, groups);
  }

  /// The channels-last `op` computed in torch's layout: its input transposed to
  /// [N, C, spatial...], the convolution (which this pattern then lowers), its result
  /// transposed back. This is the fallback of a library step that reads channels-last
  /// operands directly; the transposes stay inside its kernels.
  static Value throughTorchLayout(OpBuilder &b, prim::ConvolutionOp op, OpAdaptor adaptor) {
    Location loc = op.getLoc();
    int64_t rank = op.getType().getRank();
    Value lhs = b.create<prim::TransposeOp>(loc, adaptor.getLhs(),
                                            prim::ConvolutionOp::fromChannelsLast(rank));
    Value conv = b.create<prim::ConvolutionOp>(loc, lhs, adaptor.getRhs(), op.getWindowStrides(),
                                               op.getPaddingLow(), op.getPaddingHigh(),
                                               op.getRhsDilation(), op.getFeatureGroupCount());
    return b.create<prim::TransposeOp>(loc, conv, prim::ConvolutionOp::toChannelsLast(rank));
  }

  /// A depthwise convolution (isDirectDepthwise) as one elementwise loop over the output
  /// ([N, out..., C] channels-last, [N, C, out...] in torch's layout): each element sums
  /// its taps, unrolled, each read at clamped indices and counted only inside the input
  /// (the zero padding is never written out). Neighbouring threads take neighbouring
  /// channels (channels-last) or neighbouring columns, so every tap's reads are
  /// contiguous (strided by the window's stride for columns).
  static Value directDepthwise(OpBuilder &b, prim::ConvolutionOp op, OpAdaptor adaptor) {
    Location loc = op.getLoc();
    RankedTensorType out = op.getType(), in = op.getLhs().getType();
    ArrayRef<int64_t> kernel = op.getRhs().getType().getShape().drop_front(2);
    int64_t rank = out.getRank(), spatial = rank - 2;
    bool channelsLast = op.getChannelsLast();
    // Dims of the channel and of the first spatial dim, in the input and the output.
    int64_t channelDim = channelsLast ? rank - 1 : 1, spatial0 = channelsLast ? 1 : 2;
    Type accType = accumulatorType(out.getElementType());
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    auto generic = b.create<linalg::GenericOp>(
        loc, TypeRange{out}, ValueRange{}, ValueRange{emptyTensor(b, loc, out, {})}, maps,
        iterators, [&](OpBuilder &nested, Location l, ValueRange) {
          auto constant = [&](int64_t v) { return nested.create<arith::ConstantIndexOp>(l, v); };
          SmallVector<Value> index;
          for (int64_t d = 0; d < rank; ++d)
            index.push_back(nested.create<linalg::IndexOp>(l, d));
          Value channel = index[channelDim], zero = constant(0);
          Value sum = nested.create<arith::ConstantOp>(l, nested.getZeroAttr(accType));
          Value accZero = sum;
          int64_t taps = 1;
          for (int64_t k : kernel)
            taps *= k;
          for (int64_t tap = 0; tap < taps; ++tap) {
            SmallVector<Value> at = {index[0]}, weightAt = {channel, zero};
            if (!channelsLast)
              at.push_back(channel);
            Value inside;
            for (int64_t d = 0, rest = tap; d < spatial; ++d) {
              int64_t stride = 1;
              for (int64_t e = d + 1; e < spatial; ++e)
                stride *= kernel[e];
              int64_t k = rest / stride;
              rest %= stride;
              WindowTap t = windowTap(nested, l, index[spatial0 + d], op.getWindowStrides()[d],
                                      k * op.getRhsDilation()[d] - op.getPaddingLow()[d],
                                      in.getDimSize(spatial0 + d));
              inside =
                  inside ? nested.create<arith::AndIOp>(l, inside, t.inside).getResult() : t.inside;
              at.push_back(t.clamped);
              weightAt.push_back(constant(k));
            }
            if (channelsLast)
              at.push_back(channel);
            Value x = extendTo(nested, l, nested.create<tensor::ExtractOp>(l, lhs, at), accType);
            Value w =
                extendTo(nested, l, nested.create<tensor::ExtractOp>(l, rhs, weightAt), accType);
            Value product = nested.create<arith::MulFOp>(l, x, w);
            product = nested.create<arith::SelectOp>(l, inside, product, accZero);
            sum = nested.create<arith::AddFOp>(l, sum, product);
          }
          if (sum.getType() != out.getElementType())
            sum = nested.create<arith::TruncFOp>(l, out.getElementType(), sum);
          nested.create<linalg::YieldOp>(l, sum);
        });
    return generic.getResult(0);
  }

  /// `value` (static shape) with dim `d` split into `sizes`.
  static Value expandDim(OpBuilder &b, Location loc, Value value, int64_t d,
                         ArrayRef<int64_t> sizes) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(type.getShape().take_front(d));
    llvm::append_range(shape, sizes);
    llvm::append_range(shape, type.getShape().drop_front(d + 1));
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0, next = 0; i < type.getRank(); ++i) {
      ReassociationIndices group;
      for (int64_t j = 0; j < (i == d ? (int64_t)sizes.size() : 1); ++j)
        group.push_back(next++);
      groups.push_back(group);
    }
    return b.create<tensor::ExpandShapeOp>(loc, RankedTensorType::get(shape, type.getElementType()),
                                           value, groups);
  }
};

} // namespace

void populateConvolutionLowering(RewritePatternSet &patterns) {
  patterns.add<ConvolutionLowering>(patterns.getContext());
}

} // namespace pt2c::lower
