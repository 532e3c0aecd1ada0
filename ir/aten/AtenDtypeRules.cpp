// Dtype rules for aten ops, written once per *kind* of op and registered for every op
// name of that kind, as PyTorch (c10/core/ScalarType.h promoteTypes, ATen's
// TensorIterator and each op's own checks) computes result dtypes on CPU, the device the
// exporter traces on.
//
// Type promotion (torch.result_type): operands fall into three priority classes,
// dimensioned tensors > zero-dim tensors > Python numbers (Scalar attributes; the
// importer turns a number in a Tensor slot into a zero-dim constant of the result
// dtype, which promotes the same way). Within a class dtypes promote with
// promote_types; a lower class only matters if its category (bool < integer <
// floating) is higher, and then a float number counts as the default dtype (float32)
// while a zero-dim tensor keeps its own dtype.
#include "ir/aten/AtenDtypeRules.h"

#include <algorithm>

#include "ir/artifact/pt2c.pb.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using llvm::SmallVector;

namespace pt2c::aten {
namespace {

using Types = SmallVector<Type>;

bool isBool(Type t) { return t && t.isInteger(1); }
bool isFloating(Type t) { return t && isa<FloatType>(t); }
bool isIntegral(Type t) { return t && isa<IntegerType>(t) && !t.isInteger(1); }

/// The dtype a Python number gets as a wrapped number: int64, bool, or the default
/// dtype (float32) for a float. BoolAttr is an IntegerAttr of i1, so it comes first.
Type numberType(Attribute attr, MLIRContext *ctx) {
  if (isa_and_nonnull<BoolAttr>(attr))
    return IntegerType::get(ctx, 1);
  if (isa_and_nonnull<IntegerAttr>(attr))
    return IntegerType::get(ctx, 64);
  if (isa_and_nonnull<FloatAttr>(attr))
    return Float32Type::get(ctx);
  return {};
}

/// c10's combine_categories: `higher` (a more dimensioned class) keeps its dtype unless
/// `lower` is of a higher category.
Type combineCategories(Type higher, Type lower) {
  if (!higher)
    return lower;
  if (!lower || higher == lower || isFloating(higher))
    return higher;
  if (isBool(higher) || isFloating(lower))
    return promoteTypes(higher, lower);
  return higher;
}

/// torch.result_type over tensors (by rank) and Python numbers.
struct Promotion {
  Type dimensioned, zeroDim, numbers;
  void tensor(Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    Type &slot = type.getRank() > 0 ? dimensioned : zeroDim;
    slot = promoteTypes(slot, type.getElementType());
  }
  void number(Attribute attr, MLIRContext *ctx) {
    numbers = promoteTypes(numbers, numberType(attr, ctx));
  }
  Type result() const {
    return combineCategories(dimensioned, combineCategories(zeroDim, numbers));
  }
};

/// c10::canCast: what an in-place op may write into its self operand.
bool canCast(Type from, Type to) {
  if (isFloating(from) && !isFloating(to))
    return false;
  return !(isBool(to) && !isBool(from));
}

std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// What a rule sees: operand dtypes and ranks, attributes, and error reporting.
class DtypeQuery {
public:
  DtypeQuery(Operation *op, bool diagnose) : op(op), diagnose(diagnose) {}

  MLIRContext *ctx() const { return op->getContext(); }
  unsigned numOperands() const { return op->getNumOperands(); }
  unsigned numResults() const { return op->getNumResults(); }
  Value operand(unsigned i) const { return op->getOperand(i); }
  Type elem(unsigned i) const {
    return cast<RankedTensorType>(op->getOperand(i).getType()).getElementType();
  }
  int64_t rank(unsigned i) const {
    return cast<RankedTensorType>(op->getOperand(i).getType()).getRank();
  }
  Attribute attr(StringRef name) const { return op->getAttr(name); }
  Type f32() const { return Float32Type::get(ctx()); }
  Type i64() const { return IntegerType::get(ctx(), 64); }
  Type i1() const { return IntegerType::get(ctx(), 1); }

  /// The `dtype` (ScalarType) attribute: std::nullopt when absent, a null type after
  /// reporting a number that names no dtype.
  std::optional<Type> dtypeAttr() {
    auto attr = op->getAttrOfType<IntegerAttr>("dtype");
    if (!attr)
      return std::nullopt;
    Type t = elementTypeOfScalarType(ctx(), attr.getInt());
    if (!t)
      (void)fail("`dtype` " + Twine(attr.getInt()) + " names no dtype");
    return t;
  }

  /// torch.result_type of every tensor operand and the Python numbers among `numbers`.
  Type promoted(ArrayRef<StringRef> numbers = {"self", "other", "exponent"}) const {
    Promotion p;
    for (Value v : op->getOperands())
      p.tensor(v);
    for (StringRef name : numbers)
      p.number(op->getAttr(name), ctx());
    return p.result();
  }

  LogicalResult fail(const Twine &message) {
    if (diagnose)
      op->emitOpError(message);
    return failure();
  }

