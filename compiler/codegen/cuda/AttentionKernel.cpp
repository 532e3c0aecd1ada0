// pt2c-lower-fused-ops-to-gpu: see GpuPasses.h. Fused attention, the formula of
// decompose/Attention.cpp in f32 whatever the element type, so that the scores never
// leave the chip: one launch in place of the two GEMMs, the two row reductions with
// their fills, the softmax's pointwise kernels and the final scaling. f16/bf16 with head
// sizes that are multiples of 16 take the tensor-core kernel (AttentionMmaKernel.cpp),
// 16 queries and 128 keys or more the chunk kernel (AttentionChunkKernel.cpp, keys
// walked in chunks with the softmax online); the rest one of two kernels here:
//   - the tile kernel (emitTileKernel), where a (batch, head)'s K or V fits in shared
//     memory: a block per 4 query rows, K and V staged once per block;
//   - the row kernel (emitRowKernel) otherwise (up to prim::kFusedAttentionMaxKeys
//     keys): a block per query row, K and V read from global memory.
// A tensor whose heads_inner flag is set is indexed [b, row, h, column] instead of
// [b, h, row, column]. A row whose keys are all masked out gives 0.
#include "compiler/codegen/cuda/AttentionKernels.h"
#include "compiler/codegen/cuda/FusedKernels.h"

#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace pt2c::fused {

// One load after another, each waited for by its store, would leave a copy bound by
// global memory latency: kStageUnroll loads are in flight per thread. Loads past the end
// read the last element; their stores are skipped.
void Attention::stage(mlir::Value t, int64_t threads, int64_t count,
                      llvm::function_ref<mlir::Value(mlir::Value)> load,
                      llvm::function_ref<void(mlir::Value, mlir::Value)> store) {
  constexpr int64_t kStageUnroll = 8;
  int64_t chunk = kStageUnroll * threads;
  kb.loop(kb.index(0), (count + chunk - 1) / chunk * chunk, kb.index(chunk), [&](mlir::Value base) {
    llvm::SmallVector<mlir::Value> indices, values;
    for (int64_t u = 0; u < kStageUnroll; ++u) {
      mlir::Value offset = b.create<mlir::arith::AddIOp>(loc, base, kb.index(u * threads));
      indices.push_back(b.create<mlir::arith::AddIOp>(loc, offset, t));
      mlir::Value clamped =
          b.create<mlir::arith::MinUIOp>(loc, indices.back(), kb.index(count - 1));
      values.push_back(load(clamped));
    }
    for (int64_t u = 0; u < kStageUnroll; ++u) {
      mlir::Value inRange = b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ult,
                                                          indices[u], kb.index(count));
      auto ifInRange = b.create<mlir::scf::IfOp>(loc, inRange, /*withElseRegion=*/false);
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifInRange.thenBlock());
      store(indices[u], values[u]);
    }
  });
}

