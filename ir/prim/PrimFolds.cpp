// Folders and canonicalization patterns of prim ops: they remove the no-op conversions,
// broadcasts, reshapes and transposes that decompositions produce one op at a time, and
// fold transposes into the dot_general that consumes them (so that a Linear layer's
// weight is read in place instead of copied transposed).
#include "ir/prim/LayoutSinking.h"
#include "ir/prim/PrimDialect.h"

#include <numeric>

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace pt2c::prim;

/// Whether `attr` is a splat constant equal to `value` (-0.0 and 0.0 are told apart).
static bool isSplatOf(Attribute attr, double value) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Type type = splat.getElementType();
  if (auto f = dyn_cast<FloatType>(type)) {
    APFloat v = splat.getSplatValue<APFloat>();
    bool losesInfo;
    APFloat expected(value);
    expected.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    return v.bitwiseIsEqual(expected);
  }
  if (type.isInteger(1))
    return false; // bools do no arithmetic here
  return splat.getSplatValue<APInt>().getSExtValue() == (int64_t)value;
}

/// The additive identity: 0 for integers; -0.0 for floats (x + -0.0 is x for every x,
/// while -0.0 + 0.0 is +0.0).
static bool isAdditiveIdentity(Attribute attr, Type elementType) {
  return isSplatOf(attr, isa<FloatType>(elementType) ? -0.0 : 0.0);
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  Type e = getType().getElementType();
  if (isAdditiveIdentity(adaptor.getRhs(), e))
    return getLhs();
  if (isAdditiveIdentity(adaptor.getLhs(), e))
    return getRhs();
  return {};
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0.0)) // x - 0.0 is x, -0.0 included
    return getLhs();
  return {};
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 1.0))
    return getRhs();
  return {};
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    return getLhs();
  return {};
}

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return {};
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  if (getOperand().getType() == type &&
      llvm::equal(getBroadcastDimensions(), llvm::seq<int64_t>(0, type.getRank())))
    return getOperand();
  // A broadcast splat is a bigger splat.
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getOperand());
      splat && type.hasStaticShape())
    return SplatElementsAttr::get(type, splat.getSplatValue<Attribute>());
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  // A reshaped constant is a constant (a reshape is an alias op that kernel formation
  // leaves outside kernels, where a constant has no buffer).
  if (auto constant = llvm::dyn_cast_if_present<DenseElementsAttr>(adaptor.getOperand()))
    if (getType().hasStaticShape())
      return constant.reshape(getType());
  // reshape(reshape(x)) = reshape(x): only the final shape matters.
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>()) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getOperand();
  // transpose(transpose(x, inner), outer): result dim i is x dim inner[outer[i]].
  if (auto inner = getOperand().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t d : perm)
      composed.push_back(inner.getPermutation()[d]);
    getOperandMutable().assign(inner.getOperand());
    setPermutation(composed);
    return getResult();
  }
  return {};
}

namespace {

/// A static transpose that keeps the order of the dims larger than 1 only moves unit
/// dims: the same elements in the same order, a reshape (no copy) instead.
struct UnitDimTransposeToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getOperand().getType());
    if (!type.hasStaticShape())
      return failure();
    int64_t last = -1;
    for (int64_t d : op.getPermutation()) {
      if (type.getDimSize(d) == 1)
        continue;
      if (d < last)
        return failure();
      last = d;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getOperand(), ValueRange{});
    return success();
  }
};

