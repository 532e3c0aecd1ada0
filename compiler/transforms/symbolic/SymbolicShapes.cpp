#include "compiler/transforms/symbolic/SymbolicShapes.h"

#include "ir/contract/ModelContract.h"
#include "ir/prim/DataDependentOps.h"
#include "ir/prim/PrimDialect.h"
#include "ir/symbolic/SymbolicIR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

namespace pt2c {

#define GEN_PASS_DEF_SYMBOLICSHAPESPASS
#include "compiler/transforms/Passes.h.inc"

namespace {

using sym::Expr;
using Dims = std::vector<Expr>;

class ShapeSolver {
public:
  explicit ShapeSolver(mlir::func::FuncOp func) : func(func), names(sym::symbolNames(func)) {}

  mlir::LogicalResult run() {
    for (mlir::BlockArgument arg : func.getArguments())
      if (mlir::failed(bindArgument(arg)))
        return mlir::failure();
    for (mlir::Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
      if (mlir::failed(visit(&op)))
        return mlir::failure();
    }
    return mlir::success();
  }

private:
  mlir::LogicalResult bindArgument(mlir::BlockArgument arg) {
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(arg.getType());
    if (!type)
      return mlir::success();
    if (type.hasStaticShape()) {
      dims[arg] = staticDims(type);
      return mlir::success();
    }
    auto attr = func.getArgAttrOfType<mlir::ArrayAttr>(arg.getArgNumber(), kDimsAttr);
    auto parsed = attr ? sym::parseDims(attr, names) : std::nullopt;
    if (!parsed || parsed->size() != static_cast<size_t>(type.getRank()))
      return func.emitError() << "argument " << arg.getArgNumber()
                              << " has dynamic dims but no pt2c.dims naming them";
    dims[arg] = *parsed;
    return mlir::success();
  }

  static Dims staticDims(mlir::RankedTensorType type) {
    Dims d;
    for (int64_t s : type.getShape())
      d.push_back(mlir::ShapedType::isDynamic(s) ? nullptr : sym::constant(s));
    return d;
  }

  // The expression of an index value (prim.symbol, arith on indices, prim.dim_size).
  Expr indexExpr(mlir::Value v) {
    auto it = indices.find(v);
    return it == indices.end() ? nullptr : it->second;
  }

  mlir::LogicalResult visit(mlir::Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    if (op->getNumResults() == 1 && op->getResult(0).getType().isIndex())
      return visitIndex(op);
    if (llvm::isa<mlir::func::ReturnOp>(op))
      return mlir::success();
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      auto type = llvm::dyn_cast<mlir::RankedTensorType>(result.getType());
      if (!type)
        continue;
      Dims d = staticDims(type);
      if (!type.hasStaticShape()) {
        std::optional<Dims> derived = deriveDims(op, i);
        if (!derived)
          return op->emitError() << name
                                 << " has a result size that follows the model's "
                                    "dynamic dimensions in a way pt2c cannot compute yet";
        for (int64_t k = 0; k < type.getRank(); ++k)
          if (type.isDynamicDim(k)) {
            if (k >= static_cast<int64_t>(derived->size()) || !(*derived)[k])
              return op->emitError() << name << ": the size of result dim " << k
                                     << " is not known in terms of the dynamic dimensions";
            if (!sym::isMonotone((*derived)[k]))
              return op->emitError() << name << ": result dim " << k << " has size "
                                     << sym::print((*derived)[k], names)
                                     << ", which may shrink as a dynamic dimension grows; "
                                        "pt2c plans memory at the dimensions' maxima";
            d[k] = (*derived)[k];
          }
      }
      dims[result] = d;
    }
    annotate(op);
    return mlir::success();
  }

