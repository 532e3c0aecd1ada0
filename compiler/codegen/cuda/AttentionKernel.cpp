// pt2c-lower-attention-to-gpu: see GpuPasses.h. The fused attention kernel, one block
// (4 or 8 warps) per query row i of one (batch, head):
//
//   q_s[d]  = q[b, h, i, d]                                (shared, f32)
//   p_s[j]  = q_s . k[b, h, j] * scale + bias[b, h, i, j]  (shared, f32; -inf past i
//             when causal): a warp per key, its lanes along the key's row, so that a
//             warp reads whole rows, the lanes' products summed by shuffles
//   m       = max_j p_s[j] (gpu.all_reduce), 0 for a row masked entirely
//   p_s[j]  = exp(p_s[j] - m),  s = sum_j p_s[j] (gpu.all_reduce)
//   out[b, h, i, e] = (sum_j p_s[j] v[b, h, j, e]) / s (0 when s = 0): threads along e
//             (whole rows of v again), split over the keys when there are more threads
//             than columns, the parts added through shared memory
//
// the formula of decompose/Attention.cpp, in f32 whatever the element type, so that the
// scores never leave the chip: one launch in place of the two GEMMs, the two row
// reductions with their fills, the softmax's pointwise kernels and the final scaling.
// A tensor whose heads_inner flag is set is indexed [b, row, h, column] instead.
#include "compiler/codegen/cuda/GpuPasses.h"

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

