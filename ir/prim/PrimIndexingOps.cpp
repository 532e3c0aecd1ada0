// Type inference, verifiers and folders of the reduction, indexing and iota prim ops
// (reduce, gather, slice, concatenate, iota). As in PrimOps.cpp, a dynamic size is
// compatible with any size.
#include "ir/contract/ModelContract.h"
#include "ir/prim/ElementwiseOnGpu.h"
#include "ir/prim/LayoutSinking.h"
#include "ir/prim/PrimDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace pt2c::prim;

namespace {

bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

} // namespace

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getOperand().getType());
  auto init = cast<RankedTensorType>(adaptor.getInit().getType());
  if (init.getElementType() != in.getElementType())
    return emitOptionalError(loc, "init element type ", init.getElementType(),
                             " differs from the operand's ", in.getElementType());
  llvm::SmallBitVector reduced(in.getRank());
  for (int64_t d : adaptor.getDimensions()) {
    if (d < 0 || d >= in.getRank())
      return emitOptionalError(loc, "reduced dimension ", d, " out of range for rank ",
                               in.getRank());
    if (reduced.test(d))
      return emitOptionalError(loc, "reduced dimension ", d, " listed twice");
    reduced.set(d);
  }
  auto kind = adaptor.getKind();
  bool logical = kind == ReduceKind::AND || kind == ReduceKind::OR;
  if (logical != in.getElementType().isInteger(1))
    return emitOptionalError(loc, "AND and OR reduce i1 tensors, the other kinds numbers");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (!reduced.test(d))
      shape.push_back(in.getDimSize(d));
  types.push_back(in.clone(shape));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getOperand().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t axis = adaptor.getAxis(), batch = adaptor.getBatchDims();
  if (axis < 0 || axis >= in.getRank())
    return emitOptionalError(loc, "axis ", axis, " out of range for rank ", in.getRank());
  if (batch < 0 || batch > axis || batch > indices.getRank())
    return emitOptionalError(loc, "batch_dims ", batch, " must be in [0, min(axis, indices rank)]");
  for (int64_t d = 0; d < batch; ++d)
    if (!compatible(in.getDimSize(d), indices.getDimSize(d)))
      return emitOptionalError(loc, "batch dimension ", d, " has size ", in.getDimSize(d),
                               " in the operand and ", indices.getDimSize(d), " in the indices");
  SmallVector<int64_t> shape(in.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape().drop_front(batch));
  llvm::append_range(shape, in.getShape().drop_front(axis + 1));
  types.push_back(in.clone(shape));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getOperand().getType());
  ArrayRef<int64_t> start = adaptor.getStartIndices(), limit = adaptor.getLimitIndices(),
                    strides = adaptor.getStrides();
  if ((int64_t)start.size() != in.getRank() || (int64_t)limit.size() != in.getRank() ||
      (int64_t)strides.size() != in.getRank())
    return emitOptionalError(loc, "expects one start, limit and stride per dimension");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t size = in.getDimSize(d);
    if (start[d] < 0 || start[d] > limit[d] || strides[d] < 1 ||
        (!ShapedType::isDynamic(size) && limit[d] > size))
      return emitOptionalError(loc, "dimension ", d, " of size ", size, " cannot be sliced from ",
                               start[d], " to ", limit[d], " by ", strides[d]);
    shape.push_back((limit[d] - start[d] + strides[d] - 1) / strides[d]);
  }
  types.push_back(in.clone(shape));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  RankedTensorType in = getOperand().getType();
  if (in == getType() && in.hasStaticShape() &&
      llvm::all_of(getStrides(), [](int64_t s) { return s == 1; }))
    return getOperand(); // the whole tensor
  return {};
}

namespace {

/// slice(transpose(x, p)) = transpose(slice(x), p), the slice's entry for result dim i
/// moved to x's dim p[i]; where the transpose only feeds slices, so that the whole
/// transposed tensor is never made (nn.MultiheadAttention's packed q, k, v: the
/// transpose that brings the 3 to the front, then a slice for each). On the GPU also
/// where the slice's readers sink transposes (LayoutSinking.cpp): rotate_half's
/// halves of a transposed q then rotate before the transpose, as the rest of q does.
struct SliceThroughTranspose : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op, PatternRewriter &rewriter) const override {
    auto transpose = op.getOperand().getDefiningOp<TransposeOp>();
    if (!transpose)
      return failure();
    bool onlySlices =
        llvm::all_of(transpose->getUsers(), [](Operation *user) { return isa<SliceOp>(user); });
    if (!onlySlices && (op->use_empty() || !llvm::all_of(op->getUsers(), sinksTransposes)))
      return failure();
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<int64_t> start(perm.size()), limit(perm.size()), strides(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) {
      start[perm[i]] = op.getStartIndices()[i];
      limit[perm[i]] = op.getLimitIndices()[i];
      strides[perm[i]] = op.getStrides()[i];
    }
    Value slice =
        rewriter.create<SliceOp>(op.getLoc(), transpose.getOperand(), start, limit, strides);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, slice, perm);
    return success();
  }
};

