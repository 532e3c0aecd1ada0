// The fused layer norm kernel (prim.layer_norm): one block per row of the last dim, in
// place of the decomposition's five kernels (a row sum with its fill, the centring, a
// row sum of squares with its fill, the scaling) and of the residual add before it:
//
//   xs[c] = x[row, c] (+ residual[row, c]) (shared, f32), threads striding over c;
//   mean  = sum / N
//   var   = sum_c (xs[c] - mean)^2 / N                          (gpu.all_reduce each)
//   out[row, c] = (xs[c] - mean) * rsqrt(var + eps) * weight[c] + bias[c]
//
// the formula of decompose/Normalization.cpp in f32 whatever the element types. Each
// thread rereads only the columns it wrote, so the reductions are the only syncs.
#include "compiler/codegen/cuda/FusedKernels.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace pt2c::fused {

void emitLayerNorm(prim::LayerNormOp op, const BufferizedKernel& kernel, mlir::OpBuilder& b) {
  mlir::Location loc = op.getLoc();
  mlir::MLIRContext* ctx = op.getContext();
  KernelBuilder kb(b, loc);
  auto type = op.getInput().getType();
  int64_t n = type.getShape().back();
  int64_t rows = type.getNumElements() / n;
  int64_t threads = std::min<int64_t>(256, (n + kWarp - 1) / kWarp * kWarp);
  // [rows, n] views of the input and the output (the sink pass copies them into the
  // launch).
  auto rowsOf = [&](mlir::Value memref) -> mlir::Value {
    auto memrefType = llvm::cast<mlir::MemRefType>(memref.getType());
    int64_t rank = memrefType.getRank();
    if (rank == 2) return memref;
    if (rank == 1)
      return b.create<mlir::memref::ExpandShapeOp>(
          loc, mlir::MemRefType::get({1, n}, memrefType.getElementType()), memref,
          llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1}});
    mlir::ReassociationIndices leading;
    for (int64_t d = 0; d + 1 < rank; ++d) leading.push_back(d);
    return b.create<mlir::memref::CollapseShapeOp>(
        loc, memref, llvm::ArrayRef<mlir::ReassociationIndices>{leading, {rank - 1}});
  };
  mlir::Value x = rowsOf(kernel.buffer(op.getInput()));
  mlir::Value residual = op.getResidual() ? rowsOf(kernel.buffer(op.getResidual())) : nullptr;
  mlir::Type inputType = op.getInput().getType().getElementType();
  mlir::Value out = rowsOf(kernel.out);
  mlir::Value weight = kernel.buffer(op.getWeight()), bias = kernel.buffer(op.getBias());

  auto launch = kb.launch(rows, 1, threads, {kb.sharedType(n, b.getF32Type())});
  mlir::Value xs = launch.getWorkgroupAttributions()[0];
  mlir::Value row = launch.getBlockIds().x;
  mlir::Value t = launch.getThreadIds().x;
  mlir::Value step = kb.index(threads);
  mlir::Value fzero = kb.f32(0.0), count = kb.f32((double)n);
  auto allReduceSum = [&](mlir::Value value) {
    return b.create<mlir::gpu::AllReduceOp>(
        loc, value, mlir::gpu::AllReduceOperationAttr::get(ctx, mlir::gpu::AllReduceOperation::ADD),
        /*uniform=*/true);
  };

  mlir::Value sum = kb.loop(t, n, step, fzero, [&](mlir::Value c, mlir::Value acc) {
    mlir::Value v = kb.load(x, {row, c});
    if (residual) {
      // input + residual in the input's type (the f32 sum of two halves rounds once to
      // the same half as their half sum: f32 has over twice their precision).
      v = b.create<mlir::arith::AddFOp>(loc, v, kb.load(residual, {row, c}));
      if (!inputType.isF32())
        v = b.create<mlir::arith::ExtFOp>(
            loc, b.getF32Type(), b.create<mlir::arith::TruncFOp>(loc, inputType, v).getResult());
    }
    b.create<mlir::memref::StoreOp>(loc, v, xs, c);
    return b.create<mlir::arith::AddFOp>(loc, acc, v);
  });
  mlir::Value mean = b.create<mlir::arith::DivFOp>(loc, allReduceSum(sum), count);
  mlir::Value squares = kb.loop(t, n, step, fzero, [&](mlir::Value c, mlir::Value acc) {
    mlir::Value d = b.create<mlir::arith::SubFOp>(
        loc, b.create<mlir::memref::LoadOp>(loc, xs, c), mean);
    return b.create<mlir::arith::AddFOp>(loc, acc, b.create<mlir::arith::MulFOp>(loc, d, d));
  });
  mlir::Value variance = b.create<mlir::arith::DivFOp>(loc, allReduceSum(squares), count);
  mlir::Value rstd = b.create<mlir::math::RsqrtOp>(
      loc, b.create<mlir::arith::AddFOp>(loc, variance,
                                         kb.f32(op.getEpsilon().convertToDouble())));
  mlir::Type elementType = op.getType().getElementType();
  kb.loop(t, n, step, [&](mlir::Value c) {
    mlir::Value y = b.create<mlir::arith::MulFOp>(
        loc, b.create<mlir::arith::SubFOp>(loc, b.create<mlir::memref::LoadOp>(loc, xs, c), mean),
        rstd);
    if (weight) y = b.create<mlir::arith::MulFOp>(loc, y, kb.load(weight, {c}));
    if (bias) y = b.create<mlir::arith::AddFOp>(loc, y, kb.load(bias, {c}));
    if (!elementType.isF32()) y = b.create<mlir::arith::TruncFOp>(loc, elementType, y);
    b.create<mlir::memref::StoreOp>(loc, y, out, mlir::ValueRange{row, c});
  });
}

}  // namespace pt2c::fused
