// Lowering of the prim ops that select, join or generate elements: gather (a
// linalg.generic over the result that reads the operand with tensor.extract at the
// gathered position), slice (a copy loop reading a strided view), concatenate (one copy per operand
// into its part of a single destination; on the GPU one elementwise loop: equal parts
// as their stack, others read from the part each index falls in) and iota (a linalg.generic of
// linalg.index).
//
// Copies are explicit loops rather than tensor.extract_slice / insert_slice of whole
// operands: those bufferize to memref.copy between strided views, which the CPU
// pipeline lowers to a call of MLIR's runtime function memrefCopy, a symbol model.so
// does not have.
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "compiler/transforms/lower/ScalarOps.h"
#include "ir/prim/ElementwiseOnGpu.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

/// `input` copied into `init` by a linalg.copy: it stays a copy loop (an identity
/// linalg.generic would be folded away, leaving the strided view to a memref.copy).
Value copyLoop(OpBuilder &b, Location loc, Value input, Value init) {
  return b.create<linalg::CopyOp>(loc, input, init).getResult(0);
}

struct GatherLowering : OpConversionPattern<prim::GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(prim::GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand(), indices = adaptor.getIndices();
    RankedTensorType out = op.getType();
    int64_t axis = op.getAxis(), batch = op.getBatchDims();
    int64_t numGathered = op.getIndices().getType().getRank() - batch;

    // Result dims: operand dims [0, axis), index dims [batch, ..), operand dims
    // (axis, ..). The indices are read at the batch loops and the gathered loops.
    SmallVector<AffineExpr> indexReads;
    SmallVector<std::pair<Value, int64_t>> sizeSources;
    for (int64_t d = 0; d < batch; ++d)
      indexReads.push_back(rewriter.getAffineDimExpr(d));
    for (int64_t d = 0; d < axis; ++d)
      sizeSources.push_back({operand, d});
    for (int64_t j = 0; j < numGathered; ++j) {
      indexReads.push_back(rewriter.getAffineDimExpr(axis + j));
      sizeSources.push_back({indices, batch + j});
    }
    for (int64_t d = axis + 1; d < op.getOperand().getType().getRank(); ++d)
      sizeSources.push_back({operand, d});
    SmallVector<AffineMap> maps = {
        AffineMap::get(out.getRank(), 0, indexReads, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(out.getRank())};
    SmallVector<utils::IteratorType> iterators(out.getRank(), utils::IteratorType::parallel);
    Value init = emptyTensor(rewriter, loc, out, dynamicSizesFrom(rewriter, loc, out, sizeSources));
    // The largest valid index, for clamping.
    Value axisSize = rewriter.create<tensor::DimOp>(loc, operand, axis);
    Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
    Value last = rewriter.create<arith::SubIOp>(loc, axisSize, one);

    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{out}, ValueRange{indices}, ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value index = b.create<arith::IndexCastOp>(l, b.getIndexType(), args[0]);
          Value zero = b.create<arith::ConstantIndexOp>(l, 0);
          index = b.create<arith::MaxSIOp>(l, index, zero);
          index = b.create<arith::MinSIOp>(l, index, last);
          SmallVector<Value> position;
          for (int64_t d = 0; d < axis; ++d)
            position.push_back(b.create<linalg::IndexOp>(l, d));
          position.push_back(index);
          for (int64_t d = axis + numGathered; d < out.getRank(); ++d)
            position.push_back(b.create<linalg::IndexOp>(l, d));
          b.create<linalg::YieldOp>(l,
                                    b.create<tensor::ExtractOp>(l, operand, position).getResult());
        });
    rewriter.replaceOp(op, generic->getResults());
    return success();
  }
};

/// A copy loop reading a strided view of the operand (tensor.extract_slice, which
/// bufferizes to a subview: the loop reads the operand in place).
struct SliceLowering : OpConversionPattern<prim::SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(prim::SliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType out = op.getType();
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (auto [start, size, stride] :
         llvm::zip_equal(op.getStartIndices(), out.getShape(), op.getStrides())) {
      offsets.push_back(rewriter.getIndexAttr(start));
      sizes.push_back(rewriter.getIndexAttr(size));
      strides.push_back(rewriter.getIndexAttr(stride));
    }
    Value view = rewriter.create<tensor::ExtractSliceOp>(loc, out, adaptor.getOperand(), offsets,
                                                         sizes, strides);
    // On the GPU, read in place by the fused loop; elsewhere the copy stays (a returned
    // view would bufferize to a memref.copy).
    if (prim::isElementwiseOnGpu(op)) {
      rewriter.replaceOp(op, view);
      return success();
    }
    rewriter.replaceOp(op, copyLoop(rewriter, loc, view, emptyTensor(rewriter, loc, out, {})));
    return success();
  }
};

