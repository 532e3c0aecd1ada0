#include "compiler/codegen/SplitKernelLoops.h"

#include <optional>

#include "ir/contract/ModelContract.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace pt2c {

#define GEN_PASS_DEF_SPLITKERNELLOOPSPASS
#include "compiler/codegen/Passes.h.inc"

namespace {

// The buffer a memref value views: through subviews, reshapes and casts to a function
// argument or an allocation.
mlir::Value rootOf(mlir::Value v) {
  while (mlir::Operation *def = v.getDefiningOp()) {
    auto view = mlir::dyn_cast<mlir::ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  return v;
}

// The result position of `map` that is exactly loop `dim`, when no other result depends
// on it: then rows of the operand along that axis match iterations of the loop one to one.
std::optional<unsigned> axisOfLoop(mlir::AffineMap map, unsigned dim) {
  std::optional<unsigned> axis;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto d = mlir::dyn_cast<mlir::AffineDimExpr>(e);
    if (d && d.getPosition() == dim) {
      if (axis)
        return std::nullopt;
      axis = i;
    } else if (e.isFunctionOfDim(dim)) {
      return std::nullopt;
    }
  }
  return axis;
}

// The axis of the buffer behind `operand` whose rows match iterations of loop `loop`: the
// operand's own axis when it is the buffer itself, or when it is a subview that keeps
// that axis whole (offset 0, the buffer's full size, unit strides, no dropped dims): how
// a padded copy of an input is written into its interior.
std::optional<unsigned> bufferAxis(mlir::Value operand, mlir::AffineMap map, unsigned loop) {
  std::optional<unsigned> axis = axisOfLoop(map, loop);
  if (!axis || rootOf(operand) == operand)
    return axis;
  auto view = operand.getDefiningOp<mlir::memref::SubViewOp>();
  if (!view || rootOf(view.getSource()) != view.getSource())
    return std::nullopt;
  auto source = mlir::cast<mlir::MemRefType>(view.getSource().getType());
  if (view.getType().getRank() != source.getRank() || source.isDynamicDim(*axis))
    return std::nullopt;
  bool unitStrides = llvm::all_of(view.getStaticStrides(), [](int64_t s) { return s == 1; });
  if (!unitStrides || view.getStaticOffsets()[*axis] != 0 ||
      view.getStaticSizes()[*axis] != source.getDimSize(*axis))
    return std::nullopt;
  return axis;
}

struct SplitChoice {
  KernelSplit split;
  llvm::SmallVector<std::pair<mlir::linalg::LinalgOp, unsigned>> ops; // op, its loop
};

int64_t saturatingProduct(llvm::ArrayRef<int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values)
    p = v > 0 && p > INT64_MAX / v ? INT64_MAX : p * v;
  return p;
}

// The split of `f` (see the header), or none.
std::optional<SplitChoice> chooseSplit(mlir::func::FuncOp f) {
  if (f.isExternal() || !f.getBody().hasOneBlock())
    return std::nullopt;
  llvm::SmallVector<mlir::linalg::LinalgOp> ops;
  llvm::DenseSet<mlir::Value> written;
  for (mlir::Operation &op : f.getBody().front()) {
    if (auto linalgOp = mlir::dyn_cast<mlir::linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureBufferSemantics())
        return std::nullopt;
      for (mlir::OpOperand &init : linalgOp.getDpsInitsMutable())
        written.insert(rootOf(init.get()));
      ops.push_back(linalgOp);
    } else if (!mlir::isa<mlir::memref::AllocOp, mlir::memref::AllocaOp, mlir::memref::DeallocOp,
                          mlir::arith::ConstantOp, mlir::func::ReturnOp, mlir::ViewLikeOpInterface>(
                   op)) {
      return std::nullopt; // a copy, a call, a loop already: nothing to reason about
    }
  }
  if (ops.empty())
    return std::nullopt;
  // Bodies may load from buffers the kernel only reads (a gather), nothing else.
  for (mlir::linalg::LinalgOp op : ops) {
    mlir::WalkResult r = op->getRegion(0).walk([&](mlir::Operation *inner) {
      if (auto load = mlir::dyn_cast<mlir::memref::LoadOp>(inner))
        return written.contains(rootOf(load.getMemRef())) ? mlir::WalkResult::interrupt()
                                                          : mlir::WalkResult::advance();
      return mlir::isMemoryEffectFree(inner) ? mlir::WalkResult::advance()
                                             : mlir::WalkResult::interrupt();
    });
    if (r.wasInterrupted())
      return std::nullopt;
  }

  SplitChoice choice;
  llvm::DenseMap<mlir::Value, unsigned> axisOfBuffer;
  for (mlir::linalg::LinalgOp op : ops) {
    llvm::SmallVector<int64_t, 4> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, [](int64_t r) { return r < 0; }))
      return std::nullopt;
    auto iterators = op.getIteratorTypesArray();
    // The outermost parallel loop that every output is indexed by directly.
    std::optional<unsigned> loop;
    for (unsigned d = 0; d < ranges.size() && !loop; ++d) {
      if (ranges[d] < 2 || iterators[d] != mlir::utils::IteratorType::parallel)
        continue;
      bool fits = llvm::all_of(op.getDpsInitsMutable(), [&](mlir::OpOperand &init) {
        return bufferAxis(init.get(), op.getMatchingIndexingMap(&init), d).has_value();
      });
      if (fits)
        loop = d;
    }
    if (!loop)
      return std::nullopt;
    if (choice.split.extent == 0)
      choice.split.extent = ranges[*loop];
    if (choice.split.extent != ranges[*loop])
      return std::nullopt;
    for (mlir::OpOperand &operand : op->getOpOperands()) {
      if (!mlir::isa<mlir::MemRefType>(operand.get().getType()))
        continue;
      mlir::Value root = rootOf(operand.get());
      if (!written.contains(root))
        continue; // read-only: any access is fine
      std::optional<unsigned> axis =
          bufferAxis(operand.get(), op.getMatchingIndexingMap(&operand), *loop);
      if (!axis)
        return std::nullopt;
      auto [it, inserted] = axisOfBuffer.try_emplace(root, *axis);
      if (it->second != *axis)
        return std::nullopt;
    }
    int64_t work = saturatingProduct(ranges);
    choice.split.work = choice.split.work > INT64_MAX - work ? INT64_MAX : choice.split.work + work;
    choice.ops.push_back({op, *loop});
  }
  return choice;
}