/// slice(reshape(x)) = reshape(slice(x)) where the reshape only adds or drops unit dims
/// (static shapes): the slice of each dim larger than 1 applies to its counterpart in x.
/// Not on the GPU where elementwise kernels read the slice in place: there a reshape
/// after the slice would make it a copy (a joined gate and up projection's halves).
struct SliceThroughUnitReshape : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op, PatternRewriter &rewriter) const override {
    auto reshape = op.getOperand().getDefiningOp<ReshapeOp>();
    if (!reshape || isElementwiseOnGpu(op))
      return failure();
    auto from = cast<RankedTensorType>(reshape.getOperand().getType());
    auto to = cast<RankedTensorType>(reshape.getType());
    if (!from.hasStaticShape() || !to.hasStaticShape())
      return failure();
    auto nonUnit = [](RankedTensorType t) {
      SmallVector<int64_t> dims;
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (t.getDimSize(d) != 1)
          dims.push_back(d);
      return dims;
    };
    SmallVector<int64_t> fromDims = nonUnit(from), toDims = nonUnit(to);
    if (fromDims.size() != toDims.size())
      return failure();
    SmallVector<int64_t> start(from.getRank(), 0), limit(from.getShape()),
        strides(from.getRank(), 1);
    for (size_t i = 0; i < fromDims.size(); ++i) {
      if (from.getDimSize(fromDims[i]) != to.getDimSize(toDims[i]))
        return failure();
      start[fromDims[i]] = op.getStartIndices()[toDims[i]];
      limit[fromDims[i]] = op.getLimitIndices()[toDims[i]];
      strides[fromDims[i]] = op.getStrides()[toDims[i]];
    }
    for (int64_t d = 0; d < to.getRank(); ++d) // a unit dim sliced whole, not emptied
      if (to.getDimSize(d) == 1 && op.getLimitIndices()[d] != 1)
        return failure();
    Value slice =
        rewriter.create<SliceOp>(op.getLoc(), reshape.getOperand(), start, limit, strides);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), slice, ValueRange{});
    return success();
  }
};

/// slice(slice(x)) = one slice of x: start s1 + s2 * t1, stride t1 * t2 per dim. The
/// halves rotate_half takes of a joined q/k projection's q part then read the
/// projection directly, and the part is read in place instead of copied.
struct ComposeSlices : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<SliceOp>();
    if (!inner)
      return failure();
    RankedTensorType out = op.getType();
    size_t rank = out.getRank();
    SmallVector<int64_t> start(rank), limit(rank), strides(rank);
    for (size_t d = 0; d < rank; ++d) {
      int64_t size = out.getDimSize(d);
      if (ShapedType::isDynamic(size))
        return failure();
      strides[d] = inner.getStrides()[d] * op.getStrides()[d];
      start[d] = inner.getStartIndices()[d] + op.getStartIndices()[d] * inner.getStrides()[d];
      limit[d] = size == 0 ? start[d] : start[d] + (size - 1) * strides[d] + 1;
    }
    rewriter.replaceOpWithNewOp<SliceOp>(op, inner.getOperand(), start, limit, strides);
    return success();
  }
};

} // namespace

void SliceOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<SliceThroughTranspose, SliceThroughUnitReshape, ComposeSlices>(context);
}

LogicalResult ConcatenateOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &types) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "expects at least one operand");
  auto first = cast<RankedTensorType>(adaptor.getInputs()[0].getType());
  int64_t dim = adaptor.getDimension();
  if (dim < 0 || dim >= first.getRank())
    return emitOptionalError(loc, "dimension ", dim, " out of range for rank ", first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (Value v : adaptor.getInputs()) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != first.getElementType() || t.getRank() != first.getRank())
      return emitOptionalError(loc, "operands differ in element type or rank");
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (d == dim)
        continue;
      if (!compatible(t.getDimSize(d), shape[d]))
        return emitOptionalError(loc, "operands differ in the size of dimension ", d);
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = t.getDimSize(d);
    }
    shape[dim] = ShapedType::isDynamic(shape[dim]) || t.isDynamicDim(dim)
                     ? ShapedType::kDynamic
                     : shape[dim] + t.getDimSize(dim);
  }
  types.push_back(first.clone(shape));
  return success();
}

OpFoldResult ConcatenateOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

bool pt2c::prim::isElementwiseOnGpu(Operation *op) {
  if (!pt2c::inFusedOpsModule(op))
    return false;
  if (auto concat = dyn_cast<ConcatenateOp>(op))
    return concat.joinsStaticParts();
  if (!isa<SliceOp>(op) || op->use_empty())
    return false;
  return llvm::all_of(op->getUsers(), [](Operation *user) {
    auto concat = dyn_cast<ConcatenateOp>(user);
    return user->hasTrait<OpTrait::Elementwise>() || (concat && concat.joinsStaticParts());
  });
}

bool ConcatenateOp::joinsStaticParts() {
  return getInputs().size() >= 2 && llvm::all_of(getInputs().getTypes(), [](Type t) {
           return cast<RankedTensorType>(t).hasStaticShape();
         });
}

bool ConcatenateOp::joinsEqualStaticParts() {
  if (getInputs().size() < 2)
    return false;
  Type first = getInputs()[0].getType();
  return cast<RankedTensorType>(first).hasStaticShape() &&
         llvm::all_of(getInputs().getTypes(), [&](Type t) { return t == first; });
}

LogicalResult IotaOp::verify() {
  RankedTensorType type = getType();
  int64_t dim = getIotaDimensionAttr().getInt(); // the I64Attr getter is unsigned
  if (type.getNumDynamicDims() != (int64_t)getDynamicSizes().size())
    return emitOpError("expects one size per dynamic result dim");
  if (dim < 0 || dim >= type.getRank())
    return emitOpError("iota dimension ") << dim << " out of range for rank " << type.getRank();
  Type e = type.getElementType();
  if (!isa<FloatType>(e) && !e.isSignlessInteger())
    return emitOpError("expects a float or signless integer element type");
  return success();
}
