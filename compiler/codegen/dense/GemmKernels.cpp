#include "compiler/codegen/dense/GemmKernels.h"

#include "compiler/codegen/dense/KernelBody.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace pt2c {
namespace {

using dense::argumentIndex;
using dense::body;
using dense::i64Array;

// The GEMM dtype of an element type: f32, or f16/bf16 (which cuBLASLt multiplies with
// f32 accumulation, as the fallback kernels' lowering does).
std::optional<uint32_t> gemmDtype(mlir::Type elementType) {
  if (elementType.isF32())
    return PT2C_F32;
  if (elementType.isF16())
    return PT2C_F16;
  if (elementType.isBF16())
    return PT2C_BF16;
  return std::nullopt;
}

// A statically shaped tensor's shape, if its elements have a GEMM dtype.
std::optional<llvm::ArrayRef<int64_t>> gemmShape(mlir::Value value) {
  auto type = mlir::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !gemmDtype(type.getElementType()))
    return std::nullopt;
  return type.getShape();
}

mlir::Type elementType(mlir::Value value) {
  return mlir::cast<mlir::ShapedType>(value.getType()).getElementType();
}

uint64_t product(llvm::ArrayRef<int64_t> dims) {
  uint64_t p = 1;
  for (int64_t d : dims)
    p *= static_cast<uint64_t>(d);
  return p;
}

// The f16/bf16 argument that `value` widens to f32 (convert of an argument), if it does.
std::optional<std::pair<int, uint32_t>> widenedArgument(mlir::func::FuncOp func,
                                                        mlir::Value value) {
  mlir::Operation *op = value.getDefiningOp();
  if (!op || op->getName().getStringRef() != "prim.convert" || !elementType(value).isF32())
    return std::nullopt;
  mlir::Value narrow = op->getOperand(0);
  auto dtype = gemmDtype(elementType(narrow));
  int arg = argumentIndex(func, narrow);
  if (arg < 0 || !dtype || *dtype == PT2C_F32)
    return std::nullopt;
  return std::make_pair(arg, *dtype);
}

// One dot_general operand (a contiguous row-major tensor) as a strided matrix per batch:
// its batch dims, its free dims and its one contracting dim each collapse to one
// (count, stride) pair. Unit dims drop out; dims of a group collapse when each is
// contiguous within the one before it (in dim order).
struct OperandView {
  uint64_t batch = 1, free = 1, k = 1;
  uint64_t batchStride = 0, freeStride = 1, kStride = 1;
};

std::optional<std::pair<uint64_t, uint64_t>> collapse(llvm::ArrayRef<int64_t> shape,
                                                      llvm::ArrayRef<int64_t> strides,
                                                      llvm::ArrayRef<int64_t> dims) {
  uint64_t count = 1, stride = 0;
  int64_t last = -1;
  for (int64_t d : dims) {
    if (shape[d] == 1)
      continue;
    if (last >= 0 && strides[last] != strides[d] * shape[d])
      return std::nullopt;
    count *= shape[d];
    stride = strides[d];
    last = d;
  }
  return std::make_pair(count, stride);
}

std::optional<OperandView> operandView(llvm::ArrayRef<int64_t> shape,
                                       llvm::ArrayRef<int64_t> batchDims, int64_t contract) {
  int64_t rank = shape.size();
  if (contract < 0 || contract >= rank)
    return std::nullopt;
  llvm::SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  llvm::SmallVector<int64_t> freeDims;
  for (int64_t d = 0; d < rank; ++d)
    if (d != contract && !llvm::is_contained(batchDims, d))
      freeDims.push_back(d);
  auto batch = collapse(shape, strides, batchDims);
  auto free = collapse(shape, strides, freeDims);
  if (!batch || !free)
    return std::nullopt;
  OperandView view;
  view.batch = batch->first, view.batchStride = batch->second;
  view.free = free->first, view.freeStride = free->first > 1 ? free->second : 1;
  view.k = shape[contract], view.kStride = strides[contract];
  return view;
}

