#include "compiler/codegen/DynamicKernelAbi.h"

#include "ir/contract/ModelContract.h"
#include "ir/prim/PrimDialect.h"
#include "ir/symbolic/SymbolicIR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace pt2c {

#define GEN_PASS_DEF_BINDKERNELSYMBOLSPASS
#define GEN_PASS_DEF_DYNAMICKERNELABIPASS
#define GEN_PASS_DEF_COPYRETURNEDARGUMENTSPASS
#include "compiler/codegen/Passes.h.inc"

namespace {

// Symbol `position`'s value, as an index, from a kernel's symbol-values argument.
mlir::Value loadSymbol(mlir::OpBuilder &b, mlir::Location loc, mlir::Value symbolValues,
                       int64_t position) {
  mlir::Value at = b.create<mlir::arith::ConstantIndexOp>(loc, position);
  mlir::Value value = b.create<mlir::memref::LoadOp>(loc, symbolValues, at);
  return b.create<mlir::arith::IndexCastOp>(loc, b.getIndexType(), value);
}

// The kernels of dynamic models: those pt2c-form-kernels gave symbol names.
llvm::SmallVector<mlir::func::FuncOp> dynamicKernels(mlir::ModuleOp module) {
  llvm::SmallVector<mlir::func::FuncOp> kernels;
  for (auto f : module.getOps<mlir::func::FuncOp>())
    if (f->hasAttr(kSymbolNamesAttr) && !f.isExternal())
      kernels.push_back(f);
  return kernels;
}

struct BindKernelSymbolsPass : impl::BindKernelSymbolsPassBase<BindKernelSymbolsPass> {
  void runOnOperation() override {
    for (mlir::func::FuncOp kernel : dynamicKernels(getOperation())) {
      int64_t count = std::max<size_t>(sym::symbolNames(kernel).size(), 1);
      mlir::MLIRContext *ctx = kernel.getContext();
      auto type = mlir::MemRefType::get({count}, mlir::IntegerType::get(ctx, 64));
      kernel.insertArgument(0, type, {}, kernel.getLoc());
      mlir::Value values = kernel.getArgument(0);
      kernel.walk([&](prim::SymbolOp op) {
        mlir::OpBuilder b(op);
        op.replaceAllUsesWith(loadSymbol(b, op.getLoc(), values, op.getIndex()));
        op.erase();
      });
    }
  }
};

struct DynamicKernelAbiPass : impl::DynamicKernelAbiPassBase<DynamicKernelAbiPass> {
  void runOnOperation() override {
    for (mlir::func::FuncOp kernel : dynamicKernels(getOperation()))
      if (mlir::failed(rewrite(kernel)))
        return signalPassFailure();
  }

  mlir::LogicalResult rewrite(mlir::func::FuncOp kernel) {
    auto all = kernel->getAttrOfType<mlir::ArrayAttr>(kKernelDimsAttr);
    std::vector<std::string> names = sym::symbolNames(kernel);
    // Argument 0 is the symbol values; then the kernel's arguments and its results
    // (out-params since bufferization), in pt2c.kernel_dims order.
    if (!all || kernel.getNumArguments() != all.size() + 1)
      return kernel.emitError() << "dynamic kernel has " << kernel.getNumArguments()
                                << " arguments after bufferization, pt2c.kernel_dims describes "
                                << (all ? all.size() : 0) << " plus the symbol values";
    mlir::Block &entry = kernel.getBody().front();
    mlir::OpBuilder b(&entry, entry.begin());
    mlir::Location loc = kernel.getLoc();
    mlir::Value symbolValues = kernel.getArgument(0);
    auto ptrType = mlir::LLVM::LLVMPointerType::get(kernel.getContext());
    for (unsigned i = 1; i < kernel.getNumArguments(); ++i) {
      auto type = llvm::dyn_cast<mlir::MemRefType>(kernel.getArgument(i).getType());
      if (!type || type.hasStaticShape())
        continue;
      auto dims = sym::parseDims(llvm::cast<mlir::ArrayAttr>(all[i - 1]), names);
      if (!dims || dims->size() != static_cast<size_t>(type.getRank()))
        return kernel.emitError() << "argument " << i << " has dynamic sizes that "
                                  << kKernelDimsAttr << " does not give";
      mlir::BlockArgument arg = kernel.getArgument(i);
      llvm::SmallVector<mlir::OpOperand *> uses;
      for (mlir::OpOperand &use : arg.getUses())
        uses.push_back(&use);
      arg.setType(ptrType);
      mlir::Value memref = rebuild(b, loc, arg, type, *dims, symbolValues);
      for (mlir::OpOperand *use : uses)
        use->set(memref);
    }
    llvm::SmallVector<mlir::Type> inputs(entry.getArgumentTypes());
    kernel.setType(mlir::FunctionType::get(kernel.getContext(), inputs,
                                           kernel.getFunctionType().getResults()));
    return mlir::success();
  }

