// The toolkit of aten -> prim decompositions: builds prim ops at the aten op being
// rewritten and makes ATen's implicit semantics explicit (type promotion, numpy
// broadcasting, Scalar arguments, dynamic sizes).
//
// Helpers never return failure: the first one that cannot do its job records why and
// returns a null Value, later calls do nothing, and the pattern driver
// (DecompositionSet.h) reports the failure once the decomposition returns. The dialect
// conversion then rolls back whatever was created. This keeps decompositions as short
// as the formulas they implement.
#ifndef PT2C_COMPILER_TRANSFORMS_DECOMPOSE_PRIMBUILDER_H
#define PT2C_COMPILER_TRANSFORMS_DECOMPOSE_PRIMBUILDER_H

#include <algorithm>
#include <optional>
#include <string>

#include "ir/prim/PrimDialect.h"
#include "ir/symbolic/SymExpr.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/StringSet.h"

namespace pt2c::decompose {

/// The identity of a reduction of `elementType` elements: folding it in changes nothing
/// (0 for SUM, 1 for PROD, -inf or the lowest integer for MAX, ...).
mlir::TypedAttr reductionIdentity(prim::ReduceKind kind, mlir::Type elementType);

class PrimBuilder {
public:
  PrimBuilder(mlir::PatternRewriter &rewriter, mlir::Operation *atenOp)
      : rewriter(rewriter), atenOp(atenOp) {}

  /// The type of result `i` of the aten op (exact: it comes from the trace).
  mlir::RankedTensorType resultType(unsigned i = 0) const;
  mlir::Type resultElementType(unsigned i = 0) const { return resultType(i).getElementType(); }
  mlir::Location loc() const { return atenOp->getLoc(); }

  bool failed() const { return !failure.empty(); }
  const std::string &failureReason() const { return failure; }
  /// Records why the decomposition does not apply; returns a null Value.
  mlir::Value fail(const llvm::Twine &why);

  /// Creates a single-result prim op (nothing once a helper has failed). An op whose
  /// result type is inferred is built with its types inferred here first: ODS's
  /// inferring builder calls report_fatal_error when inference fails (operands that
  /// disagree, as a damaged artifact's can), this records a failure instead, after
  /// inference has emitted its reason as a diagnostic at the aten op.
  template <typename OpT, typename... Args> mlir::Value create(Args &&...args) {
    if (failed())
      return {};
    if constexpr (hasTypeRangeBuilder<OpT, Args...>(0)) {
      mlir::OperationState state(loc(), OpT::getOperationName());
      OpT::build(rewriter, state, mlir::TypeRange(), std::forward<Args>(args)...);
      llvm::SmallVector<mlir::Type, 1> types;
      if (mlir::failed(OpT::inferReturnTypes(rewriter.getContext(), loc(), state.operands,
                                             state.attributes.getDictionary(rewriter.getContext()),
                                             state.getRawProperties(), state.regions, types)))
        return fail("the operands of " + OpT::getOperationName() + " do not fit together");
      state.addTypes(types);
      return rewriter.create(state)->getResult(0);
    }
    return rewriter.create<OpT>(loc(), std::forward<Args>(args)...)->getResult(0);
  }

  //===--- constants ---===//

  /// `scalar` (an aten Scalar: IntegerAttr, FloatAttr or BoolAttr) as `elementType`.
  mlir::TypedAttr scalarAttr(mlir::Attribute scalar, mlir::Type elementType);
  mlir::TypedAttr scalarAttr(double value, mlir::Type elementType);
  /// A tensor of `type` with `value` everywhere: a splat prim.constant, or a rank-0
  /// constant broadcast to the dynamic sizes of `type` (taken from `like` values with
  /// the same shape, else from the aten op's operands).
  mlir::Value splat(mlir::TypedAttr value, mlir::RankedTensorType type, mlir::ValueRange like = {});
  mlir::Value splat(double value, mlir::RankedTensorType type, mlir::ValueRange like = {});

  //===--- promotion and broadcasting ---===//

  /// `value` with element type `elementType` (prim.convert unless it already is).
  mlir::Value convert(mlir::Value value, mlir::Type elementType);
  /// Numpy broadcast (trailing dims aligned) of `value` to the shape of `type`.
  mlir::Value broadcastTo(mlir::Value value, mlir::RankedTensorType type,
                          mlir::ValueRange like = {});
  /// prim.broadcast_in_dim to `type` (whose element type must be value's).
  mlir::Value broadcastInDim(mlir::Value value, mlir::RankedTensorType type,
                             llvm::ArrayRef<int64_t> dims, mlir::ValueRange like = {});
  /// `value` converted and broadcast to be an operand of an elementwise op whose
  /// result type is `type`.
  mlir::Value elementwiseOperand(mlir::Value value, mlir::RankedTensorType type,
                                 mlir::ValueRange like = {});
  /// `value * factor` for an optional aten Scalar factor; `value` itself if the factor
  /// is absent or 1.
  mlir::Value scaleBy(mlir::Value value, mlir::Attribute factor);