  /// Fails unless operand `i` has one of `allowed` element types (an index or mask).
  LogicalResult expectOperand(unsigned i, StringRef what, ArrayRef<Type> allowed) {
    if (llvm::is_contained(allowed, elem(i)))
      return success();
    std::string names;
    for (Type t : allowed)
      names += (names.empty() ? "" : " or ") + str(t);
    return fail(what + " must be " + names + ", got " + str(elem(i)));
  }

private:
  Operation *op;
  bool diagnose;
};

using Rule = LogicalResult (*)(DtypeQuery &, Types &);

void setAll(DtypeQuery &q, Types &out, Type t) { out.assign(q.numResults(), t); }

//===--- same dtype as an operand ---===//

/// Views, copies, padding, selection by index, pooling, resizing: the input's dtype.
LogicalResult sameAsSelf(DtypeQuery &q, Types &out) {
  setAll(q, out, q.elem(0));
  return success();
}

/// relu, abs, neg, hardtanh: the input's dtype, but PyTorch rejects bool.
LogicalResult selfNotBool(DtypeQuery &q, Types &out) {
  if (isBool(q.elem(0)))
    return q.fail("does not support bool input");
  return sameAsSelf(q, out);
}

/// gelu, silu, hardswish, hardsigmoid, elu, leaky_relu, var: kernels only for floating
/// dtypes.
LogicalResult floatOnly(DtypeQuery &q, Types &out) {
  if (!isFloating(q.elem(0)))
    return q.fail("expects a floating-point input, got " + str(q.elem(0)));
  return sameAsSelf(q, out);
}

/// exp, log, erf, sqrt, rsqrt, sigmoid, tanh, sin, cos: integer and bool inputs are
/// promoted to the default dtype.
LogicalResult floatingUnary(DtypeQuery &q, Types &out) {
  setAll(q, out, isFloating(q.elem(0)) ? q.elem(0) : q.f32());
  return success();
}

LogicalResult bitwiseNot(DtypeQuery &q, Types &out) {
  if (isFloating(q.elem(0)))
    return q.fail("expects a bool or integer input, got " + str(q.elem(0)));
  return sameAsSelf(q, out);
}

/// masked_fill: self's dtype whatever the value's; the mask is bool, a tensor value
/// zero-dim.
LogicalResult maskedFill(DtypeQuery &q, Types &out) {
  if (failed(q.expectOperand(1, "the mask", {q.i1()})))
    return failure();
  if (q.numOperands() > 2 && q.rank(2) != 0)
    return q.fail("expects a zero-dim value tensor, got rank " + Twine(q.rank(2)));
  return sameAsSelf(q, out);
}

/// _embedding_bag(weight, indices, offsets, ..., per_sample_weights): the bags in the
/// weight's dtype, then offset2bag, bag_size and max_indices as int64; integer indices
/// and offsets, per-sample weights of the weight's dtype.
LogicalResult embeddingBag(DtypeQuery &q, Types &out) {
  Type i32 = IntegerType::get(q.ctx(), 32);
  if (failed(q.expectOperand(1, "the indices", {q.i64(), i32})) ||
      failed(q.expectOperand(2, "the offsets", {q.i64(), i32})) ||
      (q.numOperands() > 3 && failed(q.expectOperand(3, "the per-sample weights", {q.elem(0)}))))
    return failure();
  out = {q.elem(0), q.i64(), q.i64(), q.i64()};
  return success();
}

/// masked_scatter(self, mask, source): a bool mask and a source of self's dtype.
LogicalResult maskedScatter(DtypeQuery &q, Types &out) {
  if (failed(q.expectOperand(1, "the mask", {q.i1()})) ||
      failed(q.expectOperand(2, "the source", {q.elem(0)})))
    return failure();
  return sameAsSelf(q, out);
}

/// Matrix products and convolution: PyTorch does not promote them; every tensor
/// operand must have the input's dtype.
LogicalResult sameDtypeOperands(DtypeQuery &q, Types &out) {
  for (unsigned i = 1; i < q.numOperands(); ++i)
    if (q.elem(i) != q.elem(0))
      return q.fail("expects operands of one dtype (PyTorch does not promote them), got " +
                    str(q.elem(0)) + " and " + str(q.elem(i)));
  return sameAsSelf(q, out);
}

/// scaled_dot_product_attention: query, key and value of one dtype (the mask may be
/// bool or any float).
LogicalResult attention(DtypeQuery &q, Types &out) {
  for (unsigned i : {1u, 2u})
    if (q.elem(i) != q.elem(0))
      return q.fail("expects query, key and value of one dtype, got " + str(q.elem(0)) + " and " +
                    str(q.elem(i)));
  setAll(q, out, q.elem(0));
  // _scaled_dot_product_flash_attention_for_cpu: logsumexp in the accumulation type.
  if (out.size() == 2 && (q.elem(0).isF16() || q.elem(0).isBF16()))
    out[1] = q.f32();
  return success();
}

/// embedding: the weight's dtype, indexed by int32 or int64.
LogicalResult embedding(DtypeQuery &q, Types &out) {
  Type i32 = IntegerType::get(q.ctx(), 32);
  if (failed(q.expectOperand(1, "the indices", {q.i64(), i32})))
    return failure();
  return sameAsSelf(q, out);
}

/// index_select and gather: self's dtype, an int32 or int64 index.
LogicalResult indexBy(DtypeQuery &q, Types &out) {
  Type i32 = IntegerType::get(q.ctx(), 32);
  if (failed(q.expectOperand(1, "the index", {q.i64(), i32})))
    return failure();
  return sameAsSelf(q, out);
}

/// index.Tensor: self's dtype; index tensors are integers, or bool/uint8 masks.
LogicalResult indexTensor(DtypeQuery &q, Types &out) {
  Type i32 = IntegerType::get(q.ctx(), 32);
  Type u8 = IntegerType::get(q.ctx(), 8, IntegerType::Unsigned);
  for (unsigned i = 1; i < q.numOperands(); ++i)
    if (failed(q.expectOperand(i, "an index tensor", {q.i64(), i32, u8, q.i1()})))
      return failure();
  return sameAsSelf(q, out);
}

/// index_copy(self, index, source): an int64 index and a source of self's dtype.
LogicalResult indexCopy(DtypeQuery &q, Types &out) {
  if (failed(q.expectOperand(1, "the index", {q.i64()})) ||
      failed(q.expectOperand(2, "the source", {q.elem(0)})))
    return failure();
  return sameAsSelf(q, out);
}

/// scatter.src/scatter_add/index_add/scatter_reduce(self, index, src) and
/// scatter.value(self, index): an
/// int32 or int64 index and a source of self's dtype.
LogicalResult scatter(DtypeQuery &q, Types &out) {
  Type i32 = IntegerType::get(q.ctx(), 32);
  if (failed(q.expectOperand(1, "the index", {q.i64(), i32})) ||
      (q.numOperands() > 2 && failed(q.expectOperand(2, "the source", {q.elem(0)}))))
    return failure();
  return sameAsSelf(q, out);
}

/// index_put(self, indices..., values): values of self's dtype.
LogicalResult indexPut(DtypeQuery &q, Types &out) {
  if (failed(q.expectOperand(q.numOperands() - 1, "the values", {q.elem(0)})))
    return failure();
  return sameAsSelf(q, out);
}

/// index_fill(self, index, value): an int64 index.
LogicalResult indexFill(DtypeQuery &q, Types &out) {
  if (failed(q.expectOperand(1, "the index", {q.i64()})))
    return failure();
  return sameAsSelf(q, out);
}

//===--- promotion ---===//

/// add/sub/mul/rsub and maximum/minimum: the promoted dtype. An `alpha` may not be a
/// float for an integral result, nor a bool for a non-bool one.
LogicalResult promoteOperands(DtypeQuery &q, Types &out) {
  Type t = q.promoted();
  Attribute alpha = q.attr("alpha");
  if (isa_and_nonnull<FloatAttr>(alpha) && !isFloating(t))
    return q.fail("`alpha` must not be a floating point number for a " + str(t) + " result");
  if (isa_and_nonnull<BoolAttr>(alpha) && !isBool(t))
    return q.fail("a bool `alpha` is only supported for a bool result");
  setAll(q, out, t);
  return success();
}

/// sub and rsub: as add, but PyTorch refuses bool operands.
LogicalResult subtract(DtypeQuery &q, Types &out) {
  bool anyBool = isBool(numberType(q.attr("other"), q.ctx()));
  for (unsigned i = 0; i < q.numOperands(); ++i)
    anyBool |= isBool(q.elem(i));
  if (anyBool)
    return q.fail("subtraction with a bool operand is not supported");
  return promoteOperands(q, out);
}

/// div.Tensor / div.Scalar (true division): integer and bool results become the default
/// dtype.
LogicalResult trueDivide(DtypeQuery &q, Types &out) {
  Type t = q.promoted();
  setAll(q, out, isFloating(t) ? t : q.f32());
  return success();
}

/// pow: the promoted dtype; integers cannot take negative integer powers.
LogicalResult power(DtypeQuery &q, Types &out) {
  Type t = q.promoted();
  auto exponent = dyn_cast_or_null<IntegerAttr>(q.attr("exponent"));
  if (isIntegral(t) && exponent && !isa<BoolAttr>(exponent) && exponent.getInt() < 0)
    return q.fail("integers to negative integer powers are not allowed");
  setAll(q, out, t);
  return success();
}

LogicalResult bitwise(DtypeQuery &q, Types &out) {
  Type t = q.promoted();
  if (isFloating(t))
    return q.fail("expects bool or integer operands, got " + str(t));
  setAll(q, out, t);
  return success();
}

/// div with a rounding_mode: true division without one; "trunc" and "floor" keep the
/// promoted dtype (integers divide to integers).
LogicalResult divideRounding(DtypeQuery &q, Types &out) {
  if (!q.attr("rounding_mode"))
    return trueDivide(q, out);
  setAll(q, out, q.promoted());
  return success();
}

/// floor_divide: the promoted dtype (integers divide to integers); PyTorch has no bool
/// kernel.
LogicalResult floorDivide(DtypeQuery &q, Types &out) {
  Type t = q.promoted();
  if (isBool(t))
    return q.fail("floor division of bools is not supported");
  setAll(q, out, t);
  return success();
}

/// addcmul / addcdiv: the promoted dtype of the three tensors; addcdiv of integers is
/// refused (it would be true division), as is a float `value` for an integral result.
LogicalResult addCombined(DtypeQuery &q, Types &out, bool divide) {
  Type t = q.promoted();
  if (divide && !isFloating(t))
    return q.fail("integer division with addcdiv is not supported");
  if (isa_and_nonnull<FloatAttr>(q.attr("value")) && !isFloating(t))
    return q.fail("`value` must not be a floating point number for a " + str(t) + " result");
  setAll(q, out, t);
  return success();
}
LogicalResult addcmul(DtypeQuery &q, Types &out) { return addCombined(q, out, false); }
LogicalResult addcdiv(DtypeQuery &q, Types &out) { return addCombined(q, out, true); }

/// clamp: self promoted with its bounds (Scalars or tensors).
LogicalResult clamp(DtypeQuery &q, Types &out) {
  setAll(q, out, q.promoted({"min", "max"}));
  return success();
}

/// Comparisons and logical ops: bool, whatever the operands.
LogicalResult boolResult(DtypeQuery &q, Types &out) {
  setAll(q, out, q.i1());
  return success();
}

/// where(condition, self, other): a bool (or deprecated uint8) condition; self and other
/// promote.
LogicalResult where(DtypeQuery &q, Types &out) {
  Type u8 = IntegerType::get(q.ctx(), 8, IntegerType::Unsigned);
  if (failed(q.expectOperand(0, "the condition", {q.i1(), u8})))
    return failure();
  Promotion p;
  p.tensor(q.operand(1));
  p.tensor(q.operand(2));
  setAll(q, out, p.result());
  return success();
}

/// cat and stack: every tensor promotes as a dimensioned one (stack's zero-dim inputs
/// become 1-D first; cat rejects them).
LogicalResult concatenate(DtypeQuery &q, Types &out) {
  Type t;
  for (unsigned i = 0; i < q.numOperands(); ++i)
    t = promoteTypes(t, q.elem(i));
  if (!t)
    return q.fail("expects at least one tensor");
  setAll(q, out, t);
  return success();
}

//===--- reductions ---===//

/// sum, sum.dim_IntList, cumsum, prod: `dtype` if given, else int64 for bool and integer
/// inputs (they accumulate without overflow), else the input's dtype.
LogicalResult sumLike(DtypeQuery &q, Types &out) {
  std::optional<Type> dtype = q.dtypeAttr();
  if (dtype && !*dtype)
    return failure();
  setAll(q, out, dtype ? *dtype : isFloating(q.elem(0)) ? q.elem(0) : q.i64());
  return success();
}

/// mean: a floating `dtype` or input; PyTorch cannot infer a dtype for integers.
LogicalResult mean(DtypeQuery &q, Types &out) {
  std::optional<Type> dtype = q.dtypeAttr();
  if (dtype && !*dtype)
    return failure();
  Type t = dtype ? *dtype : q.elem(0);
  if (!isFloating(t))
    return q.fail(
        "cannot infer an output dtype: the input or `dtype` must be floating-point, got " + str(t));
  setAll(q, out, t);
  return success();
}

/// all/any: bool, except that uint8 inputs keep uint8 (PyTorch's backward compatibility).
LogicalResult allAny(DtypeQuery &q, Types &out) {
  Type u8 = IntegerType::get(q.ctx(), 8, IntegerType::Unsigned);
  setAll(q, out, q.elem(0) == u8 ? u8 : q.i1());
  return success();
}

/// argmax/argmin: int64 positions; bool inputs are rejected.
LogicalResult argReduce(DtypeQuery &q, Types &out) {
  if (isBool(q.elem(0)))
    return q.fail("does not support bool input");
  setAll(q, out, q.i64());
  return success();
}

/// (values, indices) pairs: max.dim, min.dim, sort, max_pool2d_with_indices,
/// adaptive_max_pool2d.
LogicalResult valuesAndIndices(DtypeQuery &q, Types &out) {
  out = {q.elem(0), q.i64()};
  return success();
}

LogicalResult topk(DtypeQuery &q, Types &out) {
  if (isBool(q.elem(0)))
    return q.fail("does not support bool input");
  return valuesAndIndices(q, out);
}

/// _softmax/_log_softmax: the input's floating dtype; half_to_float (CUDA only) makes
/// float16 float32.
LogicalResult softmaxHalfToFloat(DtypeQuery &q, Types &out) {
  auto halfToFloat = dyn_cast_or_null<BoolAttr>(q.attr("half_to_float"));
  if (halfToFloat && halfToFloat.getValue()) {
    if (!q.elem(0).isF16())
      return q.fail("half_to_float expects a f16 input, got " + str(q.elem(0)));
    setAll(q, out, q.f32());
    return success();
  }
  return floatOnly(q, out);
}

/// softmax.int, log_softmax.int, _safe_softmax: the input converted to `dtype` first.
LogicalResult softmaxWithDtype(DtypeQuery &q, Types &out) {
  std::optional<Type> dtype = q.dtypeAttr();
  if (dtype && !*dtype)
    return failure();
  Type t = dtype.value_or(q.elem(0));
  if (!isFloating(t))
    return q.fail("expects a floating-point input or `dtype`, got " + str(t));
  setAll(q, out, t);
  return success();
}

/// native_layer_norm/group_norm/batch_norm: the output has the input's dtype; the saved
/// statistics too, except in CPU's mixed mode (f16/bf16 input, float32 parameters),
/// where they are float32. Otherwise PyTorch wants every parameter in the input's dtype.
LogicalResult normalization(DtypeQuery &q, Types &out) {
  Type in = q.elem(0);
  if (!isFloating(in))
    return q.fail("expects a floating-point input, got " + str(in));
  bool reduced = in.isF16() || in.isBF16(), mixed = false;
  for (unsigned i = 1; i < q.numOperands(); ++i) {
    if (q.elem(i) == in)
      continue;
    if (!reduced || !q.elem(i).isF32())
      return q.fail("expects parameters of the input's dtype " + str(in) +
                    (reduced ? " or f32" : "") + ", got " + str(q.elem(i)));
    mixed = true;
  }
  for (unsigned i = 1; i < q.numOperands(); ++i)
    if (mixed && q.elem(i) != q.f32())
      return q.fail("mixes " + str(in) + " and f32 parameters");
  setAll(q, out, mixed ? q.f32() : in);
  out[0] = in;
  return success();
}

//===--- factories and conversions ---===//

/// `dtype` if given, else `fallback`.
LogicalResult dtypeOr(DtypeQuery &q, Types &out, Type fallback) {
  std::optional<Type> dtype = q.dtypeAttr();
  if (dtype && !*dtype)
    return failure();
  setAll(q, out, dtype.value_or(fallback));
  return success();
}

/// _to_copy, new_*, *_like: `dtype`, else self's.
LogicalResult dtypeOrSelf(DtypeQuery &q, Types &out) { return dtypeOr(q, out, q.elem(0)); }

/// zeros, ones, empty, scalar_tensor: `dtype`, else the default dtype.
LogicalResult dtypeOrDefault(DtypeQuery &q, Types &out) { return dtypeOr(q, out, q.f32()); }

/// full: `dtype`, else the fill value's kind (int64, bool, or the default dtype).
LogicalResult full(DtypeQuery &q, Types &out) {
  return dtypeOr(q, out, numberType(q.attr("fill_value"), q.ctx()));
}

/// arange: `dtype`, else the default dtype if start, end or step is a float, else int64
/// (bool counts as an integer).
LogicalResult arange(DtypeQuery &q, Types &out) {
  bool anyFloat = llvm::any_of(std::initializer_list<StringRef>{"start", "end", "step"},
                               [&](StringRef n) { return isa_and_nonnull<FloatAttr>(q.attr(n)); });
  return dtypeOr(q, out, anyFloat ? q.f32() : q.i64());
}

/// linspace: `dtype`, else the default dtype (float32) whatever start and end are.
LogicalResult linspace(DtypeQuery &q, Types &out) { return dtypeOr(q, out, q.f32()); }

//===--- norms ---===//

/// linalg_vector_norm: floating input; the result in `dtype` if given, else self's dtype.
LogicalResult vectorNorm(DtypeQuery &q, Types &out) {
  if (!isFloating(q.elem(0)))
    return q.fail("expects a floating-point input, got " + str(q.elem(0)));
  return dtypeOr(q, out, q.elem(0));
}

/// _weight_norm_interface(v, g): w in v's dtype; the norms in v's dtype, float32 for
/// f16/bf16 v (ATen's CPU kernel accumulates and returns them in the opmath type).
LogicalResult weightNorm(DtypeQuery &q, Types &out) {
  Type v = q.elem(0);
  if (!isFloating(v))
    return q.fail("expects a floating-point `v`, got " + str(v));
  out = {v, v.isF16() || v.isBF16() ? q.f32() : v};
  return success();
}

//===--- mixture-of-experts routing ---===//

/// histc: the counts in self's dtype (ATen's CPU kernel takes floating inputs, the CUDA
/// one integers too).
LogicalResult histogram(DtypeQuery &q, Types &out) {
  if (isBool(q.elem(0)))
    return q.fail("histc of bools is not supported");
  return sameAsSelf(q, out);
}

/// _grouped_mm: self and mat2 of one floating dtype; the product in `out_dtype` if
/// given, else in theirs.
LogicalResult groupedMatmul(DtypeQuery &q, Types &out) {
  if (!isFloating(q.elem(0)) || q.elem(0) != q.elem(1))
    return q.fail("expects self and mat2 of one floating-point dtype, got " + str(q.elem(0)) +
                  " and " + str(q.elem(1)));
  Type result = q.elem(0);
  if (auto dtype = dyn_cast_or_null<IntegerAttr>(q.attr("out_dtype"))) {
    result = elementTypeOfScalarType(q.ctx(), dtype.getInt());
    if (!isFloating(result))
      return q.fail("`out_dtype` " + Twine(dtype.getInt()) + " names no floating-point dtype");
  }
  setAll(q, out, result);
  return success();
}

//===--- data-dependent sizes ---===//

/// nonzero: int64 coordinates, for any input dtype.
LogicalResult coordinates(DtypeQuery &q, Types &out) {
  setAll(q, out, q.i64());
  return success();
}

/// torchvision::nms: int64 indices; boxes and scores of one floating-point dtype (its
/// kernels read both as one scalar type).
LogicalResult keptBoxes(DtypeQuery &q, Types &out) {
  if (!isFloating(q.elem(0)) || q.elem(0) != q.elem(1))
    return q.fail("expects dets and scores of one floating-point dtype, got " + str(q.elem(0)) +
                  " and " + str(q.elem(1)));
  setAll(q, out, q.i64());
  return success();
}

struct RuleEntry {
  Rule rule;
  /// In-place ops (`add_`, ...) write self: the rule's result must be castable into
  /// self's dtype, which the op then returns.
  bool inPlace;
};

const llvm::StringMap<RuleEntry> &rules() {
  static const llvm::StringMap<RuleEntry> table = [] {
    llvm::StringMap<RuleEntry> t;
    auto add = [&](std::initializer_list<StringRef> names, Rule rule, bool inPlace = false) {
      for (StringRef name : names)
        t[name] = {rule, inPlace};
    };
    add({"aten.t", "aten.transpose.int", "aten.permute", "aten.view", "aten.reshape",
         "aten._unsafe_view", "aten._reshape_alias", "aten.expand", "aten.unsqueeze",
         "aten.squeeze", "aten.squeeze.dim", "aten.squeeze.dims", "aten.clone", "aten.contiguous",
         "aten.detach", "aten.alias", "aten.lift_fresh", "aten.slice.Tensor", "aten.select.int",
         "aten.split.Tensor", "aten.split_with_sizes", "aten.unbind.int",
         "aten.unsafe_split.Tensor", "aten.unsafe_chunk", "aten.tril", "aten.triu", "aten.roll",
         "aten.repeat", "aten.constant_pad_nd", "aten.fill.Scalar", "aten.zero", "aten.amax",
         "aten.amin", "aten.max", "aten.min", "aten.avg_pool2d", "aten._adaptive_avg_pool2d",
         "aten.avg_pool3d", "aten._adaptive_avg_pool3d", "aten.upsample_nearest2d",
         "aten.upsample_nearest2d.vec", "aten.upsample_bilinear2d", "aten.upsample_bilinear2d.vec",
         "aten.diagonal", "aten.max_unpool2d",
         // in-place forms that only write self's own dtype
         "aten.copy_", "aten.fill_.Scalar", "aten.zero_", "aten.transpose_", "aten.t_",
         "aten.unsqueeze_", "aten.squeeze_", "aten.squeeze_.dim", "aten.squeeze_.dims"},
        sameAsSelf);
    add({"aten.relu", "aten.abs", "aten.neg", "aten.hardtanh", "aten.ceil", "aten.floor",
         "aten.round", "aten.trunc"},
        selfNotBool);
    add({"aten.elu", "aten.leaky_relu", "aten.var.correction", "aten.var.dim",
         "aten._pdist_forward", "aten.col2im"},
        floatOnly);
    add({"aten._cdist_forward", "aten.grid_sampler_2d"}, sameDtypeOperands);
    add({"aten.sign", "aten.flip", "aten.copy", "aten.slice_scatter", "aten.select_scatter",
         "aten.reflection_pad1d", "aten.reflection_pad2d", "aten.reflection_pad3d",
         "aten.replication_pad2d", "aten.replication_pad3d"},
        sameAsSelf);
    add({"aten.clamp", "aten.clamp.Tensor", "aten.clamp_min", "aten.clamp_min.Tensor",
         "aten.clamp_max", "aten.clamp_max.Tensor"},
        clamp);
    add({"aten.clamp_min_", "aten.clamp_min_.Tensor"}, clamp, true);
    add({"aten.addcmul"}, addcmul);
    add({"aten.addcdiv"}, addcdiv);
    add({"aten.fmod.Tensor", "aten.fmod.Scalar", "aten.remainder.Tensor", "aten.remainder.Scalar"},
        promoteOperands);
    add({"aten.div.Tensor_mode", "aten.div.Scalar_mode"}, divideRounding);
    add({"aten.atan2"}, trueDivide);
    add({"aten.bitwise_and.Scalar", "aten.bitwise_or.Scalar", "aten.bitwise_xor.Scalar",
         "aten.bitwise_xor.Tensor"},
        bitwise);
    add({"aten.isinf", "aten.isnan", "aten.logical_xor"}, boolResult);
    add({"aten.any.dim", "aten.any.dims"}, allAny);
    add({"aten.prod", "aten.prod.dim_int"}, sumLike);
    add({"aten.mean"}, mean);
    add({"aten.relu_", "aten.hardtanh_"}, selfNotBool, /*inPlace=*/true);
    add({"aten.gelu", "aten.silu", "aten.hardswish", "aten.hardsigmoid"}, floatOnly);
    add({"aten.silu_", "aten.hardswish_", "aten.hardsigmoid_"}, floatOnly, true);
    add({"aten.exp",   "aten.log",   "aten.erf",  "aten.sqrt",  "aten.rsqrt",     "aten.sigmoid",
         "aten.tanh",  "aten.cos",   "aten.sin",  "aten.tan",   "aten.asin",      "aten.acos",
         "aten.atan",  "aten.sinh",  "aten.cosh", "aten.asinh", "aten.acosh",     "aten.atanh",
         "aten.expm1", "aten.log1p", "aten.log2", "aten.log10", "aten.reciprocal"},
        floatingUnary);
    add({"aten.sigmoid_", "aten.tanh_"}, floatingUnary, true);
    add({"aten.bitwise_not"}, bitwiseNot);
    add({"aten.masked_fill.Scalar", "aten.masked_fill.Tensor"}, maskedFill);
    add({"aten.masked_fill_.Scalar", "aten.masked_fill_.Tensor"}, maskedFill, true);
    add({"aten.mm", "aten.bmm", "aten.matmul", "aten.addmm", "aten.baddbmm", "aten.linear",
         "aten.convolution"},
        sameDtypeOperands);
    add({"aten.scaled_dot_product_attention", "aten._scaled_dot_product_flash_attention_for_cpu"},
        attention);
    add({"aten.embedding"}, embedding);
    add({"aten.index_select", "aten.gather"}, indexBy);
    add({"aten.index.Tensor"}, indexTensor);
    add({"aten.index_copy"}, indexCopy);
    add({"aten.index_copy_"}, indexCopy, true);
    add({"aten.scatter.src", "aten.scatter.value", "aten.scatter_add", "aten.index_add",
         "aten.scatter_reduce.two"},
        scatter);
    add({"aten.scatter_.src", "aten.scatter_.value", "aten.scatter_add_", "aten.index_add_",
         "aten.scatter_reduce_.two"},
        scatter, true);
    add({"aten.masked_scatter"}, maskedScatter);
    add({"aten._embedding_bag", "aten._embedding_bag_forward_only"}, embeddingBag);
    add({"aten.masked_scatter_"}, maskedScatter, true);
    add({"aten.index_put"}, indexPut);
    add({"aten.index_put_"}, indexPut, true);
    add({"aten.index_fill.int_Scalar"}, indexFill);
    add({"aten.index_fill_.int_Scalar"}, indexFill, true);

    add({"aten.add.Tensor", "aten.mul.Tensor", "aten.add.Scalar", "aten.mul.Scalar", "aten.maximum",
         "aten.minimum"},
        promoteOperands);
    add({"aten.add_.Tensor", "aten.mul_.Tensor", "aten.add_.Scalar", "aten.mul_.Scalar"},
        promoteOperands, true);
    add({"aten.sub.Tensor", "aten.sub.Scalar", "aten.rsub.Scalar"}, subtract);
    add({"aten.sub_.Tensor", "aten.sub_.Scalar"}, subtract, true);
    add({"aten.div.Tensor", "aten.div.Scalar"}, trueDivide);
    add({"aten.div_.Tensor", "aten.div_.Scalar"}, trueDivide, true);
    add({"aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor", "aten.pow.Scalar"}, power);
    add({"aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor"}, bitwise);
    add({"aten.eq.Scalar", "aten.eq.Tensor", "aten.ne.Scalar", "aten.ne.Tensor", "aten.lt.Scalar",
         "aten.lt.Tensor", "aten.le.Scalar", "aten.le.Tensor", "aten.gt.Scalar", "aten.gt.Tensor",
         "aten.ge.Scalar", "aten.ge.Tensor", "aten.logical_and", "aten.logical_or",
         "aten.logical_not"},
        boolResult);
    add({"aten.where.self"}, where);
    add({"aten.cat", "aten.stack"}, concatenate);

    add({"aten.sum", "aten.sum.dim_IntList", "aten.cumsum"}, sumLike);
    add({"aten.mean.dim"}, mean);
    add({"aten.all", "aten.any"}, allAny);
    add({"aten.argmax", "aten.argmin"}, argReduce);
    add({"aten.max.dim", "aten.min.dim", "aten.sort", "aten.sort.stable",
         "aten.max_pool2d_with_indices", "aten.adaptive_max_pool2d",
         "aten.max_pool3d_with_indices"},
        valuesAndIndices);
    add({"aten.topk"}, topk);
    add({"aten._softmax", "aten._log_softmax"}, softmaxHalfToFloat);
    add({"aten.softmax.int", "aten.log_softmax.int", "aten._safe_softmax"}, softmaxWithDtype);
    add({"aten.native_layer_norm", "aten.native_group_norm", "aten.native_batch_norm",
         "aten._native_batch_norm_legit_no_training"},
        normalization);
    add({"aten.linalg_vector_norm"}, vectorNorm);
    add({"aten._weight_norm_interface"}, weightNorm);
    add({"aten.floor_divide", "aten.floor_divide.Scalar"}, floorDivide);
    add({"aten.floor_divide_.Tensor"}, floorDivide, true);
    add({"aten.leaky_relu_"}, floatOnly, true);
    add({"aten.im2col"}, floatOnly);
    add({"aten.upsample_bicubic2d", "aten.upsample_bicubic2d.vec"}, floatOnly);
    add({"aten.histc"}, histogram);
    add({"aten._grouped_mm"}, groupedMatmul);
    add({"aten.nonzero"}, coordinates);
    add({"aten.torchvision_nms"}, keptBoxes);

    add({"aten._to_copy", "aten.new_zeros", "aten.new_ones", "aten.new_full", "aten.zeros_like",
         "aten.ones_like", "aten.full_like", "aten.empty_like"},
        dtypeOrSelf);
    add({"aten.zeros", "aten.ones", "aten.empty.memory_format", "aten.empty_strided",
         "aten.scalar_tensor"},
        dtypeOrDefault);
    add({"aten.full"}, full);
    add({"aten.arange", "aten.arange.start", "aten.arange.start_step"}, arange);
    add({"aten.linspace"}, linspace);
    return t;
  }();
  return table;
}

/// Ops deliberately left to the trace, with the reason (none so far: every op of
/// aten_ops.txt has a rule; an op added without one must be listed here).
const llvm::StringMap<StringRef> &trusted() {
  static const llvm::StringMap<StringRef> table;
  return table;
}

} // namespace

Type promoteTypes(Type a, Type b) {
  if (!a || a == b)
    return b ? b : a;
  if (!b)
    return a;
  if (isBool(a))
    return b;
  if (isBool(b))
    return a;
  bool af = isFloating(a), bf = isFloating(b);
  if (af && bf) {
    // float16 and bfloat16 have no common 16-bit type.
    if (a.getIntOrFloatBitWidth() == 16 && b.getIntOrFloatBitWidth() == 16)
      return Float32Type::get(a.getContext());
    return a.getIntOrFloatBitWidth() > b.getIntOrFloatBitWidth() ? a : b;
  }
  if (af || bf)
    return af ? a : b;
  auto ia = cast<IntegerType>(a), ib = cast<IntegerType>(b);
  if (ia.isUnsigned() != ib.isUnsigned()) {
    // uint8 with a signed type: the signed type if it is wider, else int16.
    IntegerType s = ia.isUnsigned() ? ib : ia;
    return s.getWidth() > 8 ? Type(s) : IntegerType::get(a.getContext(), 16);
  }
  return ia.getWidth() >= ib.getWidth() ? a : b;
}

Type elementTypeOfScalarType(MLIRContext *ctx, int64_t dtype) {
  using artifact::DType;
  switch (dtype) {
  case DType::F32:
    return Float32Type::get(ctx);
  case DType::F64:
    return Float64Type::get(ctx);
  case DType::F16:
    return Float16Type::get(ctx);
  case DType::BF16:
    return BFloat16Type::get(ctx);
  case DType::I64:
    return IntegerType::get(ctx, 64);
  case DType::I32:
    return IntegerType::get(ctx, 32);
  case DType::I16:
    return IntegerType::get(ctx, 16);
  case DType::I8:
    return IntegerType::get(ctx, 8);
  // Unsigned stays distinguishable from i8 so that promotion and casts can honour it.
  case DType::U8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case DType::BOOL:
    return IntegerType::get(ctx, 1);
  default:
    return {};
  }
}

std::optional<FailureOr<SmallVector<Type>>> inferResultDtypes(Operation *op, bool diagnose) {
  auto it = rules().find(op->getName().getStringRef());
  if (it == rules().end())
    return std::nullopt;
  DtypeQuery query(op, diagnose);
  Types types;
  if (failed(it->second.rule(query, types)))
    return FailureOr<Types>(failure());
  if (it->second.inPlace) {
    Type self = query.elem(0);
    if (!canCast(types[0], self))
      return FailureOr<Types>(query.fail("result type " + str(types[0]) +
                                         " cannot be cast to self's type " + str(self) +
                                         " of the in-place op"));
    types[0] = self;
  }
  return FailureOr<Types>(std::move(types));
}

LogicalResult verifyResultDtypes(Operation *op) {
  std::optional<FailureOr<Types>> expected = inferResultDtypes(op, /*diagnose=*/true);
  if (!expected)
    return success();
  if (failed(*expected))
    return failure();
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    Type want = i < (*expected)->size() ? (**expected)[i] : Type();
    Type got = cast<ShapedType>(result.getType()).getElementType();
    if (want && got != want)
      return op->emitOpError("result #")
             << i << " has element type " << got << ", but PyTorch's dtype rules give " << want;
  }
  return success();
}

