// The chunk attention kernel for operands the tensor-core kernel does not take (f32, or
// head sizes it does not serve), flash-attention style on the CUDA cores: a block of 128
// threads per `rows` query rows of one (batch, head) walks the keys in chunks, each
// staged in shared memory once for all the block's rows, with the softmax online:
//   S = Q K^T for the chunk; m' = max(m, rowmax S); P = exp(S - m');
//   l = l e^(m - m') + rowsum P; O = O e^(m - m') + P V;
// and at the end out = O / l (0 for a row whose keys are all masked out). The tile
// kernel (AttentionKernel.cpp) stages all of K and V per block, which caps it at 4 rows
// per block: MobileViT-S's first attentions (256 keys, head size 36) took 35 us each on
// an H200, 64 blocks per head reading K and V again.
//
// Both products are register tiles: thread t is row slot t / 16 and key (or column)
// slot t % 16. It computes the scores of rows slot, slot + 8, ... and keys slot,
// slot + 16, ... of the chunk, and keeps O for the same rows and columns slot,
// slot + 16, ... (below vdim) in registers across the chunks. The shared arrays have
// rows padded by one word, so that neighbouring threads hit different banks.
#include <cmath>

#include "compiler/codegen/cuda/AttentionKernels.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace pt2c::fused {
namespace {

constexpr int64_t kThreads = 128;
constexpr int64_t kRowSlots = 8, kColumnSlots = 16; // kRowSlots * kColumnSlots == kThreads
constexpr int64_t kMaxColumnsPerThread = 8;         // vdim up to 128: O's registers
constexpr int64_t kMinKeys = 128;                   // two chunks of 64 or more

// The sizes of one chunk kernel: query rows per block and keys per chunk.
struct ChunkShape {
  int64_t rows, keys, dim, vdim;
  int64_t qStride() const { return dim + 1; }  // qs[r][d]
  int64_t kStride() const { return keys + 1; } // ks[d][j]: K transposed, read along j
  int64_t sStride() const { return keys + 1; } // sc[r][j]
  int64_t sharedBytes() const {
    return 4 * (rows * qStride() + dim * kStride() + keys * vdim + rows * sStride() + 3 * rows);
  }
};

void emitChunkKernel(Attention &a, const ChunkShape &shape) {
  mlir::OpBuilder &b = a.b;
  KernelBuilder &kb = a.kb;
  mlir::Location loc = a.loc;
  mlir::Type f32 = b.getF32Type();
  const int64_t rows = shape.rows, chunk = shape.keys;
  const int64_t rowsPerThread = rows / kRowSlots, keysPerThread = chunk / kColumnSlots;
  const int64_t columnsPerThread = (a.vdim + kColumnSlots - 1) / kColumnSlots;
  auto launch = a.launch(
      (a.queries + rows - 1) / rows, kThreads,
      {a.sharedType(rows * shape.qStride(), f32), a.sharedType(a.dim * shape.kStride(), f32),
       a.sharedType(chunk * a.vdim, f32), a.sharedType(rows * shape.sStride(), f32),
       a.sharedType(rows, f32), a.sharedType(rows, f32), a.sharedType(rows, f32)});
  mlir::Value qs = launch.getWorkgroupAttributions()[0];
  mlir::Value ks = launch.getWorkgroupAttributions()[1];
  mlir::Value vs = launch.getWorkgroupAttributions()[2];
  mlir::Value sc = launch.getWorkgroupAttributions()[3];
  mlir::Value rowMax = launch.getWorkgroupAttributions()[4];
  mlir::Value rowSum = launch.getWorkgroupAttributions()[5];
  mlir::Value rowScale = launch.getWorkgroupAttributions()[6]; // e^(m - m') of the chunk
  mlir::Value t = launch.getThreadIds().x;
  mlir::Value zero = kb.index(0), one = kb.index(1);
  mlir::Value fzero = kb.f32(0.0), negInf = kb.f32(-INFINITY);
  auto addN = [&](mlir::Value x, int64_t n) { return kb.add(x, kb.index(n)); };
  auto less = [&](mlir::Value x, int64_t n) {
    return b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ult, x, kb.index(n))
        .getResult();
  };
  auto exp = [&](mlir::Value x) { return b.create<mlir::math::ExpOp>(loc, x).getResult(); };
  auto ifThen = [&](mlir::Value cond, llvm::function_ref<void()> body) {
    auto ifOp = b.create<mlir::scf::IfOp>(loc, cond, /*withElseRegion=*/false);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  };
  mlir::Value firstRow = kb.mul(launch.getBlockIds().x, rows);
  // Query row r of the block, clamped into range: the last block's extra rows compute on
  // the last row and store nothing.
  auto clampedRow = [&](mlir::Value r) { return kb.min(kb.add(firstRow, r), a.queries - 1); };
  auto [rowSlot, columnSlot] = kb.divRem(t, kColumnSlots);
  auto rowOfSlot = [&](int64_t i) { return addN(rowSlot, i * kRowSlots); };