/// transpose(reshape(transpose(x, p)), q), the reshape a collapse or an expansion: it can
/// reshape x itself, and the two transposes compose into one (often none). A collapse
/// must merge runs of consecutive dims of x, in order; an expansion splits one dim at a
/// time, which x's own dim can always take. A strided patch embedding's [1, H, W, C]
/// product, moved to [1, C, H, W], flattened to [1, C, H * W] and moved back to
/// [1, H * W, C] (timm's and torchvision's ViTs) becomes a reshape; Segformer's
/// [1, H * W, C] sequence, moved to [1, C, H, W] and cut into patches (its spatial
/// reduction as a GEMM), one transpose instead of two.
struct TransposeOfReshapedTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto reshape = op.getOperand().getDefiningOp<ReshapeOp>();
    auto inner = reshape ? reshape.getOperand().getDefiningOp<TransposeOp>() : TransposeOp();
    if (!inner || !reshape->hasOneUse())
      return failure();
    auto from = cast<RankedTensorType>(reshape.getOperand().getType());
    auto to = cast<RankedTensorType>(reshape.getType());
    if (!from.hasStaticShape() || !to.hasStaticShape() || to.getRank() == from.getRank())
      return failure();
    ArrayRef<int64_t> p = inner.getPermutation();
    SmallVector<int64_t> shape, perm; // x reshaped, and the transpose that gives `to`
    bool ok = to.getRank() < from.getRank() ? collapse(from, to, p, shape, perm)
                                            : expand(from, to, p, shape, perm);
    if (!ok)
      return failure();
    Value reshaped =
        rewriter.create<ReshapeOp>(op.getLoc(), to.clone(shape), inner.getOperand(), ValueRange{});
    SmallVector<int64_t> composed;
    for (int64_t d : op.getPermutation())
      composed.push_back(perm[d]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, reshaped, composed);
    return success();
  }

  // Groups of transposed dims merged into one: each must be consecutive dims of x, in
  // order; x then merges them, in its own order.
  static bool collapse(RankedTensorType from, RankedTensorType to, ArrayRef<int64_t> p,
                       SmallVectorImpl<int64_t> &shape, SmallVectorImpl<int64_t> &perm) {
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForCollapse(from.getShape(), to.getShape());
    if (!groups)
      return false;
    SmallVector<int64_t> firstOfX;
    for (const ReassociationIndices &g : *groups) {
      for (size_t i = 1; i < g.size(); ++i)
        if (p[g[i]] != p[g[0]] + static_cast<int64_t>(i))
          return false;
      firstOfX.push_back(p[g[0]]);
    }
    SmallVector<int64_t> byX = llvm::to_vector(llvm::seq<int64_t>(0, groups->size()));
    llvm::sort(byX, [&](int64_t a, int64_t b) { return firstOfX[a] < firstOfX[b]; });
    perm.resize(groups->size());
    for (auto [k, j] : llvm::enumerate(byX)) {
      perm[j] = k;
      shape.push_back(to.getDimSize(j));
    }
    return true;
  }

  // Each transposed dim i split into a group of `to` dims: x splits its dim p[i] so.
  static bool expand(RankedTensorType from, RankedTensorType to, ArrayRef<int64_t> p,
                     SmallVectorImpl<int64_t> &shape, SmallVectorImpl<int64_t> &perm) {
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForReshape(from, to);
    if (!groups || groups->size() != p.size())
      return false;
    SmallVector<int64_t> groupOfX(p.size()), start(p.size());
    for (size_t i = 0; i < p.size(); ++i)
      groupOfX[p[i]] = i;
    for (size_t e = 0; e < p.size(); ++e) {
      start[e] = shape.size();
      for (int64_t t : (*groups)[groupOfX[e]])
        shape.push_back(to.getDimSize(t));
    }
    perm.resize(to.getRank());
    for (size_t i = 0; i < p.size(); ++i)
      for (auto [o, t] : llvm::enumerate((*groups)[i]))
        perm[t] = start[p[i]] + o;
    return true;
  }
};

} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<UnitDimTransposeToReshape, TransposeOfReshapedTranspose>(context);
  populateLayoutSinkingPatterns(patterns);
}

namespace {

/// dot_general(transpose(x, p), y) = dot_general(x, y) with dims mapped through p,
/// provided the free dims of x keep their relative order (the result dims are the free
/// dims in operand order, so reordering them would transpose the result).
struct AbsorbTransposeIntoDotGeneral : OpRewritePattern<DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DotGeneralOp op, PatternRewriter &rewriter) const override {
    SmallVector<int64_t> lb(op.getLhsBatchingDimensions()), rb(op.getRhsBatchingDimensions()),
        lc(op.getLhsContractingDimensions()), rc(op.getRhsContractingDimensions());
    Value lhs = op.getLhs(), rhs = op.getRhs();
    bool changed = absorb(lhs, lb, lc) | absorb(rhs, rb, rc);
    if (!changed)
      return failure();
    rewriter.replaceOpWithNewOp<DotGeneralOp>(op, lhs, rhs, lb, rb, lc, rc);
    return success();
  }

  static bool absorb(Value &operand, SmallVectorImpl<int64_t> &batch,
                     SmallVectorImpl<int64_t> &contract) {
    auto transpose = operand.getDefiningOp<TransposeOp>();
    if (!transpose)
      return false;
    ArrayRef<int64_t> perm = transpose.getPermutation();
    int64_t lastFree = -1;
    for (int64_t d = 0; d < (int64_t)perm.size(); ++d) {
      if (llvm::is_contained(batch, d) || llvm::is_contained(contract, d))
        continue;
      if (perm[d] < lastFree)
        return false;
      lastFree = perm[d];
    }
    for (int64_t &d : batch)
      d = perm[d];
    for (int64_t &d : contract)
      d = perm[d];
    operand = transpose.getOperand();
    return true;
  }
};

} // namespace

void DotGeneralOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<AbsorbTransposeIntoDotGeneral>(context);
}

namespace {

/// The permutation that swaps the head and length dims of [B, H, len, dim].
bool swapsHeadsAndLength(TransposeOp transpose) {
  return transpose && llvm::equal(transpose.getPermutation(), ArrayRef<int64_t>{0, 2, 1, 3});
}

/// [B, H, len, dim] may be a head split written with other unit dims:
/// reshape(transpose(x, p)) where the reshape only drops or adds dims of size 1 and x
/// holds the same elements as [B, len, H, dim] (batch 1: a rank-3 split of [len, H,
/// dim]; timm's q/k/v: a slice [B, len, 1, H, dim] of the fused projection moved to
/// [1, B, H, len, dim]). The op then reads x, reshaped to [B, len, H, dim], in the other
/// layout. Decided by where p sends each dim of size > 1, not by the sizes alone (H and
/// len may be equal). Null where `operand` is not that.
Value unitDimsHeadSplit(Value operand, PatternRewriter &rewriter) {
  auto reshape = operand.getDefiningOp<ReshapeOp>();
  auto transpose = reshape ? reshape.getOperand().getDefiningOp<TransposeOp>() : TransposeOp();
  auto type = cast<RankedTensorType>(operand.getType());
  if (!transpose || type.getRank() != 4 || !type.hasStaticShape())
    return {};
  auto source = cast<RankedTensorType>(transpose.getOperand().getType());
  auto moved = cast<RankedTensorType>(transpose.getType());
  if (!source.hasStaticShape())
    return {};
  // The source dims of size > 1 in the transposed order: where the reshape only drops or
  // adds unit dims, they are the operand's dims of size > 1, in order, size for size.
  SmallVector<int64_t> sources;
  for (auto [i, from] : llvm::enumerate(transpose.getPermutation()))
    if (moved.getDimSize(i) != 1)
      sources.push_back(from);
  SmallVector<int64_t> dims; // operand dims of size > 1
  for (int64_t d = 0; d < 4; ++d)
    if (type.getDimSize(d) != 1)
      dims.push_back(d);
  if (dims.size() != sources.size())
    return {};
  for (auto [d, from] : llvm::zip_equal(dims, sources))
    if (type.getDimSize(d) != source.getDimSize(from))
      return {}; // the reshape regroups elements
  // Read in source order, the operand dims must come as [B, len, H, dim] lists them.
  SmallVector<int64_t> order(dims.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order, [&](int64_t a, int64_t b) { return sources[a] < sources[b]; });
  constexpr int64_t kOtherLayout[] = {0, 2, 1, 3};
  SmallVector<int64_t> expected;
  for (int64_t d : kOtherLayout)
    if (type.getDimSize(d) != 1)
      expected.push_back(d);
  for (auto [k, j] : llvm::enumerate(order))
    if (dims[j] != expected[k])
      return {};
  RankedTensorType other =
      type.clone({type.getDimSize(0), type.getDimSize(2), type.getDimSize(1), type.getDimSize(3)});
  return rewriter.create<ReshapeOp>(reshape.getLoc(), other, transpose.getOperand(), ValueRange{});
}

/// The permutation of [1, H, len, dim] that merges heads with batch 1 in sequence-first
/// order ([len, 1, H, dim], nn.MultiheadAttention's): the other layout, reshaped.
bool mergesUnitBatchSequenceFirst(TransposeOp transpose) {
  return transpose && llvm::equal(transpose.getPermutation(), ArrayRef<int64_t>{2, 0, 1, 3}) &&
         cast<RankedTensorType>(transpose.getOperand().getType()).getDimSize(0) == 1;
}

/// attention(transpose(x)) reads x in the other layout; transpose(attention(...)), the
/// result's only use, is the attention writing the other layout. Saves the copies
/// attention code makes when it splits a Linear's output into heads and merges them.
/// Head splits with other unit dims and a unit-batch sequence-first merge count too.
struct AbsorbTransposesIntoAttention : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op, PatternRewriter &rewriter) const override {
    SmallVector<bool> layout(op.getHeadsInner());
    SmallVector<Value> operands = {op.getQuery(), op.getKey(), op.getValue()};
    bool changed = false;
    for (unsigned i = 0; i < 3; ++i) {
      if (op.partOf(i) >= 0)
        continue; // a packed operand: already read in place
      if (auto transpose = operands[i].getDefiningOp<TransposeOp>();
          swapsHeadsAndLength(transpose)) {
        operands[i] = transpose.getOperand();
      } else if (Value source = layout[i] ? Value() : unitDimsHeadSplit(operands[i], rewriter)) {
        operands[i] = source;
      } else {
        continue;
      }
      layout[i] = !layout[i];
      changed = true;
    }
    Operation *user = op->hasOneUse() ? *op->getUsers().begin() : nullptr;
    auto outTranspose = dyn_cast_or_null<TransposeOp>(user);
    Type resultType = op.getType();
    bool sequenceFirst = !layout[3] && mergesUnitBatchSequenceFirst(outTranspose);
    if (swapsHeadsAndLength(outTranspose) || sequenceFirst) {
      layout[3] = !layout[3];
      auto type = cast<RankedTensorType>(op.getType());
      resultType = type.clone(
          {type.getDimSize(0), type.getDimSize(2), type.getDimSize(1), type.getDimSize(3)});
      changed = true;
    } else {
      outTranspose = nullptr;
    }
    if (!changed)
      return failure();
    auto fused =
        rewriter.create<AttentionOp>(op.getLoc(), resultType, operands[0], operands[1], operands[2],
                                     op.getBias(), op.getScaleAttr(), op.getCausalAttr(),
                                     rewriter.getDenseBoolArrayAttr(layout), op.getPartsAttr());
    if (outTranspose) {
      Value result = fused.getResult();
      if (sequenceFirst)
        result = rewriter.create<ReshapeOp>(outTranspose.getLoc(), outTranspose.getType(), result,
                                            ValueRange{});
      rewriter.replaceOp(outTranspose, result);
      rewriter.eraseOp(op);
    } else {
      rewriter.replaceOp(op, fused.getResult());
    }
    return success();
  }
};