std::optional<Type> commonDtype(Operation *op) {
  // Functional forms only: it serves passes after pt2c-functionalize. where.self casts
  // only its values (not the condition) and is left out, as are ops that pick values.
  static const llvm::StringSet<> kNames = {
      "aten.add.Tensor",  "aten.sub.Tensor",        "aten.mul.Tensor",        "aten.div.Tensor",
      "aten.add.Scalar",  "aten.sub.Scalar",        "aten.mul.Scalar",        "aten.div.Scalar",
      "aten.rsub.Scalar", "aten.pow.Tensor_Tensor", "aten.pow.Tensor_Scalar", "aten.pow.Scalar",
      "aten.eq.Tensor",   "aten.ne.Tensor",         "aten.lt.Tensor",         "aten.le.Tensor",
      "aten.gt.Tensor",   "aten.ge.Tensor",         "aten.eq.Scalar",         "aten.ne.Scalar",
      "aten.lt.Scalar",   "aten.le.Scalar",         "aten.gt.Scalar",         "aten.ge.Scalar"};
  if (!kNames.contains(op->getName().getStringRef()))
    return std::nullopt;
  return DtypeQuery(op, /*diagnose=*/false).promoted();
}

std::vector<std::string> atenOpsWithDtypeRules() {
  std::vector<std::string> names;
  for (const auto &entry : rules())
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<StringRef> dtypeTrustReason(StringRef opName) {
  auto it = trusted().find(opName);
  if (it == trusted().end())
    return std::nullopt;
  return it->second;
}

} // namespace pt2c::aten
