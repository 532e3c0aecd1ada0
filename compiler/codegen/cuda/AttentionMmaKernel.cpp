// The tensor-core attention kernel for f16 and bf16 operands (flash-attention style):
// a warp per 16 query rows of one (batch, head) walks the keys in blocks of 64, with
// the products on mma.sync m16n8k16 (f32 accumulation) and the softmax online, in f32:
//   S = Q K^T for the block (Q's fragments loaded once, K's read from global memory);
//   m' = max(m, rowmax S); P = exp(S - m'); l = l e^(m - m') + rowsum P;
//   O = O e^(m - m') + P V (P rounded to the operands' type, as the products' inputs);
// and at the end out = O / l (0 for a row whose keys are all masked out).
// Fragment layouts are the PTX ISA's for m16n8k16 (lane = 4 g + t): A's (row-major
// 16x16) registers hold [g][2t, 2t+1], [g+8][2t, 2t+1], [g][2t+8, 2t+9], [g+8][2t+8,
// 2t+9]; B's (16x8, column-major) [2t, 2t+1][g] and [2t+8, 2t+9][g]; C's [g][2t, 2t+1]
// and [g+8][2t, 2t+1]. Two neighbouring C tiles of S are then one A fragment of P, so the
// probabilities never leave the registers. The exponentials are base 2 (ex2): the scale,
// the bias and the masks are applied to S times log2(e).
#include <array>
#include <cmath>
#include <string>

#include "compiler/codegen/cuda/AttentionKernels.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"

namespace pt2c::fused {
namespace {

constexpr int64_t kRowsPerWarp = 16;
constexpr int64_t kWarpsPerBlock = 4;
constexpr int64_t kMaxHeadSize = 128; // O's accumulators: vdim / 2 registers a thread

// Loads and stores through raw global pointers: mma fragments take pairs of elements,
// which one 32-bit access moves (memref.load would move them one at a time).
class Memory {
public:
  Memory(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elementType)
      : b(b), loc(loc), ctx(b.getContext()), elementType(elementType) {}