namespace pt2c {
namespace {

constexpr int64_t kWarp = 32;
constexpr int64_t kMaxThreads = 256;

mlir::MemRefType memrefOf(mlir::Value tensor) {
  auto type = llvm::cast<mlir::RankedTensorType>(tensor.getType());
  return mlir::MemRefType::get(type.getShape(), type.getElementType());
}

// The attention op a kernel function is made of, if it holds nothing else (besides the
// constants form-kernels cloned in for it).
prim::AttentionOp soleAttention(mlir::func::FuncOp func) {
  prim::AttentionOp found;
  for (mlir::Operation& op : func.getBody().front().without_terminator()) {
    if (auto attention = llvm::dyn_cast<prim::AttentionOp>(op)) {
      if (found) return {};
      found = attention;
    } else if (!llvm::isa<prim::ConstantOp>(op)) {
      return {};
    }
  }
  auto ret = llvm::cast<mlir::func::ReturnOp>(func.getBody().front().getTerminator());
  if (!found || ret.getNumOperands() != 1 || ret.getOperand(0) != found.getResult()) return {};
  return found;
}

class KernelBuilder {
 public:
  KernelBuilder(mlir::OpBuilder& b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::Value index(int64_t v) { return b.create<mlir::arith::ConstantIndexOp>(loc, v); }
  mlir::Value f32(double v) {
    return b.create<mlir::arith::ConstantOp>(loc, b.getF32FloatAttr(v));
  }
  mlir::Value load(mlir::Value memref, mlir::ValueRange indices) {
    mlir::Value v = b.create<mlir::memref::LoadOp>(loc, memref, indices);
    if (!v.getType().isF32()) v = b.create<mlir::arith::ExtFOp>(loc, b.getF32Type(), v);
    return v;
  }
  // for (i = from; i < to; i += step) carrying one f32 value.
  mlir::Value loop(mlir::Value from, int64_t to, mlir::Value step, mlir::Value init,
                   llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> body) {
    auto forOp = b.create<mlir::scf::ForOp>(
        loc, from, index(to), step, mlir::ValueRange{init},
        [&](mlir::OpBuilder& nested, mlir::Location, mlir::Value iv, mlir::ValueRange iter) {
          mlir::OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
          mlir::Value next = body(iv, iter[0]);
          b.create<mlir::scf::YieldOp>(loc, next);
        });
    return forOp.getResult(0);
  }
  void loop(mlir::Value from, int64_t to, mlir::Value step,
            llvm::function_ref<void(mlir::Value)> body) {
    b.create<mlir::scf::ForOp>(
        loc, from, index(to), step, mlir::ValueRange{},
        [&](mlir::OpBuilder& nested, mlir::Location, mlir::Value iv, mlir::ValueRange) {
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

  mlir::OpBuilder& b;
  mlir::Location loc;
};

// The memref of a kernel argument or of a constant the kernel holds (a global).
mlir::Value bufferOf(mlir::Value operand, mlir::func::FuncOp newFunc, mlir::OpBuilder& b,
                     mlir::SymbolTable& symbols) {
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(operand))
    return newFunc.getArgument(arg.getArgNumber());
  auto constant = operand.getDefiningOp<prim::ConstantOp>();
  auto type = memrefOf(operand);
  auto value = llvm::cast<mlir::DenseElementsAttr>(constant.getValue());
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(newFunc);
  auto global = b.create<mlir::memref::GlobalOp>(
      constant.getLoc(), (newFunc.getName() + "_constant").str(), b.getStringAttr("private"),
      type, value, /*constant=*/true, /*alignment=*/nullptr);
  symbols.insert(global);
  b.setInsertionPointToStart(&newFunc.getBody().front());
  return b.create<mlir::memref::GetGlobalOp>(constant.getLoc(), type, global.getSymName());
}

mlir::LogicalResult lower(mlir::func::FuncOp func, prim::AttentionOp op,
                          mlir::SymbolTable& symbols) {
  mlir::MLIRContext* ctx = func.getContext();
  mlir::Location loc = op.getLoc();
  auto outType = memrefOf(op.getResult());
  auto qShape = op.logicalShape(0), kShape = op.logicalShape(1), vShape = op.logicalShape(2);
  int64_t batch = qShape[0], heads = qShape[1], queries = qShape[2], keys = kShape[2],
          dim = qShape[3], vdim = vShape[3];
  llvm::ArrayRef<bool> headsInner = op.getHeadsInner();
  // Indices into q, k, v or the result (0..3) for [b, h, row, column] in its layout.
  auto at = [&](unsigned which, mlir::Value bi, mlir::Value hi, mlir::Value row,
                mlir::Value col) -> llvm::SmallVector<mlir::Value, 4> {
    if (headsInner[which]) return {bi, row, hi, col};
    return {bi, hi, row, col};
  };
  // 4 warps, or 8 when the keys or the head size need more threads.
  int64_t threads = std::max(keys, vdim) > 128 ? kMaxThreads : 128;

  // The bufferized calling convention: the arguments, then the result as an out-param.
  llvm::SmallVector<mlir::Type> argTypes;
  for (mlir::BlockArgument arg : func.getArguments()) argTypes.push_back(memrefOf(arg));
  argTypes.push_back(outType);
  mlir::OpBuilder b(func);
  auto newFunc = b.create<mlir::func::FuncOp>(func.getLoc(), func.getName(),
                                              b.getFunctionType(argTypes, {}));
  newFunc.setVisibility(func.getVisibility());
  for (mlir::NamedAttribute attr : func->getDiscardableAttrs())
    newFunc->setAttr(attr.getName(), attr.getValue());
  mlir::Block* entry = newFunc.addEntryBlock();
  b.setInsertionPointToStart(entry);
  b.create<mlir::func::ReturnOp>(loc);
  b.setInsertionPointToStart(entry);
  mlir::Value q = bufferOf(op.getQuery(), newFunc, b, symbols);
  mlir::Value k = bufferOf(op.getKey(), newFunc, b, symbols);
  mlir::Value v = bufferOf(op.getValue(), newFunc, b, symbols);
  mlir::Value bias = op.getBias() ? bufferOf(op.getBias(), newFunc, b, symbols) : nullptr;
  mlir::Value out = newFunc.getArguments().back();

  KernelBuilder kb(b, loc);
  // Output columns: `groups` threads per column, each summing every groups-th key, their
  // partial sums then added through shared memory (more threads than columns otherwise
  // idle: BERT's head size is 64).
  int64_t groups = threads % vdim == 0 ? threads / vdim : 1;
  auto workgroup = mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup);
  auto shared = [&](int64_t n) {
    return mlir::MemRefType::get({n}, b.getF32Type(), mlir::MemRefLayoutAttrInterface{},
                                 workgroup);
  };
  mlir::Value one = kb.index(1);
  auto launch = b.create<mlir::gpu::LaunchOp>(
      loc, kb.index(queries), kb.index(batch * heads), one, kb.index(threads),
      one, one, /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/mlir::ValueRange{},
      /*workgroupAttributions=*/mlir::TypeRange{shared(dim), shared(keys), shared(threads)});
  mlir::Block& body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  b.create<mlir::gpu::TerminatorOp>(loc);
  b.setInsertionPointToStart(&body);
  mlir::Value qRow = launch.getWorkgroupAttributions()[0];
  mlir::Value scores = launch.getWorkgroupAttributions()[1];
  mlir::Value partial = launch.getWorkgroupAttributions()[2];
  mlir::Value i = launch.getBlockIds().x;
  mlir::Value batchHead = launch.getBlockIds().y;
  mlir::Value bIdx = b.create<mlir::arith::DivUIOp>(loc, batchHead, kb.index(heads));
  mlir::Value hIdx = b.create<mlir::arith::RemUIOp>(loc, batchHead, kb.index(heads));
  mlir::Value t = launch.getThreadIds().x;
  mlir::Value step = kb.index(threads);
  mlir::Value zero = kb.index(0);
  mlir::Value negInf = kb.f32(-INFINITY), fzero = kb.f32(0.0);
  mlir::Value warp = b.create<mlir::arith::DivUIOp>(loc, t, kb.index(kWarp));
  mlir::Value lane = b.create<mlir::arith::RemUIOp>(loc, t, kb.index(kWarp));

  kb.loop(t, dim, step, [&](mlir::Value d) {
    b.create<mlir::memref::StoreOp>(loc, kb.load(q, at(0, bIdx, hIdx, i, d)), qRow, d);
  });
  b.create<mlir::gpu::BarrierOp>(loc);

  // Scores: a warp per key, its lanes over the key's row (reads of whole rows), the
  // lanes' sums added by shuffles; every lane ends with the score, lane 0 stores it.
  mlir::Value scale = kb.f32(op.getScale().convertToDouble());
  mlir::Value localMax = kb.loop(warp, keys, kb.index(threads / kWarp), negInf,
                                 [&](mlir::Value j, mlir::Value m) {
    mlir::Value dot = kb.loop(lane, dim, kb.index(kWarp), fzero,
                              [&](mlir::Value d, mlir::Value acc) {
      mlir::Value prod = b.create<mlir::arith::MulFOp>(
          loc, b.create<mlir::memref::LoadOp>(loc, qRow, d), kb.load(k, at(1, bIdx, hIdx, j, d)));
      return b.create<mlir::arith::AddFOp>(loc, acc, prod);
    });
    for (int32_t offset = kWarp / 2; offset > 0; offset /= 2) {
      auto shuffle = b.create<mlir::gpu::ShuffleOp>(loc, dot, offset, (int32_t)kWarp,
                                                    mlir::gpu::ShuffleMode::XOR);
      dot = b.create<mlir::arith::AddFOp>(loc, dot, shuffle.getShuffleResult());
    }
    mlir::Value s = b.create<mlir::arith::MulFOp>(loc, dot, scale);
    if (bias) {
      auto biasType = llvm::cast<mlir::MemRefType>(bias.getType());
      mlir::Value coords[4] = {bIdx, hIdx, i, j};
      llvm::SmallVector<mlir::Value> indices;
      for (int64_t d = 0; d < 4; ++d)
        indices.push_back(biasType.getDimSize(d) == 1 ? zero : coords[d]);
      s = b.create<mlir::arith::AddFOp>(loc, s, kb.load(bias, indices));
    }
    if (op.getCausal()) {
      mlir::Value future =
          b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ugt, j, i);
      s = kb.select(future, negInf, s);
    }
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
  b.create<mlir::gpu::BarrierOp>(loc);  // the scores lane 0 of every warp stored
  mlir::Value localSum = kb.loop(t, keys, step, fzero, [&](mlir::Value j, mlir::Value acc) {
    mlir::Value e = b.create<mlir::math::ExpOp>(
        loc, b.create<mlir::arith::SubFOp>(loc, b.create<mlir::memref::LoadOp>(loc, scores, j),
                                           safeMax));
    b.create<mlir::memref::StoreOp>(loc, e, scores, j);
    return b.create<mlir::arith::AddFOp>(loc, acc, e);
  });
  mlir::Value rowSum = allReduce(localSum, mlir::gpu::AllReduceOperation::ADD);
  b.create<mlir::gpu::BarrierOp>(loc);  // every thread's exp values before the sum over j
  mlir::Value inverse = kb.select(kb.feq(rowSum, fzero), fzero,
                                  b.create<mlir::arith::DivFOp>(loc, kb.f32(1.0), rowSum));
  mlir::Type elementType = outType.getElementType();
  auto storeOut = [&](mlir::Value e, mlir::Value acc) {
    mlir::Value result = b.create<mlir::arith::MulFOp>(loc, acc, inverse);
    if (!elementType.isF32()) result = b.create<mlir::arith::TruncFOp>(loc, elementType, result);
    b.create<mlir::memref::StoreOp>(loc, result, out, at(3, bIdx, hIdx, i, e));
  };
  auto weightedSum = [&](mlir::Value e, mlir::Value firstKey, int64_t keyStep) {
    return kb.loop(firstKey, keys, kb.index(keyStep), fzero, [&](mlir::Value j, mlir::Value sum) {
      mlir::Value prod = b.create<mlir::arith::MulFOp>(
          loc, b.create<mlir::memref::LoadOp>(loc, scores, j), kb.load(v, at(2, bIdx, hIdx, j, e)));
      return b.create<mlir::arith::AddFOp>(loc, sum, prod);
    });
  };
  if (groups == 1) {
    kb.loop(t, vdim, step, [&](mlir::Value e) { storeOut(e, weightedSum(e, zero, 1)); });
  } else {
    // Thread t: column t % vdim, keys t / vdim, t / vdim + groups, ...
    mlir::Value e = b.create<mlir::arith::RemUIOp>(loc, t, kb.index(vdim));
    mlir::Value g = b.create<mlir::arith::DivUIOp>(loc, t, kb.index(vdim));
    b.create<mlir::memref::StoreOp>(loc, weightedSum(e, g, groups), partial, t);
    b.create<mlir::gpu::BarrierOp>(loc);
    mlir::Value owner =
        b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ult, t, kb.index(vdim));
    auto ifOwner = b.create<mlir::scf::IfOp>(loc, owner, /*withElseRegion=*/false);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOwner.thenBlock());
    mlir::Value total = kb.loop(zero, groups, one, fzero, [&](mlir::Value gi, mlir::Value acc) {
      mlir::Value slot = b.create<mlir::arith::AddIOp>(
          loc, t, b.create<mlir::arith::MulIOp>(loc, gi, kb.index(vdim)));
      return b.create<mlir::arith::AddFOp>(loc, acc,
                                           b.create<mlir::memref::LoadOp>(loc, partial, slot));
    });
    storeOut(t, total);
  }

  symbols.erase(func);
  symbols.insert(newFunc);
  return mlir::success();
}

struct LowerAttentionToGpuPass
    : public mlir::PassWrapper<LowerAttentionToGpuPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerAttentionToGpuPass)

