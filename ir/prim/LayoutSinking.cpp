// Layout changes sink below the math that reads them, on the GPU.
//
// Transposes sink below the elementwise math, concatenations, reductions and pooling
// that read them, in a module the GPU pipelines marked pt2c.fused_ops, so that the attention (or
// matrix product) at the end of the chain absorbs them into the layout it reads, or the
// next channels-last convolution's transpose cancels them
// (compiler/transforms/kernels/ChannelsLastConvolutions.cpp).
//
// Rotary embeddings are the case: q and k leave their projections as [b, s, h, d],
// are transposed to [b, h, s, d], rotated (x * cos + rotate_half(x) * sin) and handed
// to attention. Computed as written, the transpose is a copy kernel of its own before
// the rotation. Rotated before the transpose, the rotation reads the projection
// directly and attention reads its result in the [b, s, h, d] layout (heads_inner):
// no copy at all. The CPU keeps the program's order (its kernels read strided
// operands in place).
//
// Reshapes sink below the elementwise ops that read them (pt2c-sink-reshapes, just
// before kernel formation): E(reshape(x), y...) = reshape(E(x, y'...)). A reshape is an
// alias op that kernel formation leaves between kernels, so an elementwise op reading
// one could not join the kernel of the reshaped value's producer. A mean with keepdim
// is the case: reduce, divide, reshape to [N, C, 1, 1], convert back to f16 was two
// kernels (the reduction with its division, then the conversion); sunk, the conversion
// reads the division and joins its kernel (compiler/transforms/kernels/FormKernels.cpp),
// and the reshape after it is read in place by the next kernel.
#include "ir/prim/LayoutSinking.h"
#include "ir/contract/ModelContract.h"

#include "ir/prim/PrimDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace pt2c::prim;

namespace {

/// The type `t` would have before transpose `perm`: dim perm[i] of it is dim i of t.
RankedTensorType untransposed(RankedTensorType t, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape(t.getRank());
  for (auto [i, p] : llvm::enumerate(perm))
    shape[p] = t.getDimSize(i);
  return t.clone(shape);
}

/// The value of a splat constant (the same elements in every layout: ReLU's zeros), else
/// null.
SplatElementsAttr splatOf(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  return constant ? dyn_cast<SplatElementsAttr>(constant.getValue()) : nullptr;
}

/// Whether layout changes may sink below `op`: the GPU's module, static result shapes.
bool sinksHere(Operation *op) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return pt2c::inFusedOpsModule(op) && type && type.hasStaticShape();
}

/// E(transpose(a, p), ...) = transpose(E(a, ...), p) for an elementwise op E whose
/// other operands are transposes with the same permutation, broadcasts (which then
/// broadcast into the untransposed layout: operand dim j lands on dim p[dims[j]]) or
/// splat constants.
struct SinkTransposeBelowElementwise : RewritePattern {
  SinkTransposeBelowElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        op->getNumRegions() != 0 || !sinksHere(op))
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    ArrayRef<int64_t> perm;
    for (Value v : op->getOperands())
      if (auto transpose = v.getDefiningOp<TransposeOp>()) {
        if (!perm.empty() && transpose.getPermutation() != perm)
          return failure();
        perm = transpose.getPermutation();
      } else if (!v.getDefiningOp<BroadcastInDimOp>() && !splatOf(v)) {
        return failure();
      }
    if (perm.empty())
      return failure();
    SmallVector<Value> operands;
    for (Value v : op->getOperands()) {
      if (auto transpose = v.getDefiningOp<TransposeOp>()) {
        operands.push_back(transpose.getOperand());
        continue;
      }
      if (SplatElementsAttr splat = splatOf(v)) {
        RankedTensorType type = untransposed(cast<RankedTensorType>(v.getType()), perm);
        operands.push_back(rewriter.create<ConstantOp>(
            v.getLoc(), SplatElementsAttr::get(type, splat.getSplatValue<Attribute>())));
        continue;
      }
      auto broadcast = v.getDefiningOp<BroadcastInDimOp>();
      if (!broadcast.getDynamicSizes().empty())
        return failure();
      SmallVector<int64_t> dims;
      for (int64_t d : broadcast.getBroadcastDimensions())
        dims.push_back(perm[d]);
      operands.push_back(rewriter.create<BroadcastInDimOp>(
          broadcast.getLoc(), untransposed(broadcast.getType(), perm), broadcast.getOperand(), dims,
          ValueRange{}));
    }
    OperationState state(op->getLoc(), op->getName(), operands, TypeRange{untransposed(type, perm)},
                         op->getAttrs());
    Operation *sunk = rewriter.create(state);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, sunk->getResult(0), perm);
    return success();
  }
};

