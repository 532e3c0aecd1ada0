// prim.reduce_window -> operand padded with `init` (Padding.h) + one linalg.generic
// with one loop per result dim and one reduction loop per windowed dim (window size
// > 1). The window loops nest inside the outer result dims but outside the last one,
// so the innermost loop runs along the result's contiguous dim and each step is
// independent: out[.., x] = op(out[.., x], in[.., x*s + k]) vectorizes along x (a
// pooling of 112x112 planes: 16 outputs a step), where a window loop innermost is a
// chain of scalar steps per output. On the GPU (a module marked pt2c.fused_ops) the
// window loops go innermost instead: every result dim is then a parallel loop that maps
// onto threads, where a parallel loop inside the window loops runs in one thread (a max
// pooling's 64x56x56 outputs had run as 3584 threads of 56 outputs x 9 taps each, 180 us
// of ResNet-50's 511 on an H100). Window loops get their extents from an unused
// [window...] operand, as linalg's named pooling ops do: an affine map like x*s + w*d
// alone does not tell linalg how far w runs.
//
// On the GPU, a window of static shapes and at most ConvolutionOp::kMaxDirectTaps taps
// is read directly instead: one elementwise loop over the result whose body combines
// the taps, unrolled, each read at clamped indices and replaced by `init` outside the
// input. The padded copy (a fill and a copy) and the result's fill were three launches
// of their own before the pooling (ResNet's stem max pooling: four launches, now one).
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "compiler/transforms/lower/Padding.h"
#include "compiler/transforms/lower/ScalarOps.h"
#include "ir/contract/ModelContract.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

int64_t windowTaps(prim::ReduceWindowOp op) {
  int64_t taps = 1;
  for (int64_t w : op.getWindowDimensions())
    taps *= w;
  return taps;
}

// Whether `op` is read directly (see the file comment): the GPU, static shapes, no more
// taps than the direct depthwise convolution unrolls (a 7x7 window).
bool isDirectWindow(prim::ReduceWindowOp op) {
  return inFusedOpsModule(op) && op.getOperand().getType().hasStaticShape() &&
         op.getType().hasStaticShape() && windowTaps(op) <= prim::ConvolutionOp::kMaxDirectTaps;
}

Value directWindow(OpBuilder &b, prim::ReduceWindowOp op, Value input, Value init) {
  Location loc = op.getLoc();
  RankedTensorType out = op.getType();
  ArrayRef<int64_t> inShape = op.getOperand().getType().getShape();
  ArrayRef<int64_t> window = op.getWindowDimensions(), strides = op.getWindowStrides(),
                    dilations = op.getWindowDilations(), low = op.getPaddingLow();
  int64_t rank = out.getRank(), taps = windowTaps(op);
  prim::ReduceKind kind = op.getKind();
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{out}, ValueRange{}, ValueRange{emptyTensor(b, loc, out, {})}, maps, iterators,
      [&](OpBuilder &nested, Location l, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d)
          indices.push_back(nested.create<linalg::IndexOp>(l, d));
        Value acc = init;
        for (int64_t tap = 0; tap < taps; ++tap) {
          SmallVector<Value> at;
          Value inside;
          for (int64_t d = 0, rest = tap; d < rank; ++d) {
            int64_t inner = 1; // taps per step of this dim's window
            for (int64_t e = d + 1; e < rank; ++e)
              inner *= window[e];
            int64_t k = rest / inner;
            rest %= inner;
            Value index = indices[d];
            if (window[d] == 1 && strides[d] == 1 && low[d] == 0) {
              at.push_back(index);
              continue;
            }
            WindowTap t =
                windowTap(nested, l, index, strides[d], k * dilations[d] - low[d], inShape[d]);
            inside =
                inside ? nested.create<arith::AndIOp>(l, inside, t.inside).getResult() : t.inside;
            at.push_back(t.clamped);
          }
          Value x = nested.create<tensor::ExtractOp>(l, input, at);
          if (inside)
            x = nested.create<arith::SelectOp>(l, inside, x, init);
          acc = combineReduced(nested, l, kind, x, acc);
        }
        nested.create<linalg::YieldOp>(l, acc);
      });
  return generic.getResult(0);
}

