// pt2c-lower-fused-ops-to-gpu (GpuPasses.h) and what the fused kernels share.
#include "compiler/codegen/cuda/FusedKernels.h"

#include "compiler/codegen/cuda/GpuPasses.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"

namespace pt2c {
// The pass's base class (pt2c::impl) and pt2c::createLowerFusedOpsToGpuPass.
#define GEN_PASS_DEF_LOWERFUSEDOPSTOGPUPASS
#include "compiler/codegen/cuda/Passes.h.inc"
} // namespace pt2c

namespace pt2c::fused {

mlir::MemRefType memrefOf(mlir::Value tensor) {
  auto type = llvm::cast<mlir::RankedTensorType>(tensor.getType());
  return mlir::MemRefType::get(type.getShape(), type.getElementType());
}

namespace {

// The memref of a kernel argument or of a constant the kernel holds (a global).
mlir::Value bufferOf(mlir::Value operand, mlir::func::FuncOp newFunc, mlir::OpBuilder &b,
                     mlir::SymbolTable &symbols) {
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(operand))
    return newFunc.getArgument(arg.getArgNumber());
  auto constant = operand.getDefiningOp<prim::ConstantOp>();
  auto type = memrefOf(operand);
  auto value = llvm::cast<mlir::DenseElementsAttr>(constant.getValue());
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(newFunc);
  // 16-byte aligned like the arena's buffers: the tensor-core attention kernel reads
  // element pairs as 32-bit words.
  auto global = b.create<mlir::memref::GlobalOp>(
      constant.getLoc(), (newFunc.getName() + "_constant").str(), b.getStringAttr("private"), type,
      value, /*constant=*/true, /*alignment=*/b.getI64IntegerAttr(16));
  symbols.insert(global);
  b.setInsertionPointToStart(&newFunc.getBody().front());
  return b.create<mlir::memref::GetGlobalOp>(constant.getLoc(), type, global.getSymName());
}

} // namespace

BufferizedKernel startBufferizedKernel(mlir::func::FuncOp old, mlir::Operation *op,
                                       mlir::OpBuilder &b, mlir::SymbolTable &symbols) {
  llvm::SmallVector<mlir::Type> argTypes;
  for (mlir::BlockArgument arg : old.getArguments())
    argTypes.push_back(memrefOf(arg));
  argTypes.push_back(memrefOf(op->getResult(0)));
  b.setInsertionPoint(old);
  auto func =
      b.create<mlir::func::FuncOp>(old.getLoc(), old.getName(), b.getFunctionType(argTypes, {}));
  func.setVisibility(old.getVisibility());
  for (mlir::NamedAttribute attr : old->getDiscardableAttrs())
    func->setAttr(attr.getName(), attr.getValue());
  mlir::Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  b.create<mlir::func::ReturnOp>(op->getLoc());
  b.setInsertionPointToStart(entry);
  BufferizedKernel kernel{func, {}, func.getArguments().back()};
  for (mlir::Value operand : op->getOperands())
    if (!kernel.buffers.count(operand))
      kernel.buffers[operand] = bufferOf(operand, func, b, symbols);
  return kernel;
}

mlir::Value shuffleReduce(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, bool max,
                          llvm::ArrayRef<int32_t> offsets) {
  for (int32_t offset : offsets) {
    auto shuffle = b.create<mlir::gpu::ShuffleOp>(loc, value, offset, (int32_t)kWarp,
                                                  mlir::gpu::ShuffleMode::XOR);
    value =
        max ? b.create<mlir::arith::MaximumFOp>(loc, value, shuffle.getShuffleResult()).getResult()
            : b.create<mlir::arith::AddFOp>(loc, value, shuffle.getShuffleResult()).getResult();
  }
  return value;
}

mlir::Value warpReduce(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, bool max) {
  return shuffleReduce(b, loc, value, max, {16, 8, 4, 2, 1});
}

namespace {

// The fused op a kernel function is made of, if it holds nothing else (besides the
// constants form-kernels cloned in for it).
mlir::Operation *soleFusedOp(mlir::func::FuncOp func) {
  mlir::Operation *found = nullptr;
  for (mlir::Operation &op : func.getBody().front().without_terminator()) {
    if (llvm::isa<prim::AttentionOp, prim::LayerNormOp>(op)) {
      if (found)
        return nullptr;
      found = &op;
    } else if (!llvm::isa<prim::ConstantOp>(op)) {
      return nullptr;
    }
  }
  auto ret = llvm::cast<mlir::func::ReturnOp>(func.getBody().front().getTerminator());
  if (!found || ret.getNumOperands() != 1 || ret.getOperand(0) != found->getResult(0))
    return nullptr;
  return found;
}

struct LowerFusedOpsToGpuPass : pt2c::impl::LowerFusedOpsToGpuPassBase<LowerFusedOpsToGpuPass> {
  using LowerFusedOpsToGpuPassBase::LowerFusedOpsToGpuPassBase;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    mlir::SymbolTable symbols(module);
    llvm::SmallVector<std::pair<mlir::func::FuncOp, mlir::Operation *>> found;
    for (auto func : module.getOps<mlir::func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (mlir::Operation *op = soleFusedOp(func)) {
        found.push_back({func, op});
        continue;
      }
      bool stray = false;
      func.walk([&](mlir::Operation *op) {
        stray |= llvm::isa<prim::AttentionOp, prim::LayerNormOp>(op);
      });
      if (stray) {
        func.emitError() << "internal error: a fused op shares its kernel function with "
                            "other ops";
        return signalPassFailure();
      }
    }
    mlir::OpBuilder b(module.getContext());
    for (auto [func, op] : found) {
      BufferizedKernel kernel = startBufferizedKernel(func, op, b, symbols);
      if (auto attention = llvm::dyn_cast<prim::AttentionOp>(op))
        emitAttention(attention, kernel, b, tensorCores, smCount);
      else
        emitLayerNorm(llvm::cast<prim::LayerNormOp>(op), kernel, b);
      symbols.erase(func);
      symbols.insert(kernel.func);
    }
  }
};

} // namespace
} // namespace pt2c::fused