/// For the GPU (a module marked kFusedOpsAttr), n operands of one static type joined
/// along dim d: their stack [..., n, size, ...] as one elementwise linalg.generic (each
/// element selects operand k at its index k of the new dim), collapsed to the result.
/// Elementwise fusion then merges the operands' producers and the consumers into the
/// same loop nest: rotate_half in rotary embeddings becomes part of one kernel instead of
/// a copy per operand. Null where that does not apply.
Value stackedConcatenate(prim::ConcatenateOp op, ValueRange inputs, OpBuilder &b) {
  if (!prim::isElementwiseOnGpu(op) || !op.joinsEqualStaticParts())
    return {};
  Location loc = op.getLoc();
  auto part = cast<RankedTensorType>(inputs[0].getType());
  int64_t dim = op.getDimension(), n = inputs.size(), rank = part.getRank();
  SmallVector<int64_t> shape(part.getShape());
  shape.insert(shape.begin() + dim, n);
  auto stackedType = part.clone(shape);
  SmallVector<AffineExpr> partDims; // the stack's dims without the new one
  for (int64_t i = 0; i <= rank; ++i)
    if (i != dim)
      partDims.push_back(b.getAffineDimExpr(i));
  SmallVector<AffineMap> maps(n, AffineMap::get(rank + 1, 0, partDims, b.getContext()));
  maps.push_back(b.getMultiDimIdentityMap(rank + 1));
  SmallVector<utils::IteratorType> iterators(rank + 1, utils::IteratorType::parallel);
  Value init = emptyTensor(b, loc, stackedType, {});
  auto stack = b.create<linalg::GenericOp>(
      loc, stackedType, inputs, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value k = nested.create<linalg::IndexOp>(nestedLoc, dim);
        Value picked = args[n - 1];
        for (int64_t i = n - 2; i >= 0; --i) {
          Value isI =
              nested.create<arith::CmpIOp>(nestedLoc, arith::CmpIPredicate::eq, k,
                                           nested.create<arith::ConstantIndexOp>(nestedLoc, i));
          picked = nested.create<arith::SelectOp>(nestedLoc, isI, args[i], picked);
        }
        nested.create<linalg::YieldOp>(nestedLoc, picked);
      });
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i <= rank; ++i) {
    if (i == dim + 1)
      continue;
    groups.push_back(i == dim ? ReassociationIndices{i, i + 1} : ReassociationIndices{i});
  }
  return b.create<tensor::CollapseShapeOp>(loc, op.getType(), stack.getResult(0), groups);
}

/// For the GPU, static parts of different sizes joined along dim d: one linalg.generic
/// over the result, each element read (tensor.extract) from the part its index along d
/// falls in, at that index less the part's offset. Every part is read at an index
/// clamped into it, the value of the wrong ones discarded by the select, so no read is
/// out of bounds. Elementwise fusion then merges the consumers (a ViT's position
/// embedding added to [class token; patches]): one launch instead of a copy per part
/// and the consumer's.
Value gatheredConcatenate(prim::ConcatenateOp op, ValueRange inputs, OpBuilder &b) {
  if (!prim::isElementwiseOnGpu(op))
    return {};
  Location loc = op.getLoc();
  RankedTensorType out = op.getType();
  int64_t dim = op.getDimension(), rank = out.getRank();
  SmallVector<int64_t> offsets{0};
  for (Value v : inputs)
    offsets.push_back(offsets.back() + cast<RankedTensorType>(v.getType()).getDimSize(dim));
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  Value init = emptyTensor(b, loc, out, {});
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{out}, ValueRange{}, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location l, ValueRange) {
        SmallVector<Value> index;
        for (int64_t d = 0; d < rank; ++d)
          index.push_back(nested.create<linalg::IndexOp>(l, d));
        Value at = index[dim];
        auto constant = [&](int64_t v) { return nested.create<arith::ConstantIndexOp>(l, v); };
        Value picked;
        for (int64_t k = static_cast<int64_t>(inputs.size()) - 1; k >= 0; --k) {
          Value local = nested.create<arith::SubIOp>(l, at, constant(offsets[k]));
          local = nested.create<arith::MaxSIOp>(l, local, constant(0));
          local =
              nested.create<arith::MinSIOp>(l, local, constant(offsets[k + 1] - offsets[k] - 1));
          SmallVector<Value> partIndex(index);
          partIndex[dim] = local;
          Value value = nested.create<tensor::ExtractOp>(l, inputs[k], partIndex);
          if (!picked) {
            picked = value;
            continue;
          }
          Value inPart = nested.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, at,
                                                      constant(offsets[k + 1]));
          picked = nested.create<arith::SelectOp>(l, inPart, value, picked);
        }
        nested.create<linalg::YieldOp>(l, picked);
      });
  return generic.getResult(0);
}