/// Where an attention key or value operand [B, Hk * G, S, D] repeats each head of a
/// [B, Hk, S, D] tensor G times in a row: reshape(broadcast_in_dim(x)) over a new dim
/// after the heads, as repeat_kv in transformers and the unfused decomposition of
/// enable_gqa write it. `source` is x, or x [B, Hk, 1, S, D] to reshape to `type`.
struct RepeatedHeads {
  Value source;
  RankedTensorType type;

  static std::optional<RepeatedHeads> match(Value operand) {
    auto reshape = operand.getDefiningOp<ReshapeOp>();
    auto broadcast =
        reshape ? reshape.getOperand().getDefiningOp<BroadcastInDimOp>() : BroadcastInDimOp();
    if (!broadcast)
      return std::nullopt;
    auto type = cast<RankedTensorType>(operand.getType());
    auto expanded = cast<RankedTensorType>(broadcast.getType());
    auto source = cast<RankedTensorType>(broadcast.getOperand().getType());
    if (type.getRank() != 4 || expanded.getRank() != 5 || !expanded.hasStaticShape())
      return std::nullopt;
    ArrayRef<int64_t> e = expanded.getShape();
    if (type.getShape() != ArrayRef<int64_t>{e[0], e[1] * e[2], e[3], e[4]})
      return std::nullopt;
    RankedTensorType kv = source.clone({e[0], e[1], e[3], e[4]});
    ArrayRef<int64_t> dims = broadcast.getBroadcastDimensions();
    bool placed = source == kv && llvm::equal(dims, ArrayRef<int64_t>{0, 1, 3, 4});
    bool inPlace = source.getShape() == ArrayRef<int64_t>{e[0], e[1], 1, e[3], e[4]} &&
                   llvm::equal(dims, llvm::seq<int64_t>(0, 5));
    if (!placed && !inPlace)
      return std::nullopt;
    return RepeatedHeads{broadcast.getOperand(), kv};
  }
  Value build(PatternRewriter &rewriter, Location loc) const {
    if (source.getType() == type)
      return source;
    return rewriter.create<ReshapeOp>(loc, type, source, ValueRange{});
  }
};