  mlir::LogicalResult visitIndex(mlir::Operation *op) {
    mlir::Value result = op->getResult(0);
    Expr e;
    if (auto c = llvm::dyn_cast<mlir::arith::ConstantIndexOp>(op)) {
      e = sym::constant(c.value());
    } else if (auto s = llvm::dyn_cast<prim::SymbolOp>(op)) {
      e = sym::symbol(s.getIndex());
    } else if (auto d = llvm::dyn_cast<prim::DimSizeOp>(op)) {
      auto it = dims.find(d.getOperand());
      int64_t k = d.getDimensionAttr().getInt();
      if (it != dims.end() && k < static_cast<int64_t>(it->second.size()))
        e = it->second[k];
      if (e) {
        // Kernels recompute the size from the symbols instead of reading a tensor's dim.
        mlir::OpBuilder b(op);
        mlir::Value replacement = sym::materialize(b, op->getLoc(), e, names);
        result.replaceAllUsesWith(replacement);
        op->erase();
        return bindIndexes(replacement.getDefiningOp());
      }
    } else if (op->getNumOperands() == 2) {
      Expr l = indexExpr(op->getOperand(0)), r = indexExpr(op->getOperand(1));
      if (llvm::isa<mlir::arith::AddIOp>(op))
        e = sym::add(l, r);
      else if (llvm::isa<mlir::arith::SubIOp>(op))
        e = sym::sub(l, r);
      else if (llvm::isa<mlir::arith::MulIOp>(op))
        e = sym::mul(l, r);
      else if (llvm::isa<mlir::arith::FloorDivSIOp, mlir::arith::DivSIOp, mlir::arith::DivUIOp>(op))
        e = sym::floorDiv(l, r); // sizes are non-negative: truncation is the floor
      else if (llvm::isa<mlir::arith::CeilDivSIOp, mlir::arith::CeilDivUIOp>(op))
        e = sym::ceilDiv(l, r);
      else if (llvm::isa<mlir::arith::MinSIOp, mlir::arith::MinUIOp>(op))
        e = sym::min(l, r);
    }
    if (!e)
      return op->emitError() << "pt2c cannot express this size computation (" << op->getName()
                             << ") in terms of the dynamic dimensions";
    indices[result] = e;
    return mlir::success();
  }

  // Records the expressions of freshly materialized index ops (operands first).
  mlir::LogicalResult bindIndexes(mlir::Operation *op) {
    if (!op || indices.count(op->getResult(0)))
      return mlir::success();
    for (mlir::Value v : op->getOperands())
      if (mlir::failed(bindIndexes(v.getDefiningOp())))
        return mlir::failure();
    return visitIndex(op);
  }

  const Dims *operandDims(mlir::Value v) {
    auto it = dims.find(v);
    return it == dims.end() ? nullptr : &it->second;
  }

  // Result dims from explicit index operands, one per dynamic dim (in order).
  std::optional<Dims> fromSizes(mlir::RankedTensorType type, mlir::ValueRange sizes) {
    Dims d = staticDims(type);
    size_t next = 0;
    for (int64_t k = 0; k < type.getRank(); ++k)
      if (type.isDynamicDim(k)) {
        if (next >= sizes.size())
          return std::nullopt;
        d[k] = indexExpr(sizes[next++]);
      }
    return d;
  }

