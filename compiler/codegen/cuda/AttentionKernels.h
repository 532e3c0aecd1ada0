// What the attention kernels share (AttentionKernel.cpp: the tile and row kernels;
// AttentionChunkKernel.cpp: the chunk kernel; AttentionMmaKernel.cpp: the tensor-core
// kernel for f16 and bf16).
#ifndef PT2C_COMPILER_CODEGEN_CUDA_ATTENTIONKERNELS_H_
#define PT2C_COMPILER_CODEGEN_CUDA_ATTENTIONKERNELS_H_

#include <cmath>

#include "compiler/codegen/cuda/FusedKernels.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace pt2c::fused {

// One attention op being lowered: its sizes, the buffers of the new function and the
// builder inside it.
struct Attention {
  Attention(prim::AttentionOp op, mlir::OpBuilder &b, int64_t smCount)
      : op(op), b(b), kb(b, op.getLoc()), loc(op.getLoc()), ctx(op.getContext()), smCount(smCount) {
    auto qShape = op.logicalShape(0), kShape = op.logicalShape(1), vShape = op.logicalShape(2);
    batch = qShape[0];
    heads = qShape[1];
    queries = qShape[2];
    keys = kShape[2];
    dim = qShape[3];
    vdim = vShape[3];
    headsPerKv = heads / kShape[1];
    outType = memrefOf(op.getResult());
  }

  // Indices into q, k, v or the result (0..3) for [b, h, row, column] in its layout; h is
  // the query's head: key and value read head h / headsPerKv (grouped-query attention).
  // A packed operand ([B, len, P, H, dim]) takes its part's index as a fifth.
  llvm::SmallVector<mlir::Value, 5> at(unsigned which, mlir::Value bi, mlir::Value hi,
                                       mlir::Value row, mlir::Value col) {
    if ((which == 1 || which == 2) && headsPerKv > 1)
      hi = b.create<mlir::arith::DivUIOp>(loc, hi, kb.index(headsPerKv));
    if (int64_t part = op.partOf(which); part >= 0)
      return {bi, row, kb.index(part), hi, col};
    if (op.getHeadsInner()[which])
      return {bi, row, hi, col};
    return {bi, hi, row, col};
  }
  // The score of query row i and key j: the dot product scaled, plus the bias, -inf past
  // i when causal.
  mlir::Value finishScore(mlir::Value dot, mlir::Value bi, mlir::Value hi, mlir::Value i,
                          mlir::Value j) {
    mlir::Value s =
        b.create<mlir::arith::MulFOp>(loc, dot, kb.f32(op.getScale().convertToDouble()));
    if (bias) {
      auto biasType = llvm::cast<mlir::MemRefType>(bias.getType());
      mlir::Value coords[4] = {bi, hi, i, j};
      llvm::SmallVector<mlir::Value> indices;
      for (int64_t d = 0; d < 4; ++d)
        indices.push_back(biasType.getDimSize(d) == 1 ? kb.index(0) : coords[d]);
      s = b.create<mlir::arith::AddFOp>(loc, s, kb.load(bias, indices));
    }
    if (op.getCausal()) {
      mlir::Value future =
          b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ugt, j, i);
      s = kb.select(future, kb.f32(-INFINITY), s);
    }
    return s;
  }
  // acc * inverse in the result's type, stored at [b, h, i, e].
  void storeResult(mlir::Value acc, mlir::Value inverse, mlir::Value bi, mlir::Value hi,
                   mlir::Value i, mlir::Value e) {
    mlir::Type elementType = outType.getElementType();
    mlir::Value result = b.create<mlir::arith::MulFOp>(loc, acc, inverse);
    if (!elementType.isF32())
      result = b.create<mlir::arith::TruncFOp>(loc, elementType, result);
    b.create<mlir::memref::StoreOp>(loc, result, out, at(3, bi, hi, i, e));
  }
  mlir::MemRefType sharedType(int64_t n, mlir::Type elementType) {
    return kb.sharedType(n, elementType);
  }
  // A launch with a block row per (batch, head) (y); sets bIdx and hIdx inside it.
  mlir::gpu::LaunchOp launch(int64_t gridX, int64_t threads, mlir::TypeRange shared) {
    auto launch = kb.launch(gridX, batch * heads, threads, shared);
    bIdx = b.create<mlir::arith::DivUIOp>(loc, launch.getBlockIds().y, kb.index(heads));
    hIdx = b.create<mlir::arith::RemUIOp>(loc, launch.getBlockIds().y, kb.index(heads));
    return launch;
  }
  mlir::Value warpReduce(mlir::Value value, bool max) {
    return fused::warpReduce(b, loc, value, max);
  }
  // Copies `count` elements into shared memory inside a launch: thread t of `threads`
  // takes elements t, t + threads, ...; load(i) reads element i, store(i, x) writes it.
  void stage(mlir::Value t, int64_t threads, int64_t count,
             llvm::function_ref<mlir::Value(mlir::Value)> load,
             llvm::function_ref<void(mlir::Value, mlir::Value)> store);

  prim::AttentionOp op;
  mlir::OpBuilder &b;
  KernelBuilder kb;
  mlir::Location loc;
  mlir::MLIRContext *ctx;
  int64_t batch, heads, queries, keys, dim, vdim, headsPerKv;
  int64_t smCount; // the multiprocessors the grid should cover (the pass's sm-count)
  mlir::MemRefType outType;
  mlir::Value q, k, v, bias, out;
  mlir::Value bIdx, hIdx; // inside the launch
};

// The tensor-core kernel (AttentionMmaKernel.cpp), for f16 and bf16 operands whose
// head sizes are multiples of 16 up to 128: true if it was emitted.
bool emitMmaAttentionKernel(Attention &a);
// The chunk kernel (AttentionChunkKernel.cpp), for at least 16 queries and 128 keys and
// value head sizes up to 128 whose chunk fits in shared memory: true if it was emitted.
bool emitChunkAttentionKernel(Attention &a);

} // namespace pt2c::fused

#endif // PT2C_COMPILER_CODEGEN_CUDA_ATTENTIONKERNELS_H_
