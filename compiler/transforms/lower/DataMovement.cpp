// Lowering of prim ops that move or produce data without arithmetic: constants, dim
// sizes, transposes, broadcasts and reshapes.
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "ir/contract/ModelContract.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

/// prim.constant -> arith.constant: splats stay splats, which
/// linalg-fuse-elementwise-ops folds into the generic ops that use them.
struct ConstantLowering : OpConversionPattern<prim::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(prim::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "constant value is not a TypedAttr");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

struct DimSizeLowering : OpConversionPattern<prim::DimSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(prim::DimSizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::DimOp>(op, adaptor.getOperand(),
                                               op.getDimensionAttr().getInt());
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<prim::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(prim::TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getOperand();
    SmallVector<std::pair<Value, int64_t>> sources;
    for (int64_t d : op.getPermutation())
      sources.push_back({input, d});
    Value init = emptyTensor(rewriter, loc, op.getType(),
                             dynamicSizesFrom(rewriter, loc, op.getType(), sources));
    auto transpose = rewriter.create<linalg::TransposeOp>(loc, input, init, op.getPermutation());
    rewriter.replaceOp(op, transpose->getResults());
    return success();
  }
};

/// A linalg.generic that reads operand dim i at loop bd[i], or at 0 where a size-1
/// dim is expanded; loops of new dims are not read at all. On the GPU (a module marked
/// kFusedOpsAttr) the expanded size-1 dims of a kernel argument are sliced out first, so
/// that every indexing map is a projected permutation: linalg's fusion through a
/// reshape (a stacked concatenate's collapse, compiler/transforms/lower/Indexing.cpp)
/// accepts nothing else, and rotary embeddings broadcast their [1, 1, len, dim] tables.
struct BroadcastInDimLowering : OpConversionPattern<prim::BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(prim::BroadcastInDimOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType in = op.getOperand().getType(), out = op.getType();
    Value operand = adaptor.getOperand();
    // Only an operand the kernel reads from memory: a computed one (a squeeze-excitation
    // gate's sigmoid) fuses into this generic, and a slice in between would stop that.
    bool sliceUnitDims =
        inFusedOpsModule(op) && in.hasStaticShape() && mlir::isa<BlockArgument>(op.getOperand());
    SmallVector<AffineExpr> reads;
    SmallVector<int64_t> keptShape;
    for (auto [i, d] : llvm::enumerate(op.getBroadcastDimensions())) {
      bool expanded = in.getDimSize(i) == 1 && out.getDimSize(d) != 1;
      if (expanded && sliceUnitDims)
        continue;
      reads.push_back(expanded ? rewriter.getAffineConstantExpr(0) : rewriter.getAffineDimExpr(d));
      keptShape.push_back(in.getDimSize(i));
    }
    if (sliceUnitDims && static_cast<int64_t>(reads.size()) != in.getRank()) {
      // A rank-reducing slice, not a collapse_shape: fusion by expansion would push a
      // reshape back into the consumer's loops.
      SmallVector<OpFoldResult> zeros(in.getRank(), rewriter.getIndexAttr(0)),
          ones(in.getRank(), rewriter.getIndexAttr(1)), sizes;
      for (int64_t size : in.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
      operand = rewriter.create<tensor::ExtractSliceOp>(
          loc, RankedTensorType::get(keptShape, in.getElementType()), operand, zeros, sizes, ones);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(out.getRank(), 0, reads, rewriter.getContext()),
                                   rewriter.getMultiDimIdentityMap(out.getRank())};
    SmallVector<utils::IteratorType> iterators(out.getRank(), utils::IteratorType::parallel);
    Value init = emptyTensor(rewriter, loc, out, adaptor.getDynamicSizes());
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{out}, ValueRange{operand}, ValueRange{init}, maps, iterators,
        [](OpBuilder &b, Location l, ValueRange args) { b.create<linalg::YieldOp>(l, args[0]); });
    rewriter.replaceOp(op, generic->getResults());
    return success();
  }
};

/// A row-major reshape is a collapse, an expansion, or (when dims regroup across each
/// other, e.g. 2x3 -> 3x2) a collapse to 1-D followed by an expansion.
struct ReshapeLowering : OpConversionPattern<prim::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(prim::ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getOperand();
    RankedTensorType in = op.getOperand().getType(), out = op.getType();
    std::optional<SmallVector<ReassociationIndices>> groups;
    if (in.getRank() != out.getRank())
      groups = getReassociationIndicesForReshape(in, out);
    if (out.getRank() == 0 || (groups && in.getRank() > out.getRank())) {
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
          op, out, input, groups ? *groups : SmallVector<ReassociationIndices>{});
      return success();
    }
    if (!groups && in.getRank() > 0) {
      input = collapseToVector(rewriter, op.getLoc(), input);
      groups =
          SmallVector<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, out.getRank()))};
      if (out.getRank() == 1) { // [?] <-> [n]: only static knowledge differs
        rewriter.replaceOpWithNewOp<tensor::CastOp>(op, out, input);
        return success();
      }
    }
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, out, input, groups ? *groups : SmallVector<ReassociationIndices>{},
        outputShape(rewriter, out, adaptor.getDynamicSizes()));
    return success();
  }

  static Value collapseToVector(OpBuilder &b, Location loc, Value input) {
    auto in = cast<RankedTensorType>(input.getType());
    if (in.getRank() == 1)
      return input;
    int64_t size = in.hasStaticShape() ? in.getNumElements() : ShapedType::kDynamic;
    ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(0, in.getRank()));
    return b.create<tensor::CollapseShapeOp>(loc,
                                             RankedTensorType::get({size}, in.getElementType()),
                                             input, ArrayRef<ReassociationIndices>{all});
  }

  /// The sizes of `type`, dynamic ones from `dynamicSizes`, as expand_shape wants them.
  static SmallVector<OpFoldResult> outputShape(OpBuilder &b, RankedTensorType type,
                                               ValueRange dynamicSizes) {
    SmallVector<OpFoldResult> shape;
    auto next = dynamicSizes.begin();
    for (int64_t s : type.getShape())
      shape.push_back(ShapedType::isDynamic(s) ? OpFoldResult(*next++)
                                               : OpFoldResult(b.getIndexAttr(s)));
    return shape;
  }
};

} // namespace

void populateDataMovementLowering(RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, DimSizeLowering, TransposeLowering, BroadcastInDimLowering,
               ReshapeLowering>(patterns.getContext());
}

} // namespace pt2c::lower