  std::optional<Dims> deriveDims(mlir::Operation *op, unsigned resultIndex) {
    auto type = llvm::cast<mlir::RankedTensorType>(op->getResult(resultIndex).getType());
    if (auto b = llvm::dyn_cast<prim::BroadcastInDimOp>(op))
      return fromSizes(type, b.getDynamicSizes());
    if (auto r = llvm::dyn_cast<prim::ReshapeOp>(op))
      return fromSizes(type, r.getDynamicSizes());
    if (auto i = llvm::dyn_cast<prim::IotaOp>(op))
      return fromSizes(type, i.getDynamicSizes());
    if (auto n = llvm::dyn_cast<prim::NonzeroOp>(op)) {
      // The row count is the data-dependent symbol the op binds.
      auto it = llvm::find(names, n.getSymbol().str());
      if (it == names.end())
        return std::nullopt;
      return Dims{sym::symbol(it - names.begin()), sym::constant(type.getDimSize(1))};
    }
    if (auto k = llvm::dyn_cast<prim::NmsKeepOp>(op)) {
      // The order and the mask have one entry per box.
      const Dims *od = operandDims(k.getScores());
      return od ? std::optional<Dims>(*od) : std::nullopt;
    }
    if (op->hasTrait<mlir::OpTrait::Elementwise>() ||
        op->hasTrait<mlir::OpTrait::SameOperandsAndResultShape>()) {
      // Operands and result share a shape (prim.argsort too): any operand's dims will do.
      Dims d = staticDims(type);
      for (mlir::Value v : op->getOperands())
        if (const Dims *od = operandDims(v); od && od->size() == d.size())
          for (size_t k = 0; k < d.size(); ++k)
            if (!d[k])
              d[k] = (*od)[k];
      return d;
    }
    if (auto t = llvm::dyn_cast<prim::TransposeOp>(op)) {
      const Dims *od = operandDims(t.getOperand());
      if (!od)
        return std::nullopt;
      Dims d;
      for (int64_t p : t.getPermutation())
        d.push_back((*od)[p]);
      return d;
    }
    if (auto r = llvm::dyn_cast<prim::ReduceOp>(op)) {
      const Dims *od = operandDims(r.getOperand());
      if (!od)
        return std::nullopt;
      Dims d;
      for (int64_t k = 0; k < static_cast<int64_t>(od->size()); ++k)
        if (!llvm::is_contained(r.getDimensions(), k))
          d.push_back((*od)[k]);
      return d;
    }
    if (auto g = llvm::dyn_cast<prim::DotGeneralOp>(op)) {
      const Dims *l = operandDims(g.getLhs()), *r = operandDims(g.getRhs());
      if (!l || !r)
        return std::nullopt;
      Dims d;
      for (int64_t k : g.getLhsBatchingDimensions())
        d.push_back((*l)[k]);
      for (int64_t k = 0; k < static_cast<int64_t>(l->size()); ++k)
        if (!llvm::is_contained(g.getLhsBatchingDimensions(), k) &&
            !llvm::is_contained(g.getLhsContractingDimensions(), k))
          d.push_back((*l)[k]);
      for (int64_t k = 0; k < static_cast<int64_t>(r->size()); ++k)
        if (!llvm::is_contained(g.getRhsBatchingDimensions(), k) &&
            !llvm::is_contained(g.getRhsContractingDimensions(), k))
          d.push_back((*r)[k]);
      return d;
    }
    if (auto g = llvm::dyn_cast<prim::GatherOp>(op)) {
      const Dims *o = operandDims(g.getOperand()), *ix = operandDims(g.getIndices());
      if (!o || !ix)
        return std::nullopt;
      int64_t axis = g.getAxis(), batch = g.getBatchDims();
      Dims d(o->begin(), o->begin() + axis);
      d.insert(d.end(), ix->begin() + batch, ix->end());
      d.insert(d.end(), o->begin() + axis + 1, o->end());
      return d;
    }
    if (auto c = llvm::dyn_cast<prim::ConcatenateOp>(op)) {
      int64_t axis = c.getDimension();
      const Dims *first = operandDims(c.getInputs()[0]);
      if (!first)
        return std::nullopt;
      Dims d = *first;
      d[axis] = sym::constant(0);
      for (mlir::Value v : c.getInputs()) {
        const Dims *od = operandDims(v);
        if (!od)
          return std::nullopt;
        d[axis] = sym::add(d[axis], (*od)[axis]);
      }
      return d;
    }
    if (auto p = llvm::dyn_cast<prim::PadOp>(op)) {
      const Dims *od = operandDims(p.getOperand());
      if (!od)
        return std::nullopt;
      Dims d;
      for (size_t k = 0; k < od->size(); ++k)
        d.push_back(sym::add((*od)[k],
                             sym::constant(p.getEdgePaddingLow()[k] + p.getEdgePaddingHigh()[k])));
      return d;
    }
    // Windowed ops and slices keep a dynamic dim they do not touch (the batch of a
    // convolution, a slice that keeps a whole dim).
    if (llvm::isa<prim::ConvolutionOp, prim::ReduceWindowOp, prim::SliceOp>(op)) {
      const Dims *od = operandDims(op->getOperand(0));
      if (!od)
        return std::nullopt;
      Dims d = staticDims(type);
      for (int64_t k = 0; k < type.getRank(); ++k)
        if (type.isDynamicDim(k) && k < static_cast<int64_t>(od->size()) && untouched(op, k))
          d[k] = (*od)[k];
      return d;
    }
    return std::nullopt;
  }

