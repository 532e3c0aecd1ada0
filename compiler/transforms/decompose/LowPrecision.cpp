// f16 and bf16 arithmetic runs in f32, as in PyTorch's CPU kernels (their "opmath"
// type): an aten op with half or bfloat tensors is rebuilt with f32 operands and
// results, and its results are rounded back to the traced dtype. Its decomposition
// (constants, sums, statistics, transcendental functions) then computes in f32 while the
// values between aten ops keep the model's dtype, so results stay within rounding of
// eager's in the same dtype.
//
// Left in their dtype: ops that only move, select or compare-and-pick values (exact in
// any type), ops that request a dtype themselves, and matrix products and convolutions,
// whose lowering accumulates in f32 on its own (lower/LowPrecision.h) so that half
// weights stay half and vendor GEMMs can take them; and attention, which converts its
// operands to f32 itself (or, fused, computes in f32 from half operands).
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "ir/aten/AtenDtypeRules.h"
#include "ir/prim/PrimDialect.h"
#include "llvm/ADT/StringSet.h"

namespace pt2c::decompose {
namespace {

bool isLowPrecision(mlir::Type type) {
  auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
  return tensor && (tensor.getElementType().isF16() || tensor.getElementType().isBF16());
}

bool keepsItsDtype(llvm::StringRef name) {
  static const llvm::StringSet<> kNames = {
      // views and data movement
      "aten.t",
      "aten.transpose.int",
      "aten.permute",
      "aten.view",
      "aten.reshape",
      "aten._unsafe_view",
      "aten.expand",
      "aten.unsqueeze",
      "aten.squeeze",
      "aten.squeeze.dim",
      "aten.squeeze.dims",
      "aten.alias",
      "aten.detach",
      "aten.slice.Tensor",
      "aten.select.int",
      "aten.split.Tensor",
      "aten.split_with_sizes",
      "aten.unbind.int",
      "aten.unsafe_split.Tensor",
      "aten.unsafe_chunk",
      "aten.clone",
      "aten.contiguous",
      "aten.lift_fresh",
      "aten.copy_",
      "aten.cat",
      "aten.stack",
      "aten.roll",
      "aten.constant_pad_nd",
      "aten.index_select",
      "aten.embedding",
      "aten.gather",
      "aten.index.Tensor",
      "aten.index_copy",
      "aten.index_copy_",
      "aten.upsample_nearest2d",
      "aten.upsample_nearest2d.vec",
      "aten.tril",
      "aten.triu",
      "aten.fill.Scalar",
      "aten.fill_.Scalar",
      "aten.zero",
      "aten.zero_",
      // conversions: the op is the rounding
      "aten._to_copy",
      // selections: exact in the traced dtype
      "aten.where.self",
      "aten.masked_fill.Scalar",
      "aten.masked_fill.Tensor",
      "aten.masked_fill_.Scalar",
      "aten.masked_fill_.Tensor",
      "aten.relu",
      "aten.relu_",
      "aten.max_pool2d_with_indices",
      "aten.amax",
      "aten.amin",
      "aten.maximum",
      "aten.minimum",
      // contractions: the lowering accumulates in f32
      "aten.mm",
      "aten.bmm",
      "aten.matmul",
      "aten.addmm",
      "aten.linear",
      "aten.baddbmm",
      "aten.convolution",
      // attention converts q, k and v to f32 itself, or (fused) computes in f32
      "aten.scaled_dot_product_attention",
      "aten._scaled_dot_product_flash_attention_for_cpu",
  };
  return kNames.contains(name);
}

struct ComputeInF32 : mlir::RewritePattern {
  explicit ComputeInF32(mlir::MLIRContext *context)
      // Before the op's own decomposition, which then sees the f32 clone.
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, context) {}

  mlir::LogicalResult matchAndRewrite(mlir::Operation *op,
                                      mlir::PatternRewriter &rewriter) const override {
    if (!llvm::isa<aten::AtenDialect>(op->getDialect()) || op->getNumRegions() != 0 ||
        keepsItsDtype(op->getName().getStringRef()) || op->hasAttr("dtype"))
      return mlir::failure();
    if (llvm::none_of(op->getOperandTypes(), isLowPrecision) &&
        llvm::none_of(op->getResultTypes(), isLowPrecision))
      return mlir::failure();
    mlir::Type f32 = rewriter.getF32Type();
    auto widened = [&](mlir::Type type) {
      return isLowPrecision(type) ? mlir::cast<mlir::RankedTensorType>(type).clone(f32) : type;
    };
    // An elementwise op first casts every operand to the common dtype (a f32 zero-dim
    // tensor next to a f16 tensor is rounded to f16), as eager's TensorIterator does.
    std::optional<mlir::Type> common = aten::commonDtype(op);
    if (common && !(common->isF16() || common->isBF16()))
      common.reset();
    mlir::OperationState state(op->getLoc(), op->getName());
    for (mlir::Value operand : op->getOperands()) {
      auto type = mlir::cast<mlir::RankedTensorType>(operand.getType());
      if (common && type.getElementType() != *common) {
        type = type.clone(*common);
        operand = rewriter.create<prim::ConvertOp>(op->getLoc(), type, operand);
      }
      state.operands.push_back(isLowPrecision(type) ? mlir::Value(rewriter.create<prim::ConvertOp>(
                                                          op->getLoc(), widened(type), operand))
                                                    : operand);
    }
    for (mlir::Type type : op->getResultTypes())
      state.types.push_back(widened(type));
    state.addAttributes(op->getAttrs());
    mlir::Operation *wide = rewriter.create(state);
    llvm::SmallVector<mlir::Value> results;
    for (auto [result, original] : llvm::zip_equal(wide->getResults(), op->getResultTypes()))
      results.push_back(
          result.getType() == original
              ? mlir::Value(result)
              : rewriter.create<prim::ConvertOp>(op->getLoc(), original, result).getResult());
    rewriter.replaceOp(op, results);
    return mlir::success();
  }
};

} // namespace

void populateLowPrecisionDecompositions(mlir::RewritePatternSet &patterns) {
  patterns.add<ComputeInF32>(patterns.getContext());
}

} // namespace pt2c::decompose