// Appends `begin` and `end` to f and lowers its ops to loops bounded by them.
mlir::LogicalResult applySplit(mlir::func::FuncOp f, const SplitChoice &choice) {
  mlir::MLIRContext *ctx = f.getContext();
  mlir::Location loc = f.getLoc();
  unsigned n = f.getNumArguments();
  mlir::Type index = mlir::IndexType::get(ctx);
  f.insertArguments({n, n}, {index, index}, {nullptr, nullptr}, {loc, loc});
  mlir::Value begin = f.getArgument(n), end = f.getArgument(n + 1);
  mlir::IRRewriter rewriter(ctx);
  for (auto [op, loop] : choice.ops) {
    rewriter.setInsertionPoint(op);
    mlir::FailureOr<mlir::linalg::LinalgLoops> loops = mlir::linalg::linalgOpToLoops(rewriter, op);
    if (mlir::failed(loops) || loops->size() != op.getNumLoops())
      return op->emitError("internal error: could not split this kernel's loops");
    auto forOp = mlir::cast<mlir::scf::ForOp>((*loops)[loop]);
    forOp.setLowerBound(begin);
    forOp.setUpperBound(end);
    rewriter.eraseOp(op);
  }
  return mlir::success();
}

struct SplitKernelLoopsPass : impl::SplitKernelLoopsPassBase<SplitKernelLoopsPass> {
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    mlir::Builder b(module.getContext());
    llvm::SmallVector<mlir::NamedAttribute> entries;
    for (mlir::func::FuncOp f : llvm::make_early_inc_range(module.getOps<mlir::func::FuncOp>())) {
      // Kernels are what the plan calls; a function called from inside the module keeps
      // its signature.
      if (!mlir::SymbolTable::symbolKnownUseEmpty(f, module))
        continue;
      std::optional<SplitChoice> choice = chooseSplit(f);
      if (!choice)
        continue;
      if (mlir::failed(applySplit(f, *choice)))
        return signalPassFailure();
      entries.push_back(b.getNamedAttr(
          f.getSymName(), b.getDenseI64ArrayAttr({choice->split.extent, choice->split.work})));
    }
    if (!entries.empty())
      module->setAttr(kKernelSplitsAttr, b.getDictionaryAttr(entries));
  }
};

} // namespace

std::map<std::string, KernelSplit> kernelSplits(mlir::ModuleOp module) {
  std::map<std::string, KernelSplit> splits;
  auto dict = module->getAttrOfType<mlir::DictionaryAttr>(kKernelSplitsAttr);
  if (!dict)
    return splits;
  for (mlir::NamedAttribute entry : dict) {
    auto values = mlir::dyn_cast<mlir::DenseI64ArrayAttr>(entry.getValue());
    if (!values || values.size() != 2)
      continue;
    splits[entry.getName().str()] = KernelSplit{values[0], values[1]};
  }
  return splits;
}

} // namespace pt2c