  // A memref descriptor around a bare pointer argument: offset 0, the sizes from
  // the symbols, row-major strides.
  static mlir::Value rebuild(mlir::OpBuilder &b, mlir::Location loc, mlir::Value pointer,
                             mlir::MemRefType type, const std::vector<sym::Expr> &dims,
                             mlir::Value symbolValues) {
    mlir::MLIRContext *ctx = b.getContext();
    mlir::Type ptrType = pointer.getType();
    auto i64 = b.getI64Type();
    int64_t rank = type.getRank();
    auto array = mlir::LLVM::LLVMArrayType::get(i64, rank);
    auto descriptorType =
        mlir::LLVM::LLVMStructType::getLiteral(ctx, {ptrType, ptrType, i64, array, array});
    auto toI64 = [&](mlir::Value index) {
      return b.create<mlir::arith::IndexCastOp>(loc, i64, index).getResult();
    };
    // Sizes from the symbols (prim.symbol is gone by now: read the values directly).
    auto emit = [&](const sym::Expr &e) {
      return sym::materialize(
          b, loc, e, [&](int64_t position) { return loadSymbol(b, loc, symbolValues, position); });
    };
    llvm::SmallVector<mlir::Value> sizes;
    for (int64_t k = 0; k < rank; ++k)
      sizes.push_back(
          type.isDynamicDim(k)
              ? toI64(emit(dims[k]))
              : b.create<mlir::arith::ConstantIntOp>(loc, type.getDimSize(k), 64).getResult());
    mlir::Value d = b.create<mlir::LLVM::UndefOp>(loc, descriptorType);
    d = b.create<mlir::LLVM::InsertValueOp>(loc, d, pointer, llvm::ArrayRef<int64_t>{0});
    d = b.create<mlir::LLVM::InsertValueOp>(loc, d, pointer, llvm::ArrayRef<int64_t>{1});
    d = b.create<mlir::LLVM::InsertValueOp>(
        loc, d, b.create<mlir::arith::ConstantIntOp>(loc, 0, 64), llvm::ArrayRef<int64_t>{2});
    mlir::Value stride = b.create<mlir::arith::ConstantIntOp>(loc, 1, 64);
    for (int64_t k = rank - 1; k >= 0; --k) {
      d = b.create<mlir::LLVM::InsertValueOp>(loc, d, sizes[k], llvm::ArrayRef<int64_t>{3, k});
      d = b.create<mlir::LLVM::InsertValueOp>(loc, d, stride, llvm::ArrayRef<int64_t>{4, k});
      if (k > 0)
        stride = b.create<mlir::arith::MulIOp>(loc, stride, sizes[k]);
    }
    return b.create<mlir::UnrealizedConversionCastOp>(loc, type, d).getResult(0);
  }
};

// A kernel that returns one of its arguments unchanged (a broadcast or convert that
// canonicalization found to be the identity, frequent with dynamic shapes) returns a
// copy instead: buffer-results-to-out-params needs every result to be a new buffer (it
// crashes on a returned argument), and the plan gave the result its own buffer anyway.
struct CopyReturnedArgumentsPass : impl::CopyReturnedArgumentsPassBase<CopyReturnedArgumentsPass> {
  void runOnOperation() override {
    getOperation().walk([](mlir::func::ReturnOp ret) {
      for (mlir::OpOperand &operand : ret->getOpOperands()) {
        auto arg = llvm::dyn_cast<mlir::BlockArgument>(operand.get());
        auto type = arg ? llvm::dyn_cast<mlir::RankedTensorType>(arg.getType()) : nullptr;
        if (!type)
          continue;
        mlir::OpBuilder b(ret);
        llvm::SmallVector<mlir::Value> sizes;
        for (int64_t k = 0; k < type.getRank(); ++k)
          if (type.isDynamicDim(k))
            sizes.push_back(b.create<mlir::tensor::DimOp>(ret.getLoc(), arg, k));
        mlir::Value empty = b.create<mlir::tensor::EmptyOp>(ret.getLoc(), type.getShape(),
                                                            type.getElementType(), sizes);
        operand.set(b.create<mlir::linalg::CopyOp>(ret.getLoc(), arg, empty).getResult(0));
      }
    });
  }
};

} // namespace

} // namespace pt2c