// A kernel that is one dot_general of two arguments, as a row-major GEMM; or of two f16
// (bf16) arguments widened to f32 (an f16 model's attention scores, which PyTorch
// computes in f32): an f32 GEMM of f16 operands, which cuBLASLt runs on tensor cores.
std::optional<GemmKernel> matchGemm(mlir::func::FuncOp func, const GemmMatchOptions &options) {
  auto b = body(func);
  if (!b || (b->first.size() != 1 && b->first.size() != 3))
    return std::nullopt;
  mlir::Operation *dot = b->first.back();
  if (dot->getName().getStringRef() != "prim.dot_general" || dot->getResult(0) != b->second)
    return std::nullopt;
  int lhsArg = argumentIndex(func, dot->getOperand(0));
  int rhsArg = argumentIndex(func, dot->getOperand(1));
  uint32_t inputDtype = 0;
  if (b->first.size() == 3) {
    auto lhsWide = widenedArgument(func, dot->getOperand(0));
    auto rhsWide = widenedArgument(func, dot->getOperand(1));
    if (!lhsWide || !rhsWide || lhsWide->second != rhsWide->second ||
        !dot->getOperand(0).hasOneUse() || !dot->getOperand(1).hasOneUse())
      return std::nullopt;
    lhsArg = lhsWide->first;
    rhsArg = rhsWide->first;
    inputDtype = lhsWide->second;
  }
  auto lhs = gemmShape(dot->getOperand(0)), rhs = gemmShape(dot->getOperand(1));
  auto result = gemmShape(dot->getResult(0));
  if (lhsArg < 0 || rhsArg < 0 || !lhs || !rhs || !result)
    return std::nullopt;
  mlir::Type dtype = elementType(dot->getResult(0));
  if (elementType(dot->getOperand(0)) != dtype || elementType(dot->getOperand(1)) != dtype)
    return std::nullopt;
  auto lhsBatch = i64Array(dot, "lhs_batching_dimensions");
  auto rhsBatch = i64Array(dot, "rhs_batching_dimensions");
  auto lhsContract = i64Array(dot, "lhs_contracting_dimensions");
  auto rhsContract = i64Array(dot, "rhs_contracting_dimensions");
  if (lhsContract.size() != 1 || rhsContract.size() != 1)
    return std::nullopt;
  auto a = operandView(*lhs, lhsBatch, lhsContract[0]);
  auto bView = operandView(*rhs, rhsBatch, rhsContract[0]);
  if (!a || !bView || a->batch != bView->batch || a->k != bView->k)
    return std::nullopt;

  pt2c_plan_gemm g{};
  g.dtype = *gemmDtype(dtype);
  g.input_dtype = inputDtype;
  g.epilogue = PT2C_GEMM_EPILOGUE_NONE;
  g.batch = a->batch;
  g.m = a->free;
  g.n = bView->free;
  g.k = a->k;
  // A(i, kk) is row-major [M, K] (K contiguous) or stored transposed [K, M].
  if (a->kStride == 1 && (a->free == 1 || a->freeStride >= g.k)) {
    g.ld_a = a->free == 1 ? g.k : a->freeStride;
  } else if (a->freeStride == 1 && a->kStride >= g.m) {
    g.transpose_a = 1;
    g.ld_a = a->kStride;
  } else {
    return std::nullopt;
  }
  // B(kk, j) is row-major [K, N] (N contiguous) or stored transposed [N, K].
  if (bView->freeStride == 1 && (g.k == 1 || bView->kStride >= g.n)) {
    g.ld_b = g.k == 1 ? g.n : bView->kStride;
  } else if (bView->kStride == 1 && (bView->free == 1 || bView->freeStride >= g.k)) {
    g.transpose_b = 1;
    g.ld_b = bView->free == 1 ? g.k : bView->freeStride;
  } else {
    return std::nullopt;
  }
  // The result is [batch..., lhs free..., rhs free...], contiguous.
  if (g.m == 0 || g.n == 0 || g.k == 0 || g.batch == 0 || product(*result) != g.batch * g.m * g.n)
    return std::nullopt;
  g.ld_d = g.n;
  if (g.batch > 1) {
    g.stride_a = a->batchStride, g.stride_b = bView->batchStride, g.stride_d = g.m * g.n;
    // Batches that interleave inside one operand (attention's heads read from a
    // [sequence, heads x head_dim] matrix) are for targets that ask for them.
    if (!options.interleavedBatches && (g.stride_a != g.m * g.k || g.stride_b != g.k * g.n))
      return std::nullopt;
  }
  GemmKernel kernel;
  kernel.gemm = g;
  kernel.lhs = lhsArg;
  kernel.rhs = rhsArg;
  return kernel;
}

