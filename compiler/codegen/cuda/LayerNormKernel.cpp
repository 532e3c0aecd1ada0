// The fused layer norm kernel (prim.layer_norm): one block per row of the last dim, in
// place of the decomposition's five kernels (a row sum with its fill, the centring, a
// row sum of squares with its fill, the scaling) and of the residual add before it:
//
//   xs[c] = x[row, c] (+ residual[row, c]) (shared, f32), threads striding over c;
//   mean  = sum / N
//   var   = sum_c (xs[c] - mean)^2 / N                          (gpu.all_reduce each)
//   out[row, c] = (xs[c] - mean) * rsqrt(var + eps) * weight[c] + bias[c]
//
// the formula of decompose/Normalization.cpp in f32 whatever the element types (an RMS
// norm, prim.layer_norm's `rms`: mean 0, the weight after the rounding). Each
// thread rereads only the columns it wrote, so the reductions are the only syncs.
// Rows of up to kWarpRowMax elements take a warp each instead (4 rows a block): the row
// stays in the lanes' registers and the sums are shuffles, without shared memory or
// barriers (a BERT-base layer norm, 768 wide: 24 values a lane).
#include "compiler/codegen/cuda/FusedKernels.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace pt2c::fused {
namespace {

constexpr int64_t kWarpRowMax = 1024;
constexpr int64_t kRowsPerBlock = 4;

// One layer norm being lowered: [rows, n] views of its operands (the sink pass copies
// them into the launch) and the arithmetic both kernels share.
struct LayerNorm {
  LayerNorm(prim::LayerNormOp op, const BufferizedKernel &kernel, mlir::OpBuilder &b)
      : op(op), b(b), kb(b, op.getLoc()), loc(op.getLoc()) {
    auto type = op.getInput().getType();
    n = type.getShape().back();
    rows = type.getNumElements() / n;
    x = rowsOf(kernel.buffer(op.getInput()));
    residual = op.getResidual() ? rowsOf(kernel.buffer(op.getResidual())) : nullptr;
    inputType = type.getElementType();
    out = rowsOf(kernel.out);
    weight = kernel.buffer(op.getWeight());
    bias = kernel.buffer(op.getBias());
    elementType = op.getType().getElementType();
    rms = op.getRms();
    fzero = kb.f32(0.0);
    count = kb.f32((double)n);
  }

  mlir::Value rowsOf(mlir::Value memref) {
    auto memrefType = llvm::cast<mlir::MemRefType>(memref.getType());
    int64_t rank = memrefType.getRank();
    if (rank == 2)
      return memref;
    if (rank == 1)
      return b.create<mlir::memref::ExpandShapeOp>(
          loc, mlir::MemRefType::get({1, n}, memrefType.getElementType()), memref,
          llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1}});
    mlir::ReassociationIndices leading;
    for (int64_t d = 0; d + 1 < rank; ++d)
      leading.push_back(d);
    return b.create<mlir::memref::CollapseShapeOp>(
        loc, memref, llvm::ArrayRef<mlir::ReassociationIndices>{leading, {rank - 1}});
  }
  // x (+ residual) in f32, from their loaded elements: input + residual in the input's
  // type (the f32 sum of two halves rounds once to the same half as their half sum: f32
  // has over twice their precision).
  mlir::Value combine(mlir::Value xv, mlir::Value rv) {
    mlir::Value v = xv;
    if (!rv)
      return v;
    v = b.create<mlir::arith::AddFOp>(loc, v, rv);
    if (!inputType.isF32())
      v = b.create<mlir::arith::ExtFOp>(
          loc, b.getF32Type(), b.create<mlir::arith::TruncFOp>(loc, inputType, v).getResult());
    return v;
  }
  mlir::Value input(mlir::Value row, mlir::Value c) {
    return combine(kb.load(x, {row, c}), residual ? kb.load(residual, {row, c}) : nullptr);
  }
  // (v - mean) * rstd * w + b (w, b: weight[c] and bias[c], null when absent), stored at
  // [row, c].
  void normalize(mlir::Value v, mlir::Value mean, mlir::Value rstd, mlir::Value row, mlir::Value c,
                 mlir::Value w, mlir::Value bc) {
    mlir::Value y = b.create<mlir::arith::MulFOp>(
        loc, rms ? v : b.create<mlir::arith::SubFOp>(loc, v, mean).getResult(), rstd);
    if (rms && !elementType.isF32()) // rounded before the weight (prim.layer_norm's rms)
      y = b.create<mlir::arith::ExtFOp>(
          loc, b.getF32Type(), b.create<mlir::arith::TruncFOp>(loc, elementType, y).getResult());
    if (w)
      y = b.create<mlir::arith::MulFOp>(loc, y, w);
    if (bc)
      y = b.create<mlir::arith::AddFOp>(loc, y, bc);
    if (!elementType.isF32())
      y = b.create<mlir::arith::TruncFOp>(loc, elementType, y);
    b.create<mlir::memref::StoreOp>(loc, y, out, mlir::ValueRange{row, c});
  }
  mlir::Value rstdOf(mlir::Value variance) {
    return b.create<mlir::math::RsqrtOp>(
        loc,
        b.create<mlir::arith::AddFOp>(loc, variance, kb.f32(op.getEpsilon().convertToDouble())));
  }

  prim::LayerNormOp op;
  mlir::OpBuilder &b;
  KernelBuilder kb;
  mlir::Location loc;
  int64_t n, rows;
  mlir::Value x, residual, out, weight, bias, fzero, count;
  mlir::Type inputType, elementType;
  bool rms; // no centring: the mean stays 0 and is never summed
};

