// pt2c-gpu-bound-dynamic-buffers and pt2c-gpu-load-symbols: see Passes.td. Together
// with the loop mapping's bounded grids (MapParallelLoopsToGpu.cpp) they give a kernel
// function of a dynamic graph fixed launches over fixed buffers: every buffer is a byte
// array sized at the symbols' maxima, viewed at the run's sizes, and the sizes are read
// inside the GPU kernels from the run's symbol values in device memory.
#include "compiler/codegen/cuda/DynamicBounds.h"
#include "compiler/codegen/cuda/GpuPasses.h"
#include "ir/contract/ModelContract.h"
#include "ir/contract/StorageBytes.h"
#include "ir/prim/PrimDialect.h"
#include "ir/symbolic/SymbolicIR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace pt2c {

#define GEN_PASS_DEF_BOUNDDYNAMICBUFFERSPASS
#define GEN_PASS_DEF_LOADGPUSYMBOLSPASS
#include "compiler/codegen/cuda/Passes.h.inc"

namespace {

// A kernel function of a dynamic graph that has a buffer of dynamic shape or computes a
// size from the symbols (a kernel split off one, such as a GEMM's prologue, may have
// neither: it stays as it is).
bool isDynamicKernel(mlir::func::FuncOp f) {
  if (!f->hasAttr(kSymbolNamesAttr) || f.isExternal())
    return false;
  auto dynamic = [](mlir::Type t) {
    auto type = llvm::dyn_cast<mlir::MemRefType>(t);
    return type && !type.hasStaticShape();
  };
  if (llvm::any_of(f.getArgumentTypes(), dynamic))
    return true;
  return f
      .walk([&](mlir::Operation *op) {
        return llvm::isa<prim::SymbolOp>(op) || llvm::any_of(op->getResultTypes(), dynamic)
                   ? mlir::WalkResult::interrupt()
                   : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}

class BufferBounder {
public:
  explicit BufferBounder(mlir::func::FuncOp kernel)
      : kernel(kernel), names(sym::symbolNames(kernel)), ranges(sym::symbolRanges(kernel)),
        b(kernel.getContext()) {
    for (sym::SymbolRange r : ranges)
      maxima.push_back(r.max);
  }

  mlir::LogicalResult run() {
    if (ranges.size() != names.size())
      return kernel.emitError() << "dynamic kernel without " << kSymbolRangesAttr;
    if (mlir::failed(boundArguments()) || mlir::failed(boundAllocations()))
      return mlir::failure();
    addSymbolValues();
    return mlir::success();
  }

private:
  // memref<?x64xf32> %arg -> memref<Nxi8> %arg viewed as memref<?x64xf32> at the sizes
  // pt2c.kernel_dims gives (N: the bytes at the maxima).
  mlir::LogicalResult boundArguments() {
    auto all = kernel->getAttrOfType<mlir::ArrayAttr>(kKernelDimsAttr);
    mlir::Block &entry = kernel.getBody().front();
    if (!all || all.size() != entry.getNumArguments())
      return kernel.emitError() << "dynamic kernel has " << entry.getNumArguments()
                                << " buffers after bufferization, " << kKernelDimsAttr
                                << " describes " << (all ? all.size() : 0);
    b.setInsertionPointToStart(&entry);
    for (mlir::BlockArgument arg : entry.getArguments()) {
      auto type = llvm::dyn_cast<mlir::MemRefType>(arg.getType());
      if (!type || type.hasStaticShape())
        continue;
      auto dims = sym::parseDims(llvm::cast<mlir::ArrayAttr>(all[arg.getArgNumber()]), names);
      if (!dims || dims->size() != static_cast<size_t>(type.getRank()) ||
          !type.getLayout().isIdentity())
        return kernel.emitError() << "argument " << arg.getArgNumber() << " (" << type
                                  << ") has dynamic sizes that " << kKernelDimsAttr
                                  << " does not give";
      int64_t bytes = elementBytes(type.getElementType());
      llvm::SmallVector<mlir::Value> sizes;
      for (int64_t k = 0; k < type.getRank(); ++k) {
        bytes *= std::max<int64_t>(sym::evaluate((*dims)[k], maxima), 0);
        if (type.isDynamicDim(k))
          sizes.push_back(sym::materialize(b, kernel.getLoc(), (*dims)[k], names));
      }
      llvm::SmallVector<mlir::OpOperand *> uses;
      for (mlir::OpOperand &use : arg.getUses())
        uses.push_back(&use);
      arg.setType(byteArray(bytes));
      mlir::Value view = viewAs(arg, type, sizes, kernel.getLoc());
      for (mlir::OpOperand *use : uses)
        use->set(view);
    }
    kernel.setType(mlir::FunctionType::get(kernel.getContext(), entry.getArgumentTypes(),
                                           kernel.getFunctionType().getResults()));
    return mlir::success();
  }

  // A temporary of dynamic size -> one of the bytes at the maxima, viewed.
  mlir::LogicalResult boundAllocations() {
    llvm::SmallVector<mlir::memref::AllocOp> allocs;
    kernel.walk([&](mlir::memref::AllocOp a) {
      if (!a.getType().hasStaticShape())
        allocs.push_back(a);
    });
    for (mlir::memref::AllocOp alloc : allocs) {
      mlir::MemRefType type = alloc.getType();
      int64_t bytes = elementBytes(type.getElementType());
      unsigned dynamic = 0;
      for (int64_t k = 0; k < type.getRank(); ++k) {
        int64_t size = type.getDimSize(k);
        if (type.isDynamicDim(k)) {
          std::optional<int64_t> bound = upperBound(alloc.getDynamicSizes()[dynamic++], ranges);
          if (!bound)
            return alloc.emitError() << "cannot bound the size of this dynamic GPU temporary";
          size = *bound;
        }
        if (__builtin_mul_overflow(bytes, std::max<int64_t>(size, 0), &bytes))
          return alloc.emitError() << "the GPU temporary's bound overflows";
      }
      if (!type.getLayout().isIdentity())
        return alloc.emitError() << "a dynamic GPU temporary must have an identity layout";
      b.setInsertionPoint(alloc);
      auto bytesAlloc = b.create<mlir::memref::AllocOp>(alloc.getLoc(), byteArray(bytes));
      mlir::Value view = viewAs(bytesAlloc, type, alloc.getDynamicSizes(), alloc.getLoc());
      alloc.replaceAllUsesWith(view);
      alloc.erase();
    }
    return mlir::success();
  }

  // The last argument: the run's symbol values, read by pt2c-gpu-load-symbols' loads.
  void addSymbolValues() {
    auto type = mlir::MemRefType::get({std::max<int64_t>(names.size(), 1)}, b.getI64Type());
    unsigned position = kernel.getNumArguments();
    kernel.insertArgument(position, type, b.getDictionaryAttr({}), kernel.getLoc());
    kernel.setArgAttr(position, kSymbolValuesAttr, b.getUnitAttr());
  }

  mlir::MemRefType byteArray(int64_t bytes) {
    return mlir::MemRefType::get({std::max<int64_t>(bytes, 1)}, b.getI8Type());
  }

  mlir::Value viewAs(mlir::Value bytes, mlir::MemRefType type, mlir::ValueRange sizes,
                     mlir::Location loc) {
    mlir::Value zero = b.create<mlir::arith::ConstantIndexOp>(loc, 0);
    return b.create<mlir::memref::ViewOp>(loc, type, bytes, zero, sizes);
  }

  mlir::func::FuncOp kernel;
  std::vector<std::string> names;
  std::vector<sym::SymbolRange> ranges;
  std::vector<int64_t> maxima;
  mlir::OpBuilder b;
};

struct BoundDynamicBuffersPass : impl::BoundDynamicBuffersPassBase<BoundDynamicBuffersPass> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<mlir::func::FuncOp>())
      if (isDynamicKernel(kernel) && mlir::failed(BufferBounder(kernel).run()))
        return signalPassFailure();
  }
};

