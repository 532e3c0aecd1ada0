#include "compiler/codegen/dense/GemmKernels.h"

#include "compiler/codegen/dense/GemmEpilogues.h"
#include "compiler/codegen/dense/KernelBody.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace pt2c {
namespace {

using dense::argumentIndex;
using dense::body;
using dense::gemmDtype;
using dense::gemmShape;
using dense::i64Array;

mlir::Type elementType(mlir::Value value) {
  return mlir::cast<mlir::ShapedType>(value.getType()).getElementType();
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
  if (g.m == 0 || g.n == 0 || g.k == 0 || g.batch == 0 ||
      dense::elementCount(*result) != g.batch * g.m * g.n)
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

} // namespace

GemmKernelTable findGemmKernels(mlir::ModuleOp kernels, const GemmMatchOptions &options) {
  return findLibraryKernels<GemmKernel, GemmEpilogueKernel>(
      kernels, [&](mlir::func::FuncOp func) { return matchGemm(func, options); },
      matchGemmEpilogue);
}

} // namespace pt2c