  llvm::StringRef getArgument() const override { return "pt2c-lower-attention-to-gpu"; }
  llvm::StringRef getDescription() const override {
    return "Rewrite kernel functions made of one prim.attention into bufferized functions "
           "with one fused attention launch";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<mlir::arith::ArithDialect, mlir::gpu::GPUDialect, mlir::math::MathDialect,
                    mlir::memref::MemRefDialect, mlir::scf::SCFDialect>();
  }
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    mlir::SymbolTable symbols(module);
    llvm::SmallVector<std::pair<mlir::func::FuncOp, prim::AttentionOp>> found;
    for (auto func : module.getOps<mlir::func::FuncOp>()) {
      if (func.isExternal()) continue;
      if (auto op = soleAttention(func)) {
        found.push_back({func, op});
      } else if (!func.getBody().getOps<prim::AttentionOp>().empty()) {
        func.emitError() << "internal error: prim.attention shares its kernel function "
                            "with other ops";
        return signalPassFailure();
      }
    }
    for (auto [func, op] : found)
      if (mlir::failed(lower(func, op, symbols))) return signalPassFailure();
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createLowerAttentionToGpuPass() {
  return std::make_unique<LowerAttentionToGpuPass>();
}

void registerLowerAttentionToGpuPass() { mlir::PassRegistration<LowerAttentionToGpuPass>(); }

}  // namespace pt2c