struct LoadGpuSymbolsPass : impl::LoadGpuSymbolsPassBase<LoadGpuSymbolsPass> {
  void runOnOperation() override {
    mlir::func::FuncOp kernel = getOperation();
    mlir::Value values;
    for (unsigned i = 0; !kernel.isExternal() && i < kernel.getNumArguments(); ++i)
      if (kernel.getArgAttr(i, kSymbolValuesAttr))
        values = kernel.getArgument(i);
    mlir::WalkResult walked = kernel.walk([&](mlir::gpu::LaunchOp launch) {
      mlir::WalkResult inner = launch.getBody().walk([&](prim::SymbolOp symbol) {
        if (!values) {
          symbol.emitError() << "a GPU kernel reads a dynamic size, but its kernel function "
                                "has no symbol values (run pt2c-gpu-bound-dynamic-buffers)";
          return mlir::WalkResult::interrupt();
        }
        mlir::OpBuilder b(symbol);
        mlir::Value at = b.create<mlir::arith::ConstantIndexOp>(symbol.getLoc(), symbol.getIndex());
        mlir::Value value = b.create<mlir::memref::LoadOp>(symbol.getLoc(), values, at);
        symbol.replaceAllUsesWith(
            b.create<mlir::arith::IndexCastOp>(symbol.getLoc(), b.getIndexType(), value)
                .getResult());
        symbol.erase();
        return mlir::WalkResult::advance();
      });
      return inner;
    });
    if (walked.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

} // namespace pt2c