  // Whether dim k of a windowed op or slice passes its operand's dim through unchanged.
  static bool untouched(mlir::Operation *op, int64_t k) {
    if (auto s = llvm::dyn_cast<prim::SliceOp>(op))
      return s.getStartIndices()[k] == 0 && s.getStrides()[k] == 1 &&
             mlir::ShapedType::isDynamic(
                 llvm::cast<mlir::RankedTensorType>(s.getOperand().getType()).getDimSize(k));
    if (auto w = llvm::dyn_cast<prim::ReduceWindowOp>(op))
      return w.getWindowDimensions()[k] == 1 && w.getWindowStrides()[k] == 1 &&
             w.getPaddingLow()[k] == 0 && w.getPaddingHigh()[k] == 0;
    return k == 0; // convolution: the batch dim
  }

  void annotate(mlir::Operation *op) {
    llvm::SmallVector<mlir::Attribute> all;
    bool dynamic = false;
    mlir::Builder b(op->getContext());
    for (mlir::Value result : op->getResults()) {
      auto it = dims.find(result);
      if (it == dims.end()) {
        all.push_back(b.getArrayAttr({}));
        continue;
      }
      dynamic |= !llvm::cast<mlir::RankedTensorType>(result.getType()).hasStaticShape();
      all.push_back(sym::dimsAttr(b, it->second, names));
    }
    if (dynamic)
      op->setAttr(kResultDimsAttr, b.getArrayAttr(all));
  }

  mlir::func::FuncOp func;
  std::vector<std::string> names;
  llvm::DenseMap<mlir::Value, Dims> dims;
  llvm::DenseMap<mlir::Value, Expr> indices;
};

// A data-dependent size whose prim.nonzero was erased as dead code (the model computes
// it, then returns nothing that depends on it: Mask R-CNN's mask branch when only the
// boxes are returned) sizes no live value either, since every value of that size follows
// from the nonzero. It leaves the symbol list, with the clamps of it: the run could
// never bind it.
void dropDeadSymbols(mlir::func::FuncOp func) {
  auto symbols = func->getAttrOfType<mlir::ArrayAttr>(kSymbolsAttr);
  llvm::StringSet<> computed;
  func.walk([&](prim::NonzeroOp op) { computed.insert(op.getSymbol()); });
  llvm::SmallVector<mlir::Attribute> kept;
  std::vector<std::string> keptNames;
  for (mlir::Attribute a : symbols) {
    auto d = llvm::cast<mlir::DictionaryAttr>(a);
    std::string name = d.getAs<mlir::StringAttr>("name").str();
    if (d.get("produced") && !computed.contains(name))
      continue;
    auto derived = d.getAs<mlir::StringAttr>("derived");
    if (derived && !sym::parse(derived.getValue(), keptNames))
      continue;
    kept.push_back(a);
    keptNames.push_back(name);
  }
  if (kept.size() == symbols.size())
    return;
  func->setAttr(kSymbolsAttr, mlir::ArrayAttr::get(func.getContext(), kept));
  func.walk([&](prim::SymbolOp op) { // renumbered: prim.symbol holds its place in the list
    auto at = llvm::find(keptNames, op.getName().str());
    if (at != keptNames.end())
      op.setIndex(at - keptNames.begin());
  });
}

struct SymbolicShapesPass : impl::SymbolicShapesPassBase<SymbolicShapesPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<mlir::func::FuncOp>())
      if (func->hasAttr(kSymbolsAttr))
        dropDeadSymbols(func);
    for (auto func : getOperation().getOps<mlir::func::FuncOp>())
      if (func->hasAttr(kSymbolsAttr) && mlir::failed(ShapeSolver(func).run()))
        return signalPassFailure();
  }
};

} // namespace

} // namespace pt2c