namespace {

constexpr int64_t kMaxThreads = 256;

constexpr int64_t kTileThreads = 128;

// How many threads share one output column of the tile kernel, each summing every
// keyGroups-th key: the threads a column alone would leave idle (a head size of 36 used
// 36 of 128 threads for the whole weighted sum over the keys).
int64_t keyGroups(const Attention &a) {
  return std::clamp<int64_t>(kTileThreads / a.vdim, 1, a.keys);
}

// Shared memory of the tile kernel for `rows` query rows per block, in bytes: the q rows
// (f32), K (rows padded by one 32-bit word against bank conflicts) then V in one buffer
// of the operands' type, the scores (f32), the rows' 1 / sum and the partial sums of the
// key groups (f32).
int64_t tileSharedBytes(const Attention &a, int64_t rows, int64_t elementBytes) {
  int64_t kvElements = std::max(a.keys * (a.dim + 4 / elementBytes), a.keys * a.vdim);
  return rows * a.dim * 4 + kvElements * elementBytes + rows * a.keys * 4 + rows * 4 +
         rows * keyGroups(a) * a.vdim * 4;
}

// The tile kernel: a block of 4 warps per `rows` query rows of one (batch, head), K and V
// staged in shared memory once for all of them (whole rows read by neighbouring threads),
// every product then read from shared memory:
//   qs[r][d] = q[i0 + r][d];  kv[j][d] = K[j][d]                    (barrier)
//   sc[r][j] = score(qs[r], kv[j])  (a thread per key j, for every r) (barrier)
//   kv[j][e] = V[j][e]; a warp per row: sc[r][j] = exp(sc[r][j] - max), inv[r] = 1 / sum
//                                                                     (barrier)
//   part[r][g][e] = sum_{j = g mod groups} sc[r][j] kv[j][e]  (a thread per (g, e), every r)
//                                                                     (barrier)
//   out[i0 + r][e] = inv[r] * sum_g part[r][g][e]  (a thread per (r, e))
void emitTileKernel(Attention &a, int64_t rows) {
  mlir::OpBuilder &b = a.b;
  KernelBuilder &kb = a.kb;
  mlir::Location loc = a.loc;
  mlir::Type elementType = a.outType.getElementType();
  int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  int64_t kStride = a.dim + 4 / elementBytes;
  int64_t kvElements = std::max(a.keys * kStride, a.keys * a.vdim);
  constexpr int64_t threads = kTileThreads;
  int64_t groups = keyGroups(a);
  auto launch =
      a.launch((a.queries + rows - 1) / rows, threads,
               {a.sharedType(rows * a.dim, b.getF32Type()), a.sharedType(kvElements, elementType),
                a.sharedType(rows * a.keys, b.getF32Type()), a.sharedType(rows, b.getF32Type()),
                a.sharedType(rows * groups * a.vdim, b.getF32Type())});
  mlir::Value qs = launch.getWorkgroupAttributions()[0];
  mlir::Value kv = launch.getWorkgroupAttributions()[1];
  mlir::Value sc = launch.getWorkgroupAttributions()[2];
  mlir::Value inv = launch.getWorkgroupAttributions()[3];
  mlir::Value part = launch.getWorkgroupAttributions()[4];
  mlir::Value t = launch.getThreadIds().x;
  mlir::Value step = kb.index(threads), zero = kb.index(0), one = kb.index(1);
  mlir::Value fzero = kb.f32(0.0), negInf = kb.f32(-INFINITY);
  mlir::Value firstRow = kb.mul(launch.getBlockIds().x, rows);
  // Row firstRow + r, clamped into range: the last block's extra rows compute on the last
  // row and store nothing.
  auto rowOf = [&](mlir::Value r) { return kb.min(kb.add(firstRow, r), a.queries); };
  auto clampedRowOf = [&](mlir::Value r) { return kb.min(kb.add(firstRow, r), a.queries - 1); };

  kb.loop(t, rows * a.dim, step, [&](mlir::Value idx) {
    auto [r, d] = kb.divRem(idx, a.dim);
    b.create<mlir::memref::StoreOp>(loc, kb.load(a.q, a.at(0, a.bIdx, a.hIdx, clampedRowOf(r), d)),
                                    qs, idx);
  });
  a.stage(
      t, threads, a.keys * a.dim,
      [&](mlir::Value idx) {
        auto [j, d] = kb.divRem(idx, a.dim);
        return b.create<mlir::memref::LoadOp>(loc, a.k, a.at(1, a.bIdx, a.hIdx, j, d)).getResult();
      },
      [&](mlir::Value idx, mlir::Value x) {
        auto [j, d] = kb.divRem(idx, a.dim);
        b.create<mlir::memref::StoreOp>(loc, x, kv, kb.add(kb.mul(j, kStride), d));
      });
  b.create<mlir::gpu::BarrierOp>(loc);

  // For every row r of the block: sum over i = first, first + step, ... < count of
  // rowsBuffer[r * rowStride + i] * shared(i), each shared(i) read once for all the rows.
  llvm::SmallVector<mlir::Value> zeros(rows, fzero);
  auto sumOverRows = [&](mlir::Value first, mlir::Value iStep, int64_t count,
                         mlir::Value rowsBuffer, int64_t rowStride,
                         llvm::function_ref<mlir::Value(mlir::Value)> shared) {
    return kb.loop(first, count, iStep, zeros, [&](mlir::Value i, mlir::ValueRange acc) {
      mlir::Value y = shared(i);
      llvm::SmallVector<mlir::Value> next;
      for (int64_t r = 0; r < rows; ++r) {
        mlir::Value x =
            b.create<mlir::memref::LoadOp>(loc, rowsBuffer, kb.add(kb.index(r * rowStride), i));
        next.push_back(kb.fadd(acc[r], kb.fmul(x, y)));
      }
      return next;
    });
  };

  // A thread per key, for all the block's rows at once: each K element read from shared
  // memory serves `rows` products.
  kb.loop(t, a.keys, step, [&](mlir::Value j) {
    mlir::Value kBase = kb.mul(j, kStride);
    auto dots = sumOverRows(zero, one, a.dim, qs, a.dim,
                            [&](mlir::Value d) { return kb.load(kv, kb.add(kBase, d)); });
    for (int64_t r = 0; r < rows; ++r) {
      mlir::Value s = a.finishScore(dots[r], a.bIdx, a.hIdx, clampedRowOf(kb.index(r)), j);
      b.create<mlir::memref::StoreOp>(loc, s, sc, kb.add(kb.index(r * a.keys), j));
    }
  });
  b.create<mlir::gpu::BarrierOp>(loc); // K is read: V may take its place

  a.stage(
      t, threads, a.keys * a.vdim,
      [&](mlir::Value idx) {
        auto [j, e] = kb.divRem(idx, a.vdim);
        return b.create<mlir::memref::LoadOp>(loc, a.v, a.at(2, a.bIdx, a.hIdx, j, e)).getResult();
      },
      [&](mlir::Value idx, mlir::Value x) { b.create<mlir::memref::StoreOp>(loc, x, kv, idx); });
  // A warp per row; the lanes of a warp take the same rows, so the shuffles converge.
  auto [warp, lane] = kb.divRem(t, kWarp);
  kb.loop(warp, rows, kb.index(threads / kWarp), [&](mlir::Value r) {
    mlir::Value base = kb.mul(r, a.keys);
    mlir::Value m =
        kb.loop(lane, a.keys, kb.index(kWarp), negInf, [&](mlir::Value j, mlir::Value acc) {
          return b.create<mlir::arith::MaximumFOp>(
              loc, acc, b.create<mlir::memref::LoadOp>(loc, sc, kb.add(base, j)));
        });
    m = a.warpReduce(m, /*max=*/true);
    mlir::Value safeMax = kb.select(kb.feq(m, negInf), fzero, m); // a row masked entirely
    mlir::Value sum =
        kb.loop(lane, a.keys, kb.index(kWarp), fzero, [&](mlir::Value j, mlir::Value acc) {
          mlir::Value e = b.create<mlir::math::ExpOp>(
              loc, b.create<mlir::arith::SubFOp>(
                       loc, b.create<mlir::memref::LoadOp>(loc, sc, kb.add(base, j)), safeMax));
          b.create<mlir::memref::StoreOp>(loc, e, sc, kb.add(base, j));
          return kb.fadd(acc, e);
        });
    sum = a.warpReduce(sum, /*max=*/false);
    mlir::Value inverse =
        kb.select(kb.feq(sum, fzero), fzero, b.create<mlir::arith::DivFOp>(loc, kb.f32(1.0), sum));
    b.create<mlir::memref::StoreOp>(loc, inverse, inv, r);
  });
  b.create<mlir::gpu::BarrierOp>(loc);

  // A thread per (key group, output column), for all the block's rows at once; the
  // threads past groups * vdim only wait at the barrier.
  auto [g, e] = kb.divRem(t, a.vdim);
  mlir::Value summing =
      b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ult, g, kb.index(groups));
  auto ifSumming = b.create<mlir::scf::IfOp>(loc, summing, /*withElseRegion=*/false);
  {
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifSumming.thenBlock());
    auto sums = sumOverRows(g, kb.index(groups), a.keys, sc, a.keys, [&](mlir::Value j) {
      return kb.load(kv, kb.add(kb.mul(j, a.vdim), e));
    });
    mlir::Value column = kb.add(kb.mul(g, a.vdim), e); // of part[r]: [groups][vdim]
    for (int64_t r = 0; r < rows; ++r)
      b.create<mlir::memref::StoreOp>(loc, sums[r], part,
                                      kb.add(kb.index(r * groups * a.vdim), column));
  }
  b.create<mlir::gpu::BarrierOp>(loc);
  // A thread per (row, column): the sum of the groups' partial sums.
  kb.loop(t, rows * a.vdim, step, [&](mlir::Value idx) {
    auto [r, col] = kb.divRem(idx, a.vdim);
    mlir::Value base = kb.mul(r, groups * a.vdim);
    mlir::Value total = kb.loop(zero, groups, one, fzero, [&](mlir::Value gi, mlir::Value acc) {
      mlir::Value x =
          b.create<mlir::memref::LoadOp>(loc, part, kb.add(kb.add(base, kb.mul(gi, a.vdim)), col));
      return kb.fadd(acc, x);
    });
    mlir::Value row = rowOf(r);
    mlir::Value inRange = b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ult, row,
                                                        kb.index(a.queries));
    auto ifInRange = b.create<mlir::scf::IfOp>(loc, inRange, /*withElseRegion=*/false);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifInRange.thenBlock());
    a.storeResult(total, b.create<mlir::memref::LoadOp>(loc, inv, r), a.bIdx, a.hIdx, row, col);
  });
}