/// attention(q, repeat(k), repeat(v)) with each key/value head repeated for a group of
/// query heads reads k and v once per group instead (grouped-query attention): the
/// repeated copies are never written.
struct AbsorbRepeatedHeadsIntoAttention : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op, PatternRewriter &rewriter) const override {
    if (op.getHeadsInner()[1] || op.getHeadsInner()[2])
      return failure();
    auto key = RepeatedHeads::match(op.getKey());
    auto value = RepeatedHeads::match(op.getValue());
    if (!key || !value || key->type.getDimSize(1) != value->type.getDimSize(1))
      return failure();
    rewriter.replaceOpWithNewOp<AttentionOp>(
        op, op.getType(), op.getQuery(), key->build(rewriter, op.getLoc()),
        value->build(rewriter, op.getLoc()), op.getBias(), op.getScaleAttr(), op.getCausalAttr(),
        op.getHeadsInnerAttr(), op.getPartsAttr());
    return success();
  }
};

/// attention(reshape(slice(x))) where the slice takes one part p of one dim of x whole,
/// with the dims before it holding [B, len] and those after it [H, dim] in row-major
/// order: x is then a packed [B, len, P, H, dim] projection (a reshape away), of which
/// the op reads part p in place. timm splits its fused q/k/v projection this way
/// ([B, len, 3, H, dim]), nn.MultiheadAttention as [B, len, 1, 3, H * dim]; each slice
/// was a copy.
struct AbsorbPackedSlicesIntoAttention : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  struct Part {
    Value packed;          // x
    int64_t index;         // p
    RankedTensorType type; // [B, len, P, H, dim]
  };

  static std::optional<Part> packedPart(Value operand) {
    auto reshape = operand.getDefiningOp<ReshapeOp>();
    auto slice = reshape ? reshape.getOperand().getDefiningOp<SliceOp>() : SliceOp();
    if (!slice)
      return std::nullopt;
    auto packed = cast<RankedTensorType>(slice.getOperand().getType());
    auto type = cast<RankedTensorType>(operand.getType()); // [B, len, H, dim]
    if (!packed.hasStaticShape() || !type.hasStaticShape() || type.getRank() != 4 ||
        !llvm::all_of(slice.getStrides(), [](int64_t s) { return s == 1; }))
      return std::nullopt;
    std::optional<int64_t> cut;
    for (int64_t d = 0; d < packed.getRank(); ++d) {
      int64_t start = slice.getStartIndices()[d], limit = slice.getLimitIndices()[d];
      if (start == 0 && limit == packed.getDimSize(d))
        continue;
      if (cut || limit != start + 1)
        return std::nullopt;
      cut = d;
    }
    if (!cut)
      return std::nullopt;
    ArrayRef<int64_t> p = packed.getShape(), t = type.getShape();
    int64_t before = 1, after = 1;
    for (int64_t d = 0; d < packed.getRank(); ++d) {
      if (d < *cut)
        before *= p[d];
      else if (d > *cut)
        after *= p[d];
    }
    if (before != t[0] * t[1] || after != t[2] * t[3])
      return std::nullopt;
    return Part{slice.getOperand(), slice.getStartIndices()[*cut],
                type.clone({t[0], t[1], p[*cut], t[2], t[3]})};
  }

  LogicalResult matchAndRewrite(AttentionOp op, PatternRewriter &rewriter) const override {
    SmallVector<Value> operands = {op.getQuery(), op.getKey(), op.getValue()};
    SmallVector<int64_t> parts = {op.partOf(0), op.partOf(1), op.partOf(2)};
    llvm::SmallDenseMap<Value, Value> views;
    bool changed = false;
    for (unsigned i = 0; i < 3; ++i) {
      if (parts[i] >= 0 || !op.getHeadsInner()[i])
        continue;
      if (auto found = packedPart(operands[i])) {
        Value &view = views[found->packed]; // one reshape for q, k and v
        if (!view)
          view = found->packed.getType() == found->type
                     ? found->packed
                     : rewriter.create<ReshapeOp>(op.getLoc(), found->type, found->packed,
                                                  ValueRange{});
        operands[i] = view;
        parts[i] = found->index;
        changed = true;
      }
    }
    if (!changed)
      return failure();
    rewriter.replaceOpWithNewOp<AttentionOp>(
        op, op.getType(), operands[0], operands[1], operands[2], op.getBias(), op.getScaleAttr(),
        op.getCausalAttr(), op.getHeadsInnerAttr(), rewriter.getDenseI64ArrayAttr(parts));
    return success();
  }
};

} // namespace

void AttentionOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<AbsorbTransposesIntoAttention, AbsorbRepeatedHeadsIntoAttention,
               AbsorbPackedSlicesIntoAttention>(context);
}