/// concatenate(transpose(a_i, p)) = transpose(concatenate(a_i) along dim p[d], p).
struct SinkTransposeBelowConcatenate : OpRewritePattern<ConcatenateOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatenateOp op, PatternRewriter &rewriter) const override {
    if (!sinksHere(op))
      return failure();
    ArrayRef<int64_t> perm;
    SmallVector<Value> parts;
    for (Value v : op.getInputs()) {
      auto transpose = v.getDefiningOp<TransposeOp>();
      if (!transpose || (!perm.empty() && transpose.getPermutation() != perm))
        return failure();
      perm = transpose.getPermutation();
      parts.push_back(transpose.getOperand());
    }
    if (perm.empty())
      return failure();
    Value joined = rewriter.create<ConcatenateOp>(op.getLoc(), parts, perm[op.getDimension()]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, joined, perm);
    return success();
  }
};

/// reduce(transpose(a, p), dims) = reduce(a, p[dims]), then a transpose of the kept dims
/// only where the transpose reordered them. A channels-last convolution's result reaches
/// a mean over H x W (squeeze-excitation, global pooling) through a transpose back to
/// NCHW: the mean reads the NHWC tensor directly instead.
struct SinkTransposeBelowReduce : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op, PatternRewriter &rewriter) const override {
    auto transpose = op.getOperand().getDefiningOp<TransposeOp>();
    if (!transpose || !sinksHere(op))
      return failure();
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<int64_t> dims;
    llvm::SmallBitVector reduced(perm.size());
    for (int64_t d : op.getDimensions()) {
      dims.push_back(perm[d]);
      reduced.set(d);
    }
    llvm::sort(dims);
    // The operand dims the result keeps, in the result's order; the new reduce keeps them
    // in increasing order.
    SmallVector<int64_t> kept;
    for (int64_t d = 0; d < static_cast<int64_t>(perm.size()); ++d)
      if (!reduced.test(d))
        kept.push_back(perm[d]);
    SmallVector<int64_t> sorted(kept);
    llvm::sort(sorted);
    SmallVector<int64_t> order;
    for (int64_t d : kept)
      order.push_back(llvm::find(sorted, d) - sorted.begin());
    Value result = rewriter.create<ReduceOp>(op.getLoc(), op.getKind(), transpose.getOperand(),
                                             op.getInit(), dims);
    if (!llvm::equal(order, llvm::seq<int64_t>(0, order.size())))
      result = rewriter.create<TransposeOp>(op.getLoc(), result, order);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// reduce_window(transpose(a, p)) = transpose(reduce_window(a), p) with each window
/// attribute moved to the operand dim it slides over: a max pooling between
/// channels-last convolutions (ResNet's stem) pools the NHWC tensor in place.
struct SinkTransposeBelowReduceWindow : OpRewritePattern<ReduceWindowOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceWindowOp op, PatternRewriter &rewriter) const override {
    auto transpose = op.getOperand().getDefiningOp<TransposeOp>();
    if (!transpose || !sinksHere(op))
      return failure();
    ArrayRef<int64_t> perm = transpose.getPermutation();
    auto moved = [&](ArrayRef<int64_t> values) {
      SmallVector<int64_t> out(values.size());
      for (auto [i, p] : llvm::enumerate(perm))
        out[p] = values[i];
      return out;
    };
    Value pooled = rewriter.create<ReduceWindowOp>(
        op.getLoc(), op.getKind(), transpose.getOperand(), op.getInit(),
        moved(op.getWindowDimensions()), moved(op.getWindowStrides()),
        moved(op.getWindowDilations()), moved(op.getPaddingLow()), moved(op.getPaddingHigh()));
    rewriter.replaceOpWithNewOp<TransposeOp>(op, pooled, perm);
    return success();
  }
};

