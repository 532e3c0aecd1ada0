// The fused GPU kernels pt2c writes itself for single prim ops (attention, layer norm):
// pt2c-lower-fused-ops-to-gpu (GpuPasses.h) finds the kernel functions made of one such
// op and rewrites each into the bufferized function of one launch, built here from
// gpu/scf/arith/memref ops so that the rest of the GPU lowering treats it as any other.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_FUSEDKERNELS_H_
#define PT2C_COMPILER_CODEGEN_CUDA_FUSEDKERNELS_H_

#include <utility>

#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace pt2c::fused {

constexpr int64_t kWarp = 32;
// Static shared memory a block may have without opting in to more.
constexpr int64_t kMaxSharedBytes = 48 * 1024;

mlir::MemRefType memrefOf(mlir::Value tensor);

// Builds the index and f32 arithmetic and the loops of a kernel body.
class KernelBuilder {
public:
  KernelBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::Value index(int64_t v) { return b.create<mlir::arith::ConstantIndexOp>(loc, v); }
  mlir::Value f32(double v) { return b.create<mlir::arith::ConstantOp>(loc, b.getF32FloatAttr(v)); }
  mlir::Value add(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::AddIOp>(loc, x, y); }
  mlir::Value mul(mlir::Value x, int64_t n) {
    return b.create<mlir::arith::MulIOp>(loc, x, index(n));
  }
  // x / n and x % n (unsigned).
  std::pair<mlir::Value, mlir::Value> divRem(mlir::Value x, int64_t n) {
    mlir::Value quotient = b.create<mlir::arith::DivUIOp>(loc, x, index(n));
    return {quotient, b.create<mlir::arith::RemUIOp>(loc, x, index(n))};
  }
  mlir::Value min(mlir::Value x, int64_t n) {
    return b.create<mlir::arith::MinUIOp>(loc, x, index(n));
  }
  mlir::Value fadd(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::AddFOp>(loc, x, y);
  }
  mlir::Value fmul(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::MulFOp>(loc, x, y);
  }
  mlir::Value load(mlir::Value memref, mlir::ValueRange indices) {
    mlir::Value v = b.create<mlir::memref::LoadOp>(loc, memref, indices);
    if (!v.getType().isF32())
      v = b.create<mlir::arith::ExtFOp>(loc, b.getF32Type(), v);
    return v;
  }
  // for (i = from; i < to; i += step) carrying one f32 value.
  mlir::Value loop(mlir::Value from, int64_t to, mlir::Value step, mlir::Value init,
                   llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> body) {
    auto forOp = b.create<mlir::scf::ForOp>(
        loc, from, index(to), step, mlir::ValueRange{init},
        [&](mlir::OpBuilder &nested, mlir::Location, mlir::Value iv, mlir::ValueRange iter) {
          mlir::OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
          mlir::Value next = body(iv, iter[0]);
          b.create<mlir::scf::YieldOp>(loc, next);
        });
    return forOp.getResult(0);
  }
  // The same carrying several values (a thread's accumulators for several rows).
  llvm::SmallVector<mlir::Value>
  loop(mlir::Value from, int64_t to, mlir::Value step, mlir::ValueRange inits,
       llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Value, mlir::ValueRange)> body) {
    auto forOp = b.create<mlir::scf::ForOp>(
        loc, from, index(to), step, inits,
        [&](mlir::OpBuilder &nested, mlir::Location, mlir::Value iv, mlir::ValueRange iter) {
          mlir::OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
          llvm::SmallVector<mlir::Value> next = body(iv, iter);
          b.create<mlir::scf::YieldOp>(loc, next);
        });
    return llvm::SmallVector<mlir::Value>(forOp.getResults());
  }
  // A 1-D array of shared (workgroup) memory, for a launch's workgroup attributions.
  mlir::MemRefType sharedType(int64_t n, mlir::Type elementType) {
    return mlir::MemRefType::get(
        {n}, elementType, mlir::MemRefLayoutAttrInterface{},
        mlir::gpu::AddressSpaceAttr::get(b.getContext(), mlir::gpu::AddressSpace::Workgroup));
  }
  // A launch of gridX x gridY blocks of `threads` threads with `shared` arrays; the
  // builder then inserts into its body, before the terminator.
  mlir::gpu::LaunchOp launch(int64_t gridX, int64_t gridY, int64_t threads,
                             mlir::TypeRange shared) {
    mlir::Value one = index(1);
    auto launch = b.create<mlir::gpu::LaunchOp>(
        loc, index(gridX), index(gridY), one, index(threads), one, one,
        /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/mlir::ValueRange{}, /*workgroupAttributions=*/shared);
    mlir::Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
    b.create<mlir::gpu::TerminatorOp>(loc);
    b.setInsertionPointToStart(&body);
    return launch;
  }
  void loop(mlir::Value from, int64_t to, mlir::Value step,
            llvm::function_ref<void(mlir::Value)> body) {
    b.create<mlir::scf::ForOp>(
        loc, from, index(to), step, mlir::ValueRange{},
        [&](mlir::OpBuilder &nested, mlir::Location, mlir::Value iv, mlir::ValueRange) {
          mlir::OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
          body(iv);
          b.create<mlir::scf::YieldOp>(loc);
        });
  }
  mlir::Value select(mlir::Value cond, mlir::Value a, mlir::Value c) {
    return b.create<mlir::arith::SelectOp>(loc, cond, a, c);
  }
  mlir::Value feq(mlir::Value a, mlir::Value c) {
    return b.create<mlir::arith::CmpFOp>(loc, mlir::arith::CmpFPredicate::OEQ, a, c);
  }

  mlir::OpBuilder &b;
  mlir::Location loc;
};

// The function that replaces a kernel function of one fused op: its arguments as
// memrefs, then the op's result as an out-param (the bufferized calling convention).
// `buffer(v)` is the memref of the op's operand v (an argument, or a global for a
// constant form-kernels cloned in); null for an absent optional operand. The builder
// inserts at the start of the body, before its return.
struct BufferizedKernel {
  mlir::Value buffer(mlir::Value operand) const {
    return operand ? buffers.lookup(operand) : mlir::Value();
  }
  mlir::func::FuncOp func;
  llvm::DenseMap<mlir::Value, mlir::Value> buffers;
  mlir::Value out;
};
BufferizedKernel startBufferizedKernel(mlir::func::FuncOp old, mlir::Operation *op,
                                       mlir::OpBuilder &b, mlir::SymbolTable &symbols);

// Lanes combined by xor shuffles at `offsets` (sum, or max): every lane of each group the
// offsets span gets its group's result.
mlir::Value shuffleReduce(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, bool max,
                          llvm::ArrayRef<int32_t> offsets);
// The 32 lanes of a warp combined so (offsets 16, 8, 4, 2, 1).
mlir::Value warpReduce(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, bool max);

// The launches (AttentionKernel.cpp, LayerNormKernel.cpp). `tensorCores`: whether the
// NVIDIA tensor-core kernel (inline PTX) may serve the attention; `smCount`: the
// multiprocessors its grid should cover.
void emitAttention(prim::AttentionOp op, const BufferizedKernel &kernel, mlir::OpBuilder &b,
                   bool tensorCores, int64_t smCount);
void emitLayerNorm(prim::LayerNormOp op, const BufferizedKernel &kernel, mlir::OpBuilder &b);

} // namespace pt2c::fused

#endif // PT2C_COMPILER_CODEGEN_CUDA_FUSEDKERNELS_H_