struct ReduceWindowLowering : OpConversionPattern<prim::ReduceWindowOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(prim::ReduceWindowOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType out = op.getType();
    Type elementType = out.getElementType();
    if (!isa<FloatType>(elementType) && !elementType.isSignlessInteger())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    int64_t rank = out.getRank();
    ArrayRef<int64_t> window = op.getWindowDimensions(), strides = op.getWindowStrides(),
                      dilations = op.getWindowDilations();
    Value init = extractScalar(rewriter, loc, adaptor.getInit());
    if (isDirectWindow(op)) {
      rewriter.replaceOp(op, directWindow(rewriter, op, adaptor.getOperand(), init));
      return success();
    }
    Value input = padWithScalar(rewriter, loc, adaptor.getOperand(), init, op.getPaddingLow(),
                                op.getPaddingHigh());

    SmallVector<int64_t> windowed; // dims with a window loop, and their window sizes
    SmallVector<int64_t> windowShape;
    for (int64_t d = 0; d < rank; ++d)
      if (window[d] > 1) {
        windowed.push_back(d);
        windowShape.push_back(window[d]);
      }
    int64_t numLoops = rank + windowed.size();
    // Loop numbers: result dims 0..rank-2 first, then the window loops, then the last
    // result dim innermost; on the GPU all result dims first, then the window loops.
    bool windowInnermost = inFusedOpsModule(op);
    int64_t firstWindowLoop = windowInnermost ? rank : rank - 1;
    auto resultLoop = [&](int64_t d) {
      return getAffineDimExpr(d + 1 < rank || windowInnermost ? d : numLoops - 1, context);
    };
    SmallVector<AffineExpr> inputExprs, windowExprs, outputExprs;
    for (int64_t d = 0; d < rank; ++d) {
      outputExprs.push_back(resultLoop(d));
      AffineExpr e = resultLoop(d) * strides[d];
      if (const int64_t *w = llvm::find(windowed, d); w != windowed.end()) {
        AffineExpr tap = getAffineDimExpr(firstWindowLoop + (w - windowed.begin()), context);
        windowExprs.push_back(tap);
        e = e + tap * dilations[d];
      }
      inputExprs.push_back(e);
    }
    SmallVector<Value> inputs = {input};
    SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, inputExprs, context)};
    if (!windowed.empty()) {
      inputs.push_back(rewriter.create<tensor::EmptyOp>(loc, windowShape, elementType).getResult());
      maps.push_back(AffineMap::get(numLoops, 0, windowExprs, context));
    }
    maps.push_back(AffineMap::get(numLoops, 0, outputExprs, context));
    SmallVector<utils::IteratorType> iterators(numLoops, utils::IteratorType::reduction);
    for (int64_t d = 0; d < rank; ++d)
      iterators[cast<AffineDimExpr>(resultLoop(d)).getPosition()] = utils::IteratorType::parallel;

    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (out.isDynamicDim(d))
        dynamicSizes.push_back(windowedSize(rewriter, loc, adaptor.getOperand(), d,
                                            op.getPaddingLow()[d], op.getPaddingHigh()[d],
                                            window[d], strides[d], dilations[d]));
    Value empty = emptyTensor(rewriter, loc, out, dynamicSizes);
    Value acc =
        rewriter.create<linalg::FillOp>(loc, ValueRange{init}, ValueRange{empty})->getResult(0);
    prim::ReduceKind kind = op.getKind();
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{out}, inputs, ValueRange{acc}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          b.create<linalg::YieldOp>(l, combineReduced(b, l, kind, args.front(), args.back()));
        });
    rewriter.replaceOp(op, generic->getResults());
    return success();
  }
};

} // namespace

void populateReduceWindowLowering(RewritePatternSet &patterns) {
  patterns.add<ReduceWindowLowering>(patterns.getContext());
}

} // namespace pt2c::lower