// A warp per row, kRowsPerBlock rows a block.
void emitWarpPerRow(LayerNorm &ln) {
  mlir::OpBuilder &b = ln.b;
  KernelBuilder &kb = ln.kb;
  mlir::Location loc = ln.loc;
  int64_t n = ln.n, rows = ln.rows;
  mlir::Value fzero = ln.fzero, count = ln.count;
  auto launch = kb.launch((rows + kRowsPerBlock - 1) / kRowsPerBlock, 1, kRowsPerBlock * kWarp, {});
  mlir::Value t = launch.getThreadIds().x;
  auto [warp, lane] = kb.divRem(t, kWarp);
  mlir::Value row = kb.add(kb.mul(launch.getBlockIds().x, kRowsPerBlock), warp);
  // The last block's extra warps compute on the last row and store nothing.
  mlir::Value inRange =
      b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ult, row, kb.index(rows));
  mlir::Value loadRow = kb.min(row, rows - 1);
  // Lane l holds columns l, l + 32, ...; past n it reads the last column and counts 0.
  // Every load is issued before any arithmetic: the PTX keeps this order, and a load
  // waited for before the next is issued would leave the row bound by memory latency.
  int64_t perLane = (n + kWarp - 1) / kWarp;
  llvm::SmallVector<mlir::Value> columns, valid, xs, rs, ws, bs;
  for (int64_t i = 0; i < perLane; ++i) {
    mlir::Value c = b.create<mlir::arith::AddIOp>(loc, lane, kb.index(i * kWarp));
    columns.push_back(c);
    valid.push_back(
        (i + 1) * kWarp <= n
            ? nullptr
            : b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ult, c, kb.index(n))
                  .getResult());
    mlir::Value readable =
        valid.back() ? b.create<mlir::arith::MinUIOp>(loc, c, kb.index(n - 1)).getResult() : c;
    xs.push_back(kb.load(ln.x, {loadRow, readable}));
    rs.push_back(ln.residual ? kb.load(ln.residual, {loadRow, readable}) : nullptr);
    ws.push_back(ln.weight ? kb.load(ln.weight, {readable}) : nullptr);
    bs.push_back(ln.bias ? kb.load(ln.bias, {readable}) : nullptr);
  }
  llvm::SmallVector<mlir::Value> values;
  mlir::Value sum = fzero;
  for (int64_t i = 0; i < perLane; ++i) {
    mlir::Value v = ln.combine(xs[i], rs[i]);
    if (valid[i])
      v = kb.select(valid[i], v, fzero);
    values.push_back(v);
    sum = b.create<mlir::arith::AddFOp>(loc, sum, v);
  }
  mlir::Value mean =
      ln.rms
          ? fzero
          : b.create<mlir::arith::DivFOp>(loc, warpReduce(b, loc, sum, false), count).getResult();
  mlir::Value squares = fzero;
  for (int64_t i = 0; i < perLane; ++i) {
    mlir::Value d = b.create<mlir::arith::SubFOp>(loc, values[i], mean);
    d = b.create<mlir::arith::MulFOp>(loc, d, d);
    if (valid[i])
      d = kb.select(valid[i], d, fzero);
    squares = b.create<mlir::arith::AddFOp>(loc, squares, d);
  }
  mlir::Value rstd =
      ln.rstdOf(b.create<mlir::arith::DivFOp>(loc, warpReduce(b, loc, squares, false), count));
  auto ifInRange = b.create<mlir::scf::IfOp>(loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifInRange.thenBlock());
  for (int64_t i = 0; i < perLane; ++i) {
    if (!valid[i]) {
      ln.normalize(values[i], mean, rstd, row, columns[i], ws[i], bs[i]);
      continue;
    }
    auto ifValid = b.create<mlir::scf::IfOp>(loc, valid[i], /*withElseRegion=*/false);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifValid.thenBlock());
    ln.normalize(values[i], mean, rstd, row, columns[i], ws[i], bs[i]);
  }
}

