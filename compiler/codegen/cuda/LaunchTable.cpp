#include "compiler/codegen/cuda/LaunchTable.h"

#include "ir/contract/ModelContract.h"
#include "ir/contract/StorageBytes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

namespace pt2c {
namespace {

mlir::FailureOr<uint32_t> constantSize(mlir::gpu::LaunchFuncOp launch, mlir::Value v) {
  llvm::APInt value;
  if (!mlir::matchPattern(v, mlir::m_ConstantInt(&value)) || value.isNegative() ||
      value.getZExtValue() > UINT32_MAX)
    return launch.emitError() << "the GPU launch configuration must be a constant";
  return static_cast<uint32_t>(value.getZExtValue());
}

mlir::FailureOr<uint64_t> allocationBytes(mlir::memref::AllocOp alloc) {
  mlir::MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrFloat())
    return alloc.emitError() << "GPU temporaries must be static, dense buffers, got " << type;
  return storageBytes(type);
}

class Reader {
public:
  explicit Reader(mlir::func::FuncOp func) : func(func) {}

  mlir::FailureOr<KernelLaunches> read() {
    for (mlir::Operation &op : func.getBody().front()) {
      if (auto alloc = llvm::dyn_cast<mlir::memref::AllocOp>(op)) {
        auto bytes = allocationBytes(alloc);
        if (mlir::failed(bytes))
          return mlir::failure();
        temporaries[alloc.getResult()] = result.temporaryBytes.size();
        result.temporaryBytes.push_back(*bytes);
      } else if (auto launch = llvm::dyn_cast<mlir::gpu::LaunchFuncOp>(op)) {
        if (mlir::failed(addLaunch(launch)))
          return mlir::failure();
      } else if (!llvm::isa<mlir::arith::ConstantOp, mlir::memref::DeallocOp, mlir::func::ReturnOp>(
                     op)) {
        return op.emitError() << "GPU lowering left this op on the host: " << op.getName();
      }
    }
    return result;
  }

private:
  mlir::LogicalResult addLaunch(mlir::gpu::LaunchFuncOp launch) {
    GpuLaunch g;
    g.kernel = launch.getKernelName().str();
    mlir::gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    mlir::gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    mlir::Value sizes[] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
    for (int i = 0; i < 6; ++i) {
      auto size = constantSize(launch, sizes[i]);
      if (mlir::failed(size))
        return mlir::failure();
      (i < 3 ? g.grid[i] : g.block[i - 3]) = *size;
    }
    if (mlir::Value shared = launch.getDynamicSharedMemorySize()) {
      auto bytes = constantSize(launch, shared);
      if (mlir::failed(bytes))
        return mlir::failure();
      g.sharedBytes = *bytes;
    }
    if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() || launch.hasClusterSize())
      return launch.emitError() << "asynchronous or clustered GPU launches are not supported";
    for (mlir::Value arg : launch.getKernelOperands()) {
      auto blockArg = llvm::dyn_cast<mlir::BlockArgument>(arg);
      if (blockArg && blockArg.getOwner() == &func.getBody().front() &&
          func.getArgAttr(blockArg.getArgNumber(), kSymbolValuesAttr)) {
        g.args.push_back({LaunchArg::kSymbols, 0});
      } else if (blockArg && blockArg.getOwner() == &func.getBody().front()) {
        g.args.push_back({LaunchArg::kBuffer, blockArg.getArgNumber()});
      } else if (temporaries.count(arg)) {
        g.args.push_back({LaunchArg::kTemporary, temporaries.lookup(arg)});
      } else {
        return launch.emitError() << "a GPU kernel parameter must be a buffer of the kernel "
                                     "function or one of its temporaries, got "
                                  << arg.getType();
      }
    }
    result.launches.push_back(std::move(g));
    return mlir::success();
  }

  mlir::func::FuncOp func;
  KernelLaunches result;
  llvm::DenseMap<mlir::Value, unsigned> temporaries;
};

} // namespace

mlir::FailureOr<LaunchTable> readLaunchTable(mlir::ModuleOp lowered) {
  LaunchTable table;
  for (auto func : lowered.getOps<mlir::func::FuncOp>()) {
    if (func.isExternal())
      continue;
    auto launches = Reader(func).read();
    if (mlir::failed(launches))
      return mlir::failure();
    table[func.getName().str()] = std::move(*launches);
  }
  return table;
}

} // namespace pt2c