void emitRowKernel(Attention &a) {
  mlir::OpBuilder &b = a.b;
  KernelBuilder &kb = a.kb;
  mlir::Location loc = a.loc;
  mlir::MLIRContext *ctx = a.ctx;
  int64_t keys = a.keys, dim = a.dim, vdim = a.vdim;
  // 4 warps, or 8 when the keys or the head size need more threads.
  int64_t threads = std::max(keys, vdim) > 128 ? kMaxThreads : 128;
  int64_t groups = threads % vdim == 0 ? threads / vdim : 1;
  auto launch = a.launch(a.queries, threads,
                         {a.sharedType(dim, b.getF32Type()), a.sharedType(keys, b.getF32Type()),
                          a.sharedType(threads, b.getF32Type())});
  mlir::Value qRow = launch.getWorkgroupAttributions()[0];
  mlir::Value scores = launch.getWorkgroupAttributions()[1];
  mlir::Value partial = launch.getWorkgroupAttributions()[2];
  mlir::Value i = launch.getBlockIds().x;
  mlir::Value bIdx = a.bIdx, hIdx = a.hIdx;
  mlir::Value t = launch.getThreadIds().x;
  mlir::Value step = kb.index(threads), zero = kb.index(0), one = kb.index(1);
  mlir::Value negInf = kb.f32(-INFINITY), fzero = kb.f32(0.0);
  auto [warp, lane] = kb.divRem(t, kWarp);

  kb.loop(t, dim, step, [&](mlir::Value d) {
    b.create<mlir::memref::StoreOp>(loc, kb.load(a.q, a.at(0, bIdx, hIdx, i, d)), qRow, d);
  });
  b.create<mlir::gpu::BarrierOp>(loc);
  mlir::Value localMax =
      kb.loop(warp, keys, kb.index(threads / kWarp), negInf, [&](mlir::Value j, mlir::Value m) {
        mlir::Value dot =
            kb.loop(lane, dim, kb.index(kWarp), fzero, [&](mlir::Value d, mlir::Value acc) {
              mlir::Value prod = kb.fmul(b.create<mlir::memref::LoadOp>(loc, qRow, d),
                                         kb.load(a.k, a.at(1, bIdx, hIdx, j, d)));
              return kb.fadd(acc, prod);
            });
        mlir::Value s = a.finishScore(a.warpReduce(dot, /*max=*/false), bIdx, hIdx, i, j);
        mlir::Value first =
            b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::eq, lane, zero);
        auto ifFirst = b.create<mlir::scf::IfOp>(loc, first, /*withElseRegion=*/false);
        {
          mlir::OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(ifFirst.thenBlock());
          b.create<mlir::memref::StoreOp>(loc, s, scores, j);
        }
        return b.create<mlir::arith::MaximumFOp>(loc, m, s);
      });
  auto allReduce = [&](mlir::Value value, mlir::gpu::AllReduceOperation kind) {
    return b.create<mlir::gpu::AllReduceOp>(
        loc, value, mlir::gpu::AllReduceOperationAttr::get(ctx, kind), /*uniform=*/true);
  };
  mlir::Value rowMax = allReduce(localMax, mlir::gpu::AllReduceOperation::MAXIMUMF);
  mlir::Value safeMax = kb.select(kb.feq(rowMax, negInf), fzero, rowMax);
  b.create<mlir::gpu::BarrierOp>(loc); // the scores lane 0 of every warp stored
  mlir::Value localSum = kb.loop(t, keys, step, fzero, [&](mlir::Value j, mlir::Value acc) {
    mlir::Value e = b.create<mlir::math::ExpOp>(
        loc, b.create<mlir::arith::SubFOp>(loc, b.create<mlir::memref::LoadOp>(loc, scores, j),
                                           safeMax));
    b.create<mlir::memref::StoreOp>(loc, e, scores, j);
    return kb.fadd(acc, e);
  });
  mlir::Value rowSum = allReduce(localSum, mlir::gpu::AllReduceOperation::ADD);
  b.create<mlir::gpu::BarrierOp>(loc); // every thread's exp values before the sum over j
  mlir::Value inverse = kb.select(kb.feq(rowSum, fzero), fzero,
                                  b.create<mlir::arith::DivFOp>(loc, kb.f32(1.0), rowSum));
  auto weightedSum = [&](mlir::Value e, mlir::Value firstKey, int64_t keyStep) {
    return kb.loop(firstKey, keys, kb.index(keyStep), fzero, [&](mlir::Value j, mlir::Value sum) {
      mlir::Value prod = kb.fmul(b.create<mlir::memref::LoadOp>(loc, scores, j),
                                 kb.load(a.v, a.at(2, bIdx, hIdx, j, e)));
      return kb.fadd(sum, prod);
    });
  };
  if (groups == 1) {
    kb.loop(t, vdim, step, [&](mlir::Value e) {
      a.storeResult(weightedSum(e, zero, 1), inverse, bIdx, hIdx, i, e);
    });
    return;
  }
  // Thread t: column t % vdim, keys t / vdim, t / vdim + groups, ...
  auto [g, e] = kb.divRem(t, vdim);
  b.create<mlir::memref::StoreOp>(loc, weightedSum(e, g, groups), partial, t);
  b.create<mlir::gpu::BarrierOp>(loc);
  mlir::Value owner =
      b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ult, t, kb.index(vdim));
  auto ifOwner = b.create<mlir::scf::IfOp>(loc, owner, /*withElseRegion=*/false);
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOwner.thenBlock());
  mlir::Value total = kb.loop(zero, groups, one, fzero, [&](mlir::Value gi, mlir::Value acc) {
    mlir::Value slot = kb.add(t, kb.mul(gi, vdim));
    return kb.fadd(acc, b.create<mlir::memref::LoadOp>(loc, partial, slot));
  });
  a.storeResult(total, inverse, bIdx, hIdx, i, t);
}

} // namespace

void emitAttention(prim::AttentionOp op, const BufferizedKernel &kernel, mlir::OpBuilder &b,
                   bool tensorCores, int64_t smCount) {
  Attention a(op, b, smCount);
  a.q = kernel.buffer(op.getQuery());
  a.k = kernel.buffer(op.getKey());
  a.v = kernel.buffer(op.getValue());
  a.bias = kernel.buffer(op.getBias());
  a.out = kernel.out;
  if ((tensorCores && emitMmaAttentionKernel(a)) || emitChunkAttentionKernel(a))
    return;
  int64_t elementBytes = a.outType.getElementType().getIntOrFloatBitWidth() / 8;
  for (int64_t rows : {4, 2, 1})
    if (rows <= a.queries && tileSharedBytes(a, rows, elementBytes) <= kMaxSharedBytes)
      return emitTileKernel(a, rows);
  emitRowKernel(a);
}

} // namespace pt2c::fused