// A block per row, the row in shared memory.
void emitBlockPerRow(LayerNorm &ln) {
  mlir::OpBuilder &b = ln.b;
  KernelBuilder &kb = ln.kb;
  mlir::Location loc = ln.loc;
  int64_t n = ln.n;
  int64_t threads = std::min<int64_t>(256, (n + kWarp - 1) / kWarp * kWarp);
  mlir::Value fzero = ln.fzero, count = ln.count;
  auto launch = kb.launch(ln.rows, 1, threads, {kb.sharedType(n, b.getF32Type())});
  mlir::Value xs = launch.getWorkgroupAttributions()[0];
  mlir::Value row = launch.getBlockIds().x;
  mlir::Value t = launch.getThreadIds().x;
  mlir::Value step = kb.index(threads);
  auto allReduceSum = [&](mlir::Value value) {
    return b.create<mlir::gpu::AllReduceOp>(
        loc, value,
        mlir::gpu::AllReduceOperationAttr::get(b.getContext(), mlir::gpu::AllReduceOperation::ADD),
        /*uniform=*/true);
  };

  mlir::Value sum = kb.loop(t, n, step, fzero, [&](mlir::Value c, mlir::Value acc) {
    mlir::Value v = ln.input(row, c);
    b.create<mlir::memref::StoreOp>(loc, v, xs, c);
    return b.create<mlir::arith::AddFOp>(loc, acc, v);
  });
  // An RMS norm's loop above still fills the row (its sum unused, folded away).
  mlir::Value mean =
      ln.rms ? fzero : b.create<mlir::arith::DivFOp>(loc, allReduceSum(sum), count).getResult();
  mlir::Value squares = kb.loop(t, n, step, fzero, [&](mlir::Value c, mlir::Value acc) {
    mlir::Value d =
        b.create<mlir::arith::SubFOp>(loc, b.create<mlir::memref::LoadOp>(loc, xs, c), mean);
    return b.create<mlir::arith::AddFOp>(loc, acc, b.create<mlir::arith::MulFOp>(loc, d, d));
  });
  mlir::Value rstd = ln.rstdOf(b.create<mlir::arith::DivFOp>(loc, allReduceSum(squares), count));
  kb.loop(t, n, step, [&](mlir::Value c) {
    ln.normalize(b.create<mlir::memref::LoadOp>(loc, xs, c), mean, rstd, row, c,
                 ln.weight ? kb.load(ln.weight, {c}) : nullptr,
                 ln.bias ? kb.load(ln.bias, {c}) : nullptr);
  });
}

} // namespace

void emitLayerNorm(prim::LayerNormOp op, const BufferizedKernel &kernel, mlir::OpBuilder &b) {
  LayerNorm ln(op, kernel, b);
  if (ln.n <= kWarpRowMax)
    emitWarpPerRow(ln);
  else
    emitBlockPerRow(ln);
}

} // namespace pt2c::fused