// A ReLU's 0 in a GEMM dtype.
bool isZeroSplat(mlir::Value value) {
  return dense::isPositiveZeroFloatSplat(value) && gemmDtype(elementType(value));
}

// The other operand of a commutative binary op when one of them satisfies `is`.
template <typename Predicate> mlir::Value otherOperand(mlir::Operation *op, Predicate is) {
  if (op->getNumOperands() != 2)
    return {};
  if (is(op->getOperand(0)))
    return op->getOperand(1);
  if (is(op->getOperand(1)))
    return op->getOperand(0);
  return {};
}

// x + broadcast(bias) over the last dim, then optionally max(., 0).
std::optional<BiasEpilogueKernel> matchBiasEpilogue(mlir::func::FuncOp func) {
  auto b = body(func);
  if (!b || func.getNumArguments() != 2)
    return std::nullopt;
  BiasEpilogueKernel epilogue;
  mlir::Value sum = b->second;
  mlir::Operation *last = sum.getDefiningOp();
  if (last && last->getName().getStringRef() == "prim.max") {
    sum = otherOperand(last, isZeroSplat);
    if (!sum)
      return std::nullopt;
    epilogue.epilogue = PT2C_GEMM_EPILOGUE_BIAS_RELU;
  }
  mlir::Operation *add = sum.getDefiningOp();
  if (!add || add->getName().getStringRef() != "prim.add")
    return std::nullopt;
  auto isBroadcastBias = [&](mlir::Value v) {
    mlir::Operation *op = v.getDefiningOp();
    if (!op || op->getName().getStringRef() != "prim.broadcast_in_dim")
      return false;
    auto bias = gemmShape(op->getOperand(0)), to = gemmShape(v);
    auto dims = i64Array(op, "broadcast_dimensions");
    return bias && to && bias->size() == 1 && !to->empty() && (*bias)[0] == to->back() &&
           dims.size() == 1 && dims[0] == static_cast<int64_t>(to->size()) - 1 &&
           argumentIndex(func, op->getOperand(0)) >= 0;
  };
  mlir::Value x = otherOperand(add, isBroadcastBias);
  if (!x)
    return std::nullopt;
  mlir::Value bcast = add->getOperand(0) == x ? add->getOperand(1) : add->getOperand(0);
  int input = argumentIndex(func, x);
  int bias = argumentIndex(func, bcast.getDefiningOp()->getOperand(0));
  auto shape = gemmShape(x);
  // Every op is part of the pattern (the zero constant, the broadcast, add, max).
  size_t expectedOps = epilogue.epilogue == PT2C_GEMM_EPILOGUE_BIAS_RELU ? 4 : 2;
  if (input < 0 || bias < 0 || input == bias || !shape || x.getType() != b->second.getType() ||
      b->first.size() != expectedOps)
    return std::nullopt;
  epilogue.input = input;
  epilogue.bias = bias;
  epilogue.n = shape->back();
  return epilogue;
}

} // namespace

GemmKernelTable findGemmKernels(mlir::ModuleOp kernels, const GemmMatchOptions &options) {
  return findLibraryKernels<GemmKernel, BiasEpilogueKernel>(
      kernels, [&](mlir::func::FuncOp func) { return matchGemm(func, options); },
      matchBiasEpilogue);
}

} // namespace pt2c