/// Whether an elementwise op reading `v` could join the kernel that computes it: `v` is
/// elementwise math, a reduction or a small row product (either as its epilogue). Not a
/// fused op's result (a layer norm reads a widening conversion of its input inside its
/// own kernel, attention's output is read by the next kernel as it is): there the
/// reshape stays where the program put it.
bool joinsProducer(Value v) {
  Operation *def = v.getDefiningOp();
  if (auto product = dyn_cast_if_present<DotGeneralOp>(def))
    return product.isSmallRowProduct();
  return def && (def->hasTrait<OpTrait::Elementwise>() || isa<ReduceOp>(def));
}

/// Whether `v` is an argument or a reshape of one: reshaping it again is a view, no work.
bool isViewOfArgument(Value v) {
  if (auto reshape = v.getDefiningOp<ReshapeOp>())
    v = reshape.getOperand();
  return isa<BlockArgument>(v);
}

/// E(reshape(x), y...) = reshape(E(x, y'...)) for an elementwise op E whose other
/// operands are reshapes of values of x's shape, splat constants or arguments (a weight
/// of the reshaped shape); y' is that value, the same splat or a reshape of the argument
/// to x's shape. Static shapes only, where x is computed by an op whose kernel E may
/// join.
struct SinkReshapeBelowElementwise : RewritePattern {
  SinkReshapeBelowElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        op->getNumRegions() != 0 || !sinksHere(op))
      return failure();
    // The reshaped results, all of one shape (x * sigmoid(x) reads two).
    RankedTensorType from;
    for (Value v : op->getOperands())
      if (auto r = v.getDefiningOp<ReshapeOp>(); r && joinsProducer(r.getOperand())) {
        auto type = cast<RankedTensorType>(r.getOperand().getType());
        if (from && type.getShape() != from.getShape())
          return failure();
        from = type;
      }
    if (!from || !from.hasStaticShape())
      return failure();
    SmallVector<Value> operands;
    for (Value v : op->getOperands()) {
      auto r = v.getDefiningOp<ReshapeOp>();
      if (r && joinsProducer(r.getOperand())) {
        operands.push_back(r.getOperand());
        continue;
      }
      auto type = from.clone(cast<RankedTensorType>(v.getType()).getElementType());
      if (SplatElementsAttr splat = splatOf(v))
        operands.push_back(rewriter.create<ConstantOp>(
            v.getLoc(), SplatElementsAttr::get(type, splat.getSplatValue<Attribute>())));
      else if (isViewOfArgument(v))
        operands.push_back(rewriter.create<ReshapeOp>(v.getLoc(), type, v, ValueRange{}));
      else
        return failure();
    }
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    OperationState state(op->getLoc(), op->getName(), operands,
                         TypeRange{from.clone(result.getElementType())}, op->getAttrs());
    Operation *sunk = rewriter.create(state);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, result, sunk->getResult(0), ValueRange{});
    return success();
  }
};

} // namespace

namespace pt2c::prim {

void populateLayoutSinkingPatterns(RewritePatternSet &patterns) {
  patterns.add<SinkTransposeBelowElementwise, SinkTransposeBelowConcatenate,
               SinkTransposeBelowReduce, SinkTransposeBelowReduceWindow>(patterns.getContext());
}

void populateReshapeSinkingPatterns(RewritePatternSet &patterns) {
  patterns.add<SinkReshapeBelowElementwise>(patterns.getContext());
}

/// Whether a transpose read by `user` moves below it (so a slice between them moves
/// above the transpose, even where the transpose has other readers).
bool sinksTransposes(Operation *user) {
  return pt2c::inFusedOpsModule(user) &&
         (user->hasTrait<OpTrait::Elementwise>() || isa<ConcatenateOp>(user));
}

} // namespace pt2c::prim