namespace {

/// The value `v` widens exactly (f16 or bf16 -> f32), if it is such a convert.
Value widenedSource(Value v) {
  auto convert = v ? v.getDefiningOp<ConvertOp>() : ConvertOp();
  if (!convert)
    return {};
  auto from = dyn_cast<FloatType>(getElementTypeOrSelf(convert.getOperand().getType()));
  auto to = dyn_cast<FloatType>(getElementTypeOrSelf(convert.getType()));
  if (!from || !to || from.getFPMantissaWidth() >= to.getFPMantissaWidth() ||
      from.getWidth() >= to.getWidth())
    return {};
  return convert.getOperand();
}

/// w where `user` = y * broadcast(w) (either order), w of y's element type along y's last
/// dim.
Value rmsWeightOf(Operation *user, Value y) {
  auto mul = dyn_cast_or_null<MulOp>(user);
  if (!mul)
    return {};
  Value other = mul.getLhs() == y ? mul.getRhs() : mul.getLhs();
  auto broadcast = other.getDefiningOp<BroadcastInDimOp>();
  auto type = cast<RankedTensorType>(y.getType());
  if (!broadcast || broadcast.getType() != type || mul.getType() != type ||
      !llvm::equal(broadcast.getBroadcastDimensions(), ArrayRef<int64_t>{type.getRank() - 1}))
    return {};
  return broadcast.getOperand();
}

/// layer_norm computes in f32 from any float operands and rounds once to its result
/// type: a widening convert of an operand, or a convert of its only use, is part of it;
/// so is an add whose only use it is (the residual connection before a post-norm).
struct AbsorbConvertsIntoLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LayerNormOp op, PatternRewriter &rewriter) const override {
    Value operands[4] = {op.getInput(), op.getResidual(), op.getWeight(), op.getBias()};
    bool changed = false;
    // The affine operands widen exactly; the input only without a residual (the sum is
    // rounded to the input's type).
    for (int i : {0, 2, 3}) {
      if (i == 0 && operands[1])
        continue;
      if (Value source = widenedSource(operands[i])) {
        operands[i] = source;
        changed = true;
      }
    }
    // x + r feeding only the op: the op adds (in the add's type).
    if (!operands[1])
      if (auto add = operands[0].getDefiningOp<AddOp>(); add && add->hasOneUse() &&
                                                         add.getLhs().getType() == add.getType() &&
                                                         add.getRhs().getType() == add.getType()) {
        operands[0] = add.getLhs();
        operands[1] = add.getRhs();
        changed = true;
      }
    Operation *user = op->hasOneUse() ? *op->getUsers().begin() : nullptr;
    // Only a rounding convert: widening the result would skip the rounding to its type.
    auto outConvert = dyn_cast_or_null<ConvertOp>(user);
    auto target =
        outConvert ? dyn_cast<FloatType>(getElementTypeOrSelf(outConvert.getType())) : FloatType();
    if (outConvert && (!target || target.getWidth() > op.getType().getElementTypeBitWidth()))
      outConvert = nullptr;
    // An RMS norm rounds to its result type before the weight: another type moves that.
    if (op.getRms() && operands[2])
      outConvert = nullptr;
    // An RMS norm without weight whose only use scales it by a weight of its own type
    // along the last dim: the op's weight is that product (rounded to the result, then
    // times the weight, rounded again). The form's matcher sees only the weight multiply
    // of its moment; one written through reshapes becomes this shape later.
    Operation *weighting = nullptr;
    if (op.getRms() && !operands[2] && !operands[3] && !outConvert)
      if (Value w = rmsWeightOf(user, op.getResult())) {
        operands[2] = w;
        weighting = user;
      }
    if (!changed && !outConvert && !weighting)
      return failure();
    Operation *replaced = outConvert ? outConvert.getOperation() : weighting;
    Type resultType = replaced ? replaced->getResult(0).getType() : op.getType();
    auto fused =
        rewriter.create<LayerNormOp>(op.getLoc(), resultType, operands[0], operands[1], operands[2],
                                     operands[3], op.getEpsilonAttr(), op.getRmsAttr());
    if (replaced) {
      rewriter.replaceOp(replaced, fused.getResult());
      rewriter.eraseOp(op);
    } else {
      rewriter.replaceOp(op, fused.getResult());
    }
    return success();
  }
};

} // namespace

void LayerNormOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<AbsorbConvertsIntoLayerNorm>(context);
}