/// Each operand is copied into its part of one destination (at the running offset
/// along the concatenated dim): extract_slice of the destination, a copy loop into it,
/// insert_slice back, which bufferizes in place into a view of the destination.
struct ConcatenateLowering : OpConversionPattern<prim::ConcatenateOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(prim::ConcatenateOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (Value stacked = stackedConcatenate(op, adaptor.getInputs(), rewriter)) {
      rewriter.replaceOp(op, stacked);
      return success();
    }
    if (Value gathered = gatheredConcatenate(op, adaptor.getInputs(), rewriter)) {
      rewriter.replaceOp(op, gathered);
      return success();
    }
    Location loc = op.getLoc();
    RankedTensorType out = op.getType();
    int64_t dim = op.getDimension();
    ValueRange inputs = adaptor.getInputs();

    // Sizes of every input as OpFoldResults, and the destination's dynamic sizes.
    auto sizesOf = [&](Value v) {
      SmallVector<OpFoldResult> sizes;
      auto type = cast<RankedTensorType>(v.getType());
      for (int64_t d = 0; d < type.getRank(); ++d)
        sizes.push_back(type.isDynamicDim(d)
                            ? OpFoldResult(rewriter.create<tensor::DimOp>(loc, v, d).getResult())
                            : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(d))));
      return sizes;
    };
    SmallVector<SmallVector<OpFoldResult>> inputSizes;
    for (Value v : inputs)
      inputSizes.push_back(sizesOf(v));
    SmallVector<OpFoldResult> offsets(out.getRank(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ends; // running offset along `dim` after each input
    OpFoldResult offset = rewriter.getIndexAttr(0);
    for (auto &sizes : inputSizes) {
      offset = addOfr(rewriter, loc, offset, sizes[dim]);
      ends.push_back(offset);
    }
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < out.getRank(); ++d)
      if (out.isDynamicDim(d))
        dynamicSizes.push_back(getValueOrCreateConstantIndexOp(
            rewriter, loc, d == dim ? ends.back() : inputSizes[0][d]));
    Value result = emptyTensor(rewriter, loc, out, dynamicSizes);
    SmallVector<OpFoldResult> ones(out.getRank(), rewriter.getIndexAttr(1));
    for (auto [i, v] : llvm::enumerate(inputs)) {
      offsets[dim] = i == 0 ? OpFoldResult(rewriter.getIndexAttr(0)) : ends[i - 1];
      auto part = rewriter.create<tensor::ExtractSliceOp>(loc, cast<RankedTensorType>(v.getType()),
                                                          result, offsets, inputSizes[i], ones);
      Value copied = copyLoop(rewriter, loc, v, part);
      result =
          rewriter.create<tensor::InsertSliceOp>(loc, copied, result, offsets, inputSizes[i], ones);
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  static OpFoldResult addOfr(OpBuilder &b, Location loc, OpFoldResult x, OpFoldResult y) {
    std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
    if (cx && cy)
      return b.getIndexAttr(*cx + *cy);
    return b
        .create<arith::AddIOp>(loc, getValueOrCreateConstantIndexOp(b, loc, x),
                               getValueOrCreateConstantIndexOp(b, loc, y))
        .getResult();
  }
};

struct IotaLowering : OpConversionPattern<prim::IotaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(prim::IotaOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType out = op.getType();
    int64_t dim = op.getIotaDimensionAttr().getInt();
    Value init = emptyTensor(rewriter, loc, out, adaptor.getDynamicSizes());
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(out.getRank())};
    SmallVector<utils::IteratorType> iterators(out.getRank(), utils::IteratorType::parallel);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{out}, ValueRange{}, ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          Value index = b.create<linalg::IndexOp>(l, dim);
          Value count = b.create<arith::IndexCastOp>(l, b.getI64Type(), index);
          b.create<linalg::YieldOp>(l, convertScalar(b, l, count, out.getElementType()));
        });
    rewriter.replaceOp(op, generic->getResults());
    return success();
  }
};

} // namespace

void populateIndexingLowering(RewritePatternSet &patterns) {
  patterns.add<GatherLowering, SliceLowering, ConcatenateLowering, IotaLowering>(
      patterns.getContext());
}

} // namespace pt2c::lower