  //===--- shapes ---===//

  mlir::Value transpose(mlir::Value value, llvm::ArrayRef<int64_t> permutation);
  /// prim.reshape to `type`; dynamic result sizes must correspond one to one to the
  /// dynamic sizes of `value`.
  mlir::Value reshape(mlir::Value value, mlir::RankedTensorType type);
  /// `value` gathered along `dim` at the constant positions `indices` (resizing,
  /// flipping and the reflection and replication pads pick rows this way).
  mlir::Value gatherAt(mlir::Value value, int64_t dim, llvm::ArrayRef<int64_t> indices);
  mlir::Value dotGeneral(mlir::Value lhs, mlir::Value rhs, llvm::ArrayRef<int64_t> lhsBatch,
                         llvm::ArrayRef<int64_t> rhsBatch, llvm::ArrayRef<int64_t> lhsContract,
                         llvm::ArrayRef<int64_t> rhsContract);

  //===--- reductions ---===//

  /// prim.reduce of `dims` of `value` starting from the identity of `kind` (0 for SUM,
  /// -inf or the lowest integer for MAX, ...).
  mlir::Value reduce(prim::ReduceKind kind, mlir::Value value, llvm::ArrayRef<int64_t> dims);
  /// A reduction result broadcast back to `type`, the shape it was reduced from
  /// (keepdim and expand in one): `reducedDims` are the dims that reduce removed.
  mlir::Value broadcastReduced(mlir::Value reduced, mlir::RankedTensorType type,
                               llvm::ArrayRef<int64_t> reducedDims, mlir::ValueRange like = {});

  //===--- dynamic dimensions ---===//

  /// The expression of an int argument (position < 0) or int-list entry that follows
  /// the graph's dynamic dimensions, as index arithmetic; null if it is static. An op
  /// with such an argument decomposes only when its decomposition asked for it here (or
  /// said it takes the sizes from the result type): a traced constant would be wrong at
  /// other sizes.
  mlir::Value symbolicInt(llvm::StringRef arg, int position = -1);
  std::optional<sym::Expr> symbolicIntExpr(llvm::StringRef arg, int position = -1);
  /// The size of dim `d` of result `i` as the trace recorded it (null if unknown).
  mlir::Value tracedResultSize(unsigned i, int64_t d);
  /// `arg` (view's size, expand's size) is what the result type already says.
  void sizesFollowResultType(llvm::StringRef arg) { handledArgs.insert(arg); }
  /// The first symbolic argument no decomposition step handled; empty if none.
  std::string unhandledSymbolicArgument() const;

  /// Index values for the dynamic dims of `type`: dims of a `like` value of the same
  /// rank if given, else a trailing-aligned dynamic dim of one of the aten operands.
  llvm::SmallVector<mlir::Value> dynamicSizes(mlir::RankedTensorType type,
                                              mlir::ValueRange like = {});

private:
  /// Whether OpT infers its result types and has ODS's builder taking explicit result
  /// types before `Args` (every inferring builder has one).
  template <typename OpT, typename... Args>
  static constexpr auto hasTypeRangeBuilder(int)
      -> decltype(OpT::build(std::declval<mlir::OpBuilder &>(),
                             std::declval<mlir::OperationState &>(),
                             std::declval<mlir::TypeRange>(), std::declval<Args>()...),
                  bool()) {
    return OpT::template hasTrait<mlir::InferTypeOpInterface::Trait>();
  }
  template <typename OpT, typename... Args> static constexpr bool hasTypeRangeBuilder(...) {
    return false;
  }

  mlir::PatternRewriter &rewriter;
  mlir::Operation *atenOp;
  std::string failure;
  llvm::StringSet<> handledArgs;
};

/// The ranked tensor type of a value (all aten and prim values have one).
inline mlir::RankedTensorType tensorType(mlir::Value value) {
  return mlir::cast<mlir::RankedTensorType>(value.getType());
}

/// The value of an optional aten Scalar attribute as a double, or `otherwise`.
double scalarValue(mlir::Attribute scalar, double otherwise);

/// A dim argument in [-rank, rank) made non-negative (a 0-d tensor has dims 0 and -1).
inline int64_t normalizeDim(int64_t dim, int64_t rank) {
  return dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
}

/// The type sums are accumulated in: half-precision floats in f32 (as ATen's CPU
/// kernels do), the rest in their own type.
inline mlir::Type accumulationType(mlir::Type elementType) {
  if (mlir::isa<mlir::Float16Type, mlir::BFloat16Type>(elementType))
    return mlir::Float32Type::get(elementType.getContext());
  return elementType;
}

} // namespace pt2c::decompose

#endif // PT2C_COMPILER_TRANSFORMS_DECOMPOSE_PRIMBUILDER_H
