#include "ir/symbolic/SymbolicIR.h"

#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace pt2c::sym {

std::vector<std::string> symbolNames(mlir::Operation *op) {
  std::vector<std::string> names;
  auto func = llvm::isa<mlir::func::FuncOp>(op) ? llvm::cast<mlir::func::FuncOp>(op)
                                                : op->getParentOfType<mlir::func::FuncOp>();
  if (!func)
    return names;
  if (auto symbols = func->getAttrOfType<mlir::ArrayAttr>(kSymbolsAttr)) {
    for (mlir::Attribute a : symbols)
      if (auto d = llvm::dyn_cast<mlir::DictionaryAttr>(a))
        if (auto name = d.getAs<mlir::StringAttr>("name"))
          names.push_back(name.str());
  } else if (auto list = func->getAttrOfType<mlir::ArrayAttr>(kSymbolNamesAttr)) {
    for (mlir::Attribute a : list)
      if (auto name = llvm::dyn_cast<mlir::StringAttr>(a))
        names.push_back(name.str());
  }
  return names;
}

std::vector<SymbolRange> symbolRanges(mlir::Operation *op) {
  std::vector<SymbolRange> ranges;
  auto func = llvm::isa<mlir::func::FuncOp>(op) ? llvm::cast<mlir::func::FuncOp>(op)
                                                : op->getParentOfType<mlir::func::FuncOp>();
  if (!func)
    return ranges;
  if (auto symbols = func->getAttrOfType<mlir::ArrayAttr>(kSymbolsAttr)) {
    for (mlir::Attribute a : symbols) {
      auto d = llvm::dyn_cast<mlir::DictionaryAttr>(a);
      auto min = d ? d.getAs<mlir::IntegerAttr>("min") : nullptr;
      auto max = d ? d.getAs<mlir::IntegerAttr>("max") : nullptr;
      if (min && max)
        ranges.push_back({min.getInt(), max.getInt()});
    }
  } else if (auto list = func->getAttrOfType<mlir::DenseI64ArrayAttr>(kSymbolRangesAttr)) {
    for (size_t i = 0; i + 1 < list.size(); i += 2)
      ranges.push_back({list[i], list[i + 1]});
  }
  return ranges;
}

std::optional<Expr> symbolicArgument(mlir::Operation *op, llvm::StringRef arg, int position) {
  mlir::Attribute attr = op->getAttr((kSymArgPrefix + arg).str());
  if (!attr)
    return std::nullopt;
  mlir::StringAttr text;
  if (position < 0) {
    text = llvm::dyn_cast<mlir::StringAttr>(attr);
  } else if (auto list = llvm::dyn_cast<mlir::ArrayAttr>(attr)) {
    if (position < static_cast<int>(list.size()))
      text = llvm::dyn_cast<mlir::StringAttr>(list[position]);
  }
  if (!text || text.getValue().empty())
    return std::nullopt;
  return parse(text.getValue(), symbolNames(op));
}

std::optional<std::vector<Expr>> resultDims(mlir::Operation *op, unsigned i) {
  auto all = op->getAttrOfType<mlir::ArrayAttr>(kResultDimsAttr);
  if (!all || i >= all.size())
    return std::nullopt;
  auto dims = llvm::dyn_cast<mlir::ArrayAttr>(all[i]);
  if (!dims)
    return std::nullopt;
  return parseDims(dims, symbolNames(op));
}

mlir::ArrayAttr dimsAttrOf(mlir::Value v) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(v.getType());
  if (!type || type.hasStaticShape())
    return nullptr;
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
    auto func = llvm::dyn_cast<mlir::func::FuncOp>(arg.getOwner()->getParentOp());
    return func ? func.getArgAttrOfType<mlir::ArrayAttr>(arg.getArgNumber(), kDimsAttr) : nullptr;
  }
  mlir::Operation *op = v.getDefiningOp();
  auto all = op->getAttrOfType<mlir::ArrayAttr>(kResultDimsAttr);
  unsigned i = llvm::cast<mlir::OpResult>(v).getResultNumber();
  if (!all || i >= all.size())
    return nullptr;
  return llvm::dyn_cast<mlir::ArrayAttr>(all[i]);
}

mlir::Value materialize(mlir::OpBuilder &b, mlir::Location loc, const Expr &e,
                        llvm::function_ref<mlir::Value(int64_t)> symbolValue) {
  switch (e->kind) {
  case Kind::Constant:
    return b.create<mlir::arith::ConstantIndexOp>(loc, e->value);
  case Kind::Symbol:
    return symbolValue(e->value);
  default:
    break;
  }
  mlir::Value l = materialize(b, loc, e->lhs, symbolValue);
  mlir::Value r = materialize(b, loc, e->rhs, symbolValue);
  switch (e->kind) {
  case Kind::Add:
    return b.create<mlir::arith::AddIOp>(loc, l, r);
  case Kind::Sub:
    return b.create<mlir::arith::SubIOp>(loc, l, r);
  case Kind::Mul:
    return b.create<mlir::arith::MulIOp>(loc, l, r);
  case Kind::FloorDiv:
    return b.create<mlir::arith::FloorDivSIOp>(loc, l, r);
  case Kind::Min:
    return b.create<mlir::arith::MinSIOp>(loc, l, r);
  default:
    return b.create<mlir::arith::CeilDivSIOp>(loc, l, r);
  }
}

mlir::Value materialize(mlir::OpBuilder &b, mlir::Location loc, const Expr &e,
                        llvm::ArrayRef<std::string> names) {
  return materialize(b, loc, e, [&](int64_t position) -> mlir::Value {
    std::string name = position < static_cast<int64_t>(names.size()) ? names[position] : "?";
    return b.create<prim::SymbolOp>(loc, b.getIndexType(), b.getStringAttr(name),
                                    b.getI64IntegerAttr(position));
  });
}

mlir::ArrayAttr dimsAttr(mlir::Builder &b, llvm::ArrayRef<Expr> dims,
                         llvm::ArrayRef<std::string> names) {
  llvm::SmallVector<mlir::Attribute> entries;
  for (const Expr &d : dims)
    entries.push_back(b.getStringAttr(print(d, names)));
  return b.getArrayAttr(entries);
}

std::optional<std::vector<Expr>> parseDims(mlir::ArrayAttr attr,
                                           llvm::ArrayRef<std::string> names) {
  std::vector<Expr> dims;
  for (mlir::Attribute a : attr) {
    auto text = llvm::dyn_cast<mlir::StringAttr>(a);
    if (!text)
      return std::nullopt;
    auto e = parse(text.getValue(), names);
    if (!e)
      return std::nullopt;
    dims.push_back(*e);
  }
  return dims;
}

} // namespace pt2c::sym