  // The global address of a memref's first element.
  mlir::Value base(mlir::Value memref) {
    mlir::Value address = b.create<mlir::memref::ExtractAlignedPointerAsIndexOp>(loc, memref);
    address = b.create<mlir::arith::IndexCastOp>(loc, b.getI64Type(), address);
    mlir::Value generic = b.create<mlir::LLVM::IntToPtrOp>(loc, ptrType(0), address);
    return b.create<mlir::LLVM::AddrSpaceCastOp>(loc, ptrType(1), generic);
  }
  // The address of element `index` (an index value) past `base`.
  mlir::Value at(mlir::Value base, mlir::Value index) {
    mlir::Value offset = b.create<mlir::arith::IndexCastOp>(loc, b.getI64Type(), index);
    return b.create<mlir::LLVM::GEPOp>(loc, ptrType(1), elementType, base,
                                       mlir::ValueRange{offset});
  }
  // Two neighbouring elements as one mma register.
  mlir::Value loadPair(mlir::Value base, mlir::Value index) {
    mlir::Value pair =
        b.create<mlir::LLVM::LoadOp>(loc, pairType(), at(base, index), /*alignment=*/4);
    return asRegister(pair);
  }
  // An mma register of an 8x8 matrix's transpose: lane 4g + t passes row g's columns
  // 2t, 2t+1 (`pair`, as loadPair reads them) and gets back column g's rows 2t, 2t+1.
  mlir::Value transposed(mlir::Value pair) {
    return ptx(b.getI32Type(), pair, "movmatrix.sync.aligned.m8n8.trans.b16 $0, $1;", "=r,r");
  }
  // Two f32 values rounded to the element type, as one mma register.
  mlir::Value packF32(mlir::Value x, mlir::Value y) { return asRegister(pairOfF32(x, y)); }
  // Two f32 values rounded to the element type, stored as one 32-bit word.
  void storePairF32(mlir::Value base, mlir::Value index, mlir::Value x, mlir::Value y) {
    mlir::Value pair = pairOfF32(x, y);
    b.create<mlir::LLVM::StoreOp>(loc, pair, at(base, index), /*alignment=*/4);
  }
  // D = A B + C on m16n8k16: 4 registers of A, 2 of B, 4 f32 of C; returns D's 4 f32.
  // Inline PTX rather than nvvm.mma.sync: MLIR 19's verifier wants bf16 pairs typed as
  // f16 pairs, which the LLVM intrinsic then rejects (it takes i32).
  std::array<mlir::Value, 4> mma(llvm::ArrayRef<mlir::Value> a, llvm::ArrayRef<mlir::Value> bf,
                                 llvm::ArrayRef<mlir::Value> c) {
    mlir::Type f32 = b.getF32Type();
    auto resultType = mlir::LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    const char *type = elementType.isF16() ? "f16" : "bf16";
    std::string code = llvm::formatv(
        "mma.sync.aligned.m16n8k16.row.col.f32.{0}.{0}.f32 {{$0,$1,$2,$3}, {{$4,$5,$6,$7}, "
        "{{$8,$9}, {{$10,$11,$12,$13};",
        type);
    llvm::SmallVector<mlir::Value> operands(a.begin(), a.end());
    operands.append(bf.begin(), bf.end());
    operands.append(c.begin(), c.end());
    mlir::Value result = ptx(resultType, operands, code, "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f");
    std::array<mlir::Value, 4> d;
    for (int64_t i = 0; i < 4; ++i)
      d[i] = b.create<mlir::LLVM::ExtractValueOp>(loc, result, llvm::ArrayRef<int64_t>{i});
    return d;
  }

private:
  // One PTX instruction without side effects (the warp-wide ones, mma and movmatrix, are
  // reached by every lane of the warp).
  mlir::Value ptx(mlir::Type resultType, mlir::ValueRange operands, llvm::StringRef code,
                  llvm::StringRef constraints) {
    return b
        .create<mlir::LLVM::InlineAsmOp>(loc, resultType, operands, code, constraints,
                                         /*has_side_effects=*/false, /*is_align_stack=*/false,
                                         mlir::LLVM::AsmDialectAttr(), mlir::ArrayAttr())
        .getRes();
  }
  mlir::Type ptrType(unsigned space) { return mlir::LLVM::LLVMPointerType::get(ctx, space); }
  mlir::VectorType pairType() { return mlir::VectorType::get({2}, elementType); }
  // The vector of two elements x, y.
  mlir::Value pairOf(mlir::Value x, mlir::Value y) {
    mlir::Value pair = b.create<mlir::LLVM::UndefOp>(loc, pairType());
    pair = b.create<mlir::LLVM::InsertElementOp>(loc, pair, x, i32(0));
    return b.create<mlir::LLVM::InsertElementOp>(loc, pair, y, i32(1));
  }
  mlir::Value pairOfF32(mlir::Value x, mlir::Value y) {
    mlir::Value first = b.create<mlir::arith::TruncFOp>(loc, elementType, x);
    return pairOf(first, b.create<mlir::arith::TruncFOp>(loc, elementType, y));
  }
  mlir::Value i32(int32_t v) {
    return b.create<mlir::LLVM::ConstantOp>(loc, b.getI32Type(), b.getI32IntegerAttr(v));
  }
  // mma.sync's registers are 32-bit.
  mlir::Value asRegister(mlir::Value pair) {
    return b.create<mlir::LLVM::BitcastOp>(loc, b.getI32Type(), pair);
  }

  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::MLIRContext *ctx;
  mlir::Type elementType;
};

bool rowMajor(mlir::Value memref) {
  return llvm::cast<mlir::MemRefType>(memref.getType()).getLayout().isIdentity();
}

} // namespace

bool emitMmaAttentionKernel(Attention &a) {
  mlir::Type elementType = a.outType.getElementType();
  if (!(elementType.isF16() || elementType.isBF16()))
    return false;
  if (a.dim % 16 != 0 || a.vdim % 16 != 0 || a.dim > kMaxHeadSize || a.vdim > kMaxHeadSize)
    return false;
  for (mlir::Value operand : {a.q, a.k, a.v, a.out})
    if (!rowMajor(operand) ||
        llvm::cast<mlir::MemRefType>(operand.getType()).getElementType() != elementType)
      return false;

  mlir::OpBuilder &b = a.b;
  KernelBuilder &kb = a.kb;
  mlir::Location loc = a.loc;
  Memory mem(b, loc, elementType);
  int64_t tiles = a.batch * a.heads * ((a.queries + kRowsPerWarp - 1) / kRowsPerWarp);
  // With fewer tiles of 16 query rows than 4 per SM, one warp alone per SM would wait on
  // its loads most of the time: the 4 warps of a block then share one tile, each taking
  // every 4th block of keys, and merge their (O, max, sum) at the end.
  int64_t splits = tiles >= kWarpsPerBlock * a.smCount ? 1 : kWarpsPerBlock;
  int64_t rowsPerBlock = kWarpsPerBlock / splits * kRowsPerWarp;
  // Steps of 64 keys, or 32 where 64 would leave a split without keys.
  int64_t keysPerStep = (a.keys + 63) / 64 < splits ? 32 : 64;
  int64_t keySteps = (a.keys + keysPerStep - 1) / keysPerStep;
  int64_t outTiles = a.vdim / 8;
  // A split's partial results for the merge: O's fragments, then max and sum per row.
  int64_t partialSize = outTiles * 4 + 4;
  llvm::SmallVector<mlir::Type> shared;
  if (splits > 1)
    shared.push_back(kb.sharedType((splits - 1) * kWarp * partialSize, b.getF32Type()));
  auto launch =
      a.launch((a.queries + rowsPerBlock - 1) / rowsPerBlock, kWarpsPerBlock * kWarp, shared);

  auto addc = [&](mlir::Value x, int64_t n) { return n ? kb.add(x, kb.index(n)) : x; };
  auto fmax = [&](mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::MaximumFOp>(loc, x, y).getResult();
  };
  auto exp2 = [&](mlir::Value x) { return b.create<mlir::math::Exp2Op>(loc, x).getResult(); };
  // Combines the 4 lanes of a fragment row (lanes 4g .. 4g+3).
  auto quadReduce = [&](mlir::Value value, bool max) {
    return shuffleReduce(b, loc, value, max, {1, 2});
  };
  // The element index of [b, h, row, col] in operand `which` (0..3: q, k, v, out), packed
  // operands included.
  auto linear = [&](unsigned which, mlir::Value memref, mlir::Value row, mlir::Value col) {
    auto type = llvm::cast<mlir::MemRefType>(memref.getType());
    llvm::SmallVector<mlir::Value, 5> indices = a.at(which, a.bIdx, a.hIdx, row, col);
    mlir::Value offset = indices[0];
    for (int64_t d = 1; d < (int64_t)indices.size(); ++d)
      offset = kb.add(kb.mul(offset, type.getDimSize(d)), indices[d]);
    return offset;
  };

  mlir::Value t = launch.getThreadIds().x;
  auto [warp, lane] = kb.divRem(t, kWarp);
  auto [g, quad] = kb.divRem(lane, 4);
  mlir::Value t2 = kb.mul(quad, 2);
  auto [rowTile, split] = kb.divRem(warp, splits);
  mlir::Value row0 =
      kb.add(kb.mul(launch.getBlockIds().x, rowsPerBlock), kb.mul(rowTile, kRowsPerWarp));
  // The thread's two fragment rows; loads read a row in range (the last tile's extra
  // rows compute on the last row and store nothing).
  mlir::Value rows[2] = {kb.add(row0, g), addc(kb.add(row0, g), 8)};
  mlir::Value loadRows[2] = {kb.min(rows[0], a.queries - 1), kb.min(rows[1], a.queries - 1)};
  mlir::Value qBase = mem.base(a.q), kBase = mem.base(a.k), vBase = mem.base(a.v);

  // Q's A fragments, for every 16 columns of the head.
  llvm::SmallVector<std::array<mlir::Value, 4>> qFragments;
  for (int64_t c = 0; c < a.dim; c += 16) {
    mlir::Value col = addc(t2, c);
    qFragments.push_back({mem.loadPair(qBase, linear(0, a.q, loadRows[0], col)),
                          mem.loadPair(qBase, linear(0, a.q, loadRows[1], col)),
                          mem.loadPair(qBase, linear(0, a.q, loadRows[0], addc(col, 8))),
                          mem.loadPair(qBase, linear(0, a.q, loadRows[1], addc(col, 8)))});
  }

  const double log2e = 1.4426950408889634;
  mlir::Value fzero = kb.f32(0.0), negInf = kb.f32(-INFINITY);
  mlir::Value scoreScale = kb.f32(a.op.getScale().convertToDouble() * log2e);
  mlir::Value biasScale = kb.f32(log2e);
  // Carried over the key blocks: O's C fragments, then each fragment row's max and
  // (this lane's part of the) sum.
  llvm::SmallVector<mlir::Value> inits(outTiles * 4, fzero);
  inits.append({negInf, negInf, fzero, fzero});
  auto carried = kb.loop(
      kb.mul(split, keysPerStep), keySteps * keysPerStep, kb.index(splits * keysPerStep), inits,
      [&](mlir::Value key0, mlir::ValueRange acc) {
        // S for this block: 8 C tiles of 8 keys. Key rows past the end are read clamped
        // and their scores masked.
        llvm::SmallVector<std::array<mlir::Value, 4>> s;
        for (int64_t n = 0; n < keysPerStep; n += 8) {
          mlir::Value keyRow = kb.min(kb.add(addc(key0, n), g), a.keys - 1);
          std::array<mlir::Value, 4> c = {fzero, fzero, fzero, fzero};
          for (int64_t ci = 0; ci < a.dim / 16; ++ci) {
            mlir::Value col = addc(t2, ci * 16);
            mlir::Value bfrag[2] = {mem.loadPair(kBase, linear(1, a.k, keyRow, col)),
                                    mem.loadPair(kBase, linear(1, a.k, keyRow, addc(col, 8)))};
            c = mem.mma(qFragments[ci], bfrag, c);
          }
          s.push_back(c);
        }
        // Scale, bias and masks, in log2 units; each fragment row's max.
        mlir::Value blockMax[2] = {negInf, negInf};
        for (int64_t n = 0; n < keysPerStep / 8; ++n) {
          for (int64_t e = 0; e < 4; ++e) {
            int64_t r = e / 2;
            mlir::Value key = addc(key0, n * 8 + e % 2);
            key = kb.add(key, t2);
            mlir::Value x = kb.fmul(s[n][e], scoreScale);
            if (a.bias) {
              auto biasType = llvm::cast<mlir::MemRefType>(a.bias.getType());
              mlir::Value coords[4] = {a.bIdx, a.hIdx, loadRows[r], kb.min(key, a.keys - 1)};
              llvm::SmallVector<mlir::Value> indices;
              for (int64_t d = 0; d < 4; ++d)
                indices.push_back(biasType.getDimSize(d) == 1 ? kb.index(0) : coords[d]);
              x = kb.fadd(x, kb.fmul(kb.load(a.bias, indices), biasScale));
            }
            auto masked = [&](mlir::arith::CmpIPredicate pred, mlir::Value lhs, mlir::Value rhs) {
              mlir::Value cond = b.create<mlir::arith::CmpIOp>(loc, pred, lhs, rhs);
              x = kb.select(cond, negInf, x);
            };
            if (a.op.getCausal())
              masked(mlir::arith::CmpIPredicate::ugt, key, rows[r]);
            if (a.keys % keysPerStep != 0)
              masked(mlir::arith::CmpIPredicate::uge, key, kb.index(a.keys));
            s[n][e] = x;
            blockMax[r] = fmax(blockMax[r], x);
          }
        }
        llvm::SmallVector<mlir::Value> next(acc.begin(), acc.end());
        mlir::Value scaleRow[2], maxSafe[2];
        for (int64_t r = 0; r < 2; ++r) {
          mlir::Value oldMax = acc[outTiles * 4 + r];
          mlir::Value newMax = fmax(oldMax, quadReduce(blockMax[r], /*max=*/true));
          // While a row has seen only masked keys its max is -inf: exponentials are then
          // taken against 0, which keeps them 0 instead of NaN.
          maxSafe[r] = kb.select(kb.feq(newMax, negInf), fzero, newMax);
          scaleRow[r] = exp2(b.create<mlir::arith::SubFOp>(loc, oldMax, maxSafe[r]));
          next[outTiles * 4 + r] = newMax;
        }
        mlir::Value sums[2] = {kb.fmul(acc[outTiles * 4 + 2], scaleRow[0]),
                               kb.fmul(acc[outTiles * 4 + 3], scaleRow[1])};
        for (auto &tile : s)
          for (int64_t e = 0; e < 4; ++e) {
            tile[e] = exp2(b.create<mlir::arith::SubFOp>(loc, tile[e], maxSafe[e / 2]));
            sums[e / 2] = kb.fadd(sums[e / 2], tile[e]);
          }
        next[outTiles * 4 + 2] = sums[0];
        next[outTiles * 4 + 3] = sums[1];
        for (int64_t o = 0; o < outTiles; ++o)
          for (int64_t e = 0; e < 4; ++e)
            next[o * 4 + e] = kb.fmul(acc[o * 4 + e], scaleRow[e / 2]);
        // O += P V: P's A fragment for keys 16j..16j+15 is S tiles 2j and 2j+1. V's B
        // fragments want pairs down a column: each is an 8x8 block of V read as pairs
        // along its rows (one 32-bit load a lane) and transposed across the warp.
        for (int64_t j = 0; j < keysPerStep / 16; ++j) {
          mlir::Value pFragment[4] = {mem.packF32(s[2 * j][0], s[2 * j][1]),
                                      mem.packF32(s[2 * j][2], s[2 * j][3]),
                                      mem.packF32(s[2 * j + 1][0], s[2 * j + 1][1]),
                                      mem.packF32(s[2 * j + 1][2], s[2 * j + 1][3])};
          mlir::Value keyRow = kb.add(addc(key0, j * 16), g);
          mlir::Value vRows[2] = {kb.min(keyRow, a.keys - 1), kb.min(addc(keyRow, 8), a.keys - 1)};
          for (int64_t o = 0; o < outTiles; ++o) {
            mlir::Value col = addc(t2, o * 8);
            mlir::Value bfrag[2] = {
                mem.transposed(mem.loadPair(vBase, linear(2, a.v, vRows[0], col))),
                mem.transposed(mem.loadPair(vBase, linear(2, a.v, vRows[1], col)))};
            auto d = mem.mma(pFragment, bfrag, llvm::ArrayRef<mlir::Value>(next).slice(o * 4, 4));
            for (int64_t e = 0; e < 4; ++e)
              next[o * 4 + e] = d[e];
          }
        }
        return next;
      });

  if (splits > 1) {
    // Splits 1.. leave their partial results in shared memory, at the same lane and
    // register as split 0 holds its own (the fragments' layout is the warps' common one).
    mlir::Value partials = launch.getWorkgroupAttributions()[0];
    auto slot = [&](mlir::Value s, int64_t i) {
      mlir::Value base = kb.mul(kb.add(kb.mul(s, kWarp), lane), partialSize);
      return addc(base, i);
    };
    mlir::Value notFirst =
        b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ne, split, kb.index(0));
    {
      auto ifNotFirst = b.create<mlir::scf::IfOp>(loc, notFirst, /*withElseRegion=*/false);
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifNotFirst.thenBlock());
      mlir::Value s = b.create<mlir::arith::SubIOp>(loc, split, kb.index(1));
      for (int64_t i = 0; i < partialSize; ++i)
        b.create<mlir::memref::StoreOp>(loc, carried[i], partials, slot(s, i));
    }
    b.create<mlir::gpu::BarrierOp>(loc);
    auto ifFirst = b.create<mlir::scf::IfOp>(
        loc, b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::eq, split, kb.index(0)),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifFirst.thenBlock());
    // Each split's results rescaled to the rows' overall max, then summed.
    llvm::SmallVector<llvm::SmallVector<mlir::Value>> all = {carried};
    for (int64_t si = 0; si + 1 < splits; ++si) {
      llvm::SmallVector<mlir::Value> other;
      for (int64_t i = 0; i < partialSize; ++i)
        other.push_back(b.create<mlir::memref::LoadOp>(loc, partials, slot(kb.index(si), i)));
      all.push_back(other);
    }
    llvm::SmallVector<mlir::Value> merged(partialSize, fzero);
    for (int64_t r = 0; r < 2; ++r) {
      mlir::Value max = negInf;
      for (auto &part : all)
        max = fmax(max, part[outTiles * 4 + r]);
      mlir::Value maxSafe = kb.select(kb.feq(max, negInf), fzero, max);
      for (auto &part : all) {
        mlir::Value scale =
            exp2(b.create<mlir::arith::SubFOp>(loc, part[outTiles * 4 + r], maxSafe));
        merged[outTiles * 4 + 2 + r] =
            kb.fadd(merged[outTiles * 4 + 2 + r], kb.fmul(part[outTiles * 4 + 2 + r], scale));
        for (int64_t o = 0; o < outTiles; ++o)
          for (int64_t e = 2 * r; e < 2 * r + 2; ++e)
            merged[o * 4 + e] = kb.fadd(merged[o * 4 + e], kb.fmul(part[o * 4 + e], scale));
      }
    }
    carried = merged;
  }

  // out = O / l per fragment row, stored as pairs; rows past the end store nothing.
  mlir::Value outBase = mem.base(a.out);
  for (int64_t r = 0; r < 2; ++r) {
    mlir::Value sum = quadReduce(carried[outTiles * 4 + 2 + r], /*max=*/false);
    mlir::Value inverse =
        kb.select(kb.feq(sum, fzero), fzero, b.create<mlir::arith::DivFOp>(loc, kb.f32(1.0), sum));
    mlir::Value inRange = b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ult,
                                                        rows[r], kb.index(a.queries));
    auto ifInRange = b.create<mlir::scf::IfOp>(loc, inRange, /*withElseRegion=*/false);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifInRange.thenBlock());
    for (int64_t o = 0; o < outTiles; ++o)
      mem.storePairF32(outBase, linear(3, a.out, rows[r], addc(t2, o * 8)),
                       kb.fmul(carried[o * 4 + 2 * r], inverse),
                       kb.fmul(carried[o * 4 + 2 * r + 1], inverse));
  }
  return true;
}

} // namespace pt2c::fused