  a.stage(
      t, kThreads, rows * a.dim,
      [&](mlir::Value idx) {
        auto [r, d] = kb.divRem(idx, a.dim);
        return kb.load(a.q, a.at(0, a.bIdx, a.hIdx, clampedRow(r), d));
      },
      [&](mlir::Value idx, mlir::Value x) {
        auto [r, d] = kb.divRem(idx, a.dim);
        b.create<mlir::memref::StoreOp>(loc, x, qs, kb.add(kb.mul(r, shape.qStride()), d));
      });
  kb.loop(t, rows, kb.index(kThreads), [&](mlir::Value r) {
    b.create<mlir::memref::StoreOp>(loc, negInf, rowMax, r);
    b.create<mlir::memref::StoreOp>(loc, fzero, rowSum, r);
  });

  int64_t chunks = (a.keys + chunk - 1) / chunk;
  llvm::SmallVector<mlir::Value> accInit(rowsPerThread * columnsPerThread, fzero);
  auto acc = kb.loop(
      zero, chunks * chunk, kb.index(chunk), accInit,
      [&](mlir::Value firstKey, mlir::ValueRange o) {
        // Keys past the end read the last key; their scores are -inf.
        auto keyOf = [&](mlir::Value j) { return kb.min(kb.add(firstKey, j), a.keys - 1); };
        a.stage(
            t, kThreads, chunk * a.dim,
            [&](mlir::Value idx) {
              auto [j, d] = kb.divRem(idx, a.dim);
              return kb.load(a.k, a.at(1, a.bIdx, a.hIdx, keyOf(j), d));
            },
            [&](mlir::Value idx, mlir::Value x) {
              auto [j, d] = kb.divRem(idx, a.dim);
              b.create<mlir::memref::StoreOp>(loc, x, ks, kb.add(kb.mul(d, shape.kStride()), j));
            });
        a.stage(
            t, kThreads, chunk * a.vdim,
            [&](mlir::Value idx) {
              auto [j, e] = kb.divRem(idx, a.vdim);
              return kb.load(a.v, a.at(2, a.bIdx, a.hIdx, keyOf(j), e));
            },
            [&](mlir::Value idx, mlir::Value x) {
              b.create<mlir::memref::StoreOp>(loc, x, vs, idx);
            });
        b.create<mlir::gpu::BarrierOp>(loc); // Q (first chunk), K and V are staged

        // The scores of this thread's rows and keys.
        llvm::SmallVector<mlir::Value> dotInit(rowsPerThread * keysPerThread, fzero);
        auto dots = kb.loop(zero, a.dim, one, dotInit, [&](mlir::Value d, mlir::ValueRange s) {
          llvm::SmallVector<mlir::Value> qv, kv, next;
          for (int64_t i = 0; i < rowsPerThread; ++i)
            qv.push_back(b.create<mlir::memref::LoadOp>(
                loc, qs, kb.add(kb.mul(rowOfSlot(i), shape.qStride()), d)));
          mlir::Value kRow = kb.mul(d, shape.kStride());
          for (int64_t j = 0; j < keysPerThread; ++j)
            kv.push_back(b.create<mlir::memref::LoadOp>(
                loc, ks, kb.add(kRow, addN(columnSlot, j * kColumnSlots))));
          for (int64_t i = 0; i < rowsPerThread; ++i)
            for (int64_t j = 0; j < keysPerThread; ++j)
              next.push_back(kb.fadd(s[i * keysPerThread + j], kb.fmul(qv[i], kv[j])));
          return next;
        });
        for (int64_t i = 0; i < rowsPerThread; ++i)
          for (int64_t j = 0; j < keysPerThread; ++j) {
            mlir::Value r = rowOfSlot(i), jl = addN(columnSlot, j * kColumnSlots);
            mlir::Value key = kb.add(firstKey, jl);
            mlir::Value score = a.finishScore(dots[i * keysPerThread + j], a.bIdx, a.hIdx,
                                              clampedRow(r), kb.min(key, a.keys - 1));
            score = kb.select(less(key, a.keys), score, negInf);
            b.create<mlir::memref::StoreOp>(loc, score, sc, kb.add(kb.mul(r, shape.sStride()), jl));
          }
        b.create<mlir::gpu::BarrierOp>(loc);

        // A warp per row: the running max and sum, the chunk's probabilities in sc.
        auto [warp, lane] = kb.divRem(t, kWarp);
        kb.loop(warp, rows, kb.index(kThreads / kWarp), [&](mlir::Value r) {
          mlir::Value base = kb.mul(r, shape.sStride());
          mlir::Value m =
              kb.loop(lane, chunk, kb.index(kWarp), negInf, [&](mlir::Value j, mlir::Value x) {
                return b.create<mlir::arith::MaximumFOp>(
                    loc, x, b.create<mlir::memref::LoadOp>(loc, sc, kb.add(base, j)));
              });
          // Every lane reads the old max and sum before the shuffles, which lane 0 passes
          // only when all lanes have: its stores below cannot overtake another's read.
          mlir::Value old = b.create<mlir::memref::LoadOp>(loc, rowMax, r);
          mlir::Value oldSum = b.create<mlir::memref::LoadOp>(loc, rowSum, r);
          m = b.create<mlir::arith::MaximumFOp>(loc, a.warpReduce(m, /*max=*/true), old);
          mlir::Value safe = kb.select(kb.feq(m, negInf), fzero, m); // all masked so far
          mlir::Value sum =
              kb.loop(lane, chunk, kb.index(kWarp), fzero, [&](mlir::Value j, mlir::Value x) {
                mlir::Value at = kb.add(base, j);
                mlir::Value p = exp(b.create<mlir::arith::SubFOp>(
                    loc, b.create<mlir::memref::LoadOp>(loc, sc, at), safe));
                b.create<mlir::memref::StoreOp>(loc, p, sc, at);
                return kb.fadd(x, p);
              });
          sum = a.warpReduce(sum, /*max=*/false);
          mlir::Value scale = exp(b.create<mlir::arith::SubFOp>(loc, old, safe)); // 0 at -inf
          mlir::Value total = kb.fadd(kb.fmul(oldSum, scale), sum);
          ifThen(b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::eq, lane, zero),
                 [&] {
                   b.create<mlir::memref::StoreOp>(loc, m, rowMax, r);
                   b.create<mlir::memref::StoreOp>(loc, total, rowSum, r);
                   b.create<mlir::memref::StoreOp>(loc, scale, rowScale, r);
                 });
        });
        b.create<mlir::gpu::BarrierOp>(loc);

        // O = O e^(m - m') + P V for this thread's rows and columns (a column past vdim
        // reads column vdim - 1 and is never stored).
        llvm::SmallVector<mlir::Value> scaled;
        for (int64_t i = 0; i < rowsPerThread; ++i) {
          mlir::Value scale = b.create<mlir::memref::LoadOp>(loc, rowScale, rowOfSlot(i));
          for (int64_t c = 0; c < columnsPerThread; ++c)
            scaled.push_back(kb.fmul(o[i * columnsPerThread + c], scale));
        }
        auto next = kb.loop(zero, chunk, one, scaled, [&](mlir::Value j, mlir::ValueRange s) {
          llvm::SmallVector<mlir::Value> pv, vv, out;
          for (int64_t i = 0; i < rowsPerThread; ++i)
            pv.push_back(b.create<mlir::memref::LoadOp>(
                loc, sc, kb.add(kb.mul(rowOfSlot(i), shape.sStride()), j)));
          mlir::Value vRow = kb.mul(j, a.vdim);
          for (int64_t c = 0; c < columnsPerThread; ++c)
            vv.push_back(b.create<mlir::memref::LoadOp>(
                loc, vs, kb.add(vRow, kb.min(addN(columnSlot, c * kColumnSlots), a.vdim - 1))));
          for (int64_t i = 0; i < rowsPerThread; ++i)
            for (int64_t c = 0; c < columnsPerThread; ++c)
              out.push_back(kb.fadd(s[i * columnsPerThread + c], kb.fmul(pv[i], vv[c])));
          return out;
        });
        b.create<mlir::gpu::BarrierOp>(loc); // sc, K and V are read: the next chunk may come
        return next;
      });

  for (int64_t i = 0; i < rowsPerThread; ++i) {
    mlir::Value r = rowOfSlot(i), row = kb.add(firstRow, r);
    mlir::Value sum = b.create<mlir::memref::LoadOp>(loc, rowSum, r);
    mlir::Value inverse =
        kb.select(kb.feq(sum, fzero), fzero, b.create<mlir::arith::DivFOp>(loc, kb.f32(1.0), sum));
    for (int64_t c = 0; c < columnsPerThread; ++c) {
      mlir::Value column = addN(columnSlot, c * kColumnSlots);
      mlir::Value inRange =
          b.create<mlir::arith::AndIOp>(loc, less(row, a.queries), less(column, a.vdim));
      ifThen(inRange, [&] {
        a.storeResult(acc[i * columnsPerThread + c], inverse, a.bIdx, a.hIdx, row, column);
      });
    }
  }
}

} // namespace

bool emitChunkAttentionKernel(Attention &a) {
  // The tile kernel stages all of K and V per block of 4 rows: cheap for few keys, where
  // its blocks give more parallelism; with fewer than 16 queries it also wastes less.
  if (a.queries < 16 || a.keys < kMinKeys || a.vdim > kColumnSlots * kMaxColumnsPerThread)
    return false;
  // The most rows that the queries fill while the blocks still cover the GPU's SMs (32
  // rows in 128 blocks took 40 us on MobileViT-S's first attentions on an H100, 16 rows
  // in 256 blocks 33.5), then the longest chunk that fits.
  const int64_t heads = a.batch * a.heads;
  for (int64_t rows : {32, 16}) {
    bool coversSms = rows == 16 || (a.queries + rows - 1) / rows * heads >= a.smCount;
    if (rows > a.queries || !coversSms)
      continue;
    for (int64_t keys : {64, 32}) {
      ChunkShape shape{rows, keys, a.dim, a.vdim};
      if (shape.sharedBytes() <= kMaxSharedBytes) {
        emitChunkKernel(a, shape);
        return true;
      }
    }
  }
  return false;
}

} // namespace pt2c::fused
