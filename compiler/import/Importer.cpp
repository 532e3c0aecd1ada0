#include "compiler/import/Importer.h"

#include "compiler/import/ArtifactSymExpr.h"
#include "compiler/import/DTypes.h"
#include "compiler/import/SchemaArgs.h"
#include "ir/aten/AtenDtypeRules.h"
#include "ir/contract/ModelContract.h"
#include "ir/symbolic/SymbolicIR.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace pt2c {
namespace {

using artifact::Argument;

class GraphImporter {
public:
  // `state`: the module buffers some graph of the artifact writes in place.
  GraphImporter(mlir::OpBuilder &builder, const artifact::Graph &graph,
                const llvm::StringSet<> &state)
      : b(builder), ctx(builder.getContext()), graph(graph), state(state) {
    for (const auto &v : graph.values())
      metas[v.name()] = &v.meta();
    symbolNames = dynamicDimNames(graph);
  }

  mlir::LogicalResult run(mlir::Location fallbackLoc);

private:
  mlir::Location locationOf(const artifact::Node &node) const;
  mlir::FailureOr<mlir::RankedTensorType> typeOf(const std::string &valueName, mlir::Location loc);
  mlir::FailureOr<mlir::Attribute> attributeFor(const Argument &arg, mlir::Location loc);
  mlir::LogicalResult importNode(const artifact::Node &node);
  static bool isNumber(const Argument &arg);
  mlir::FailureOr<mlir::Value> wrappedNumber(const Argument &arg, const artifact::Node &node,
                                             mlir::Location loc);
  mlir::FailureOr<std::string> symbolicText(const artifact::SymInt &size, mlir::Location loc);
  mlir::FailureOr<mlir::DictionaryAttr> clampSymbol(const artifact::DynamicDim &dim,
                                                    size_t position, mlir::Location loc);
  mlir::LogicalResult declareSymbols(mlir::func::FuncOp func, mlir::Location loc);
  mlir::FailureOr<mlir::ArrayAttr> dimsOf(const std::string &valueName, mlir::Location loc);

  mlir::OpBuilder &b;
  mlir::MLIRContext *ctx;
  const artifact::Graph &graph;
  const llvm::StringSet<> &state;
  llvm::StringMap<const artifact::TensorMeta *> metas;
  llvm::StringMap<mlir::Value> values;
  std::vector<std::string> symbolNames; // graph.dynamic_dims in order
  // The symbolic entries of the node being imported: pt2c.sym.<arg> attributes.
  llvm::SmallVector<mlir::NamedAttribute> symbolicArgs;
};

mlir::FailureOr<std::string> GraphImporter::symbolicText(const artifact::SymInt &size,
                                                         mlir::Location loc) {
  auto e = symExprOf(size.symbolic(), symbolNames, symbolNames.size());
  if (!e)
    return mlir::emitError(loc) << "artifact is malformed: size " << size.expr() << " "
                                << llvm::toString(e.takeError());
  return sym::print(*e, symbolNames);
}

// A clamped size (DynamicDim.clamp) as a derived symbol: {name, min, max, derived =
// "min(<of>, <at_most>)"}, its expression over the symbols before it, which the run
// evaluates once they are known.
mlir::FailureOr<mlir::DictionaryAttr>
GraphImporter::clampSymbol(const artifact::DynamicDim &dim, size_t position, mlir::Location loc) {
  auto value = clampExprOf(dim.clamp(), symbolNames, position);
  if (!value)
    return mlir::emitError(loc) << "artifact is malformed: clamp '" << dim.name() << "' "
                                << llvm::toString(value.takeError());
  return b.getDictionaryAttr({
      b.getNamedAttr("name", b.getStringAttr(dim.name())),
      b.getNamedAttr("min", b.getI64IntegerAttr(dim.min())),
      b.getNamedAttr("max", b.getI64IntegerAttr(dim.max())),
      b.getNamedAttr("derived", b.getStringAttr(sym::print(*value, symbolNames))),
  });
}

// "model.py:12: `if x.sum() > 0:` (bool(tensor) in `if`)": what the runtime prints when
// the guard fails.
std::string guardMessage(const artifact::Guard &guard) {
  std::string message = guard.loc().file() + ":" + std::to_string(guard.loc().line());
  if (!guard.loc().code().empty())
    message += ": `" + guard.loc().code() + "`";
  if (!guard.description().empty())
    message += " (" + guard.description() + ")";
  return message;
}

mlir::Location GraphImporter::locationOf(const artifact::Node &node) const {
  const auto &loc = node.loc();
  if (loc.file().empty())
    return mlir::UnknownLoc::get(ctx);
  mlir::Location fileLoc = mlir::FileLineColLoc::get(ctx, loc.file(), loc.line(), 0);
  if (loc.code().empty())
    return fileLoc;
  // The source line travels with the location (as fused metadata), so diagnostics can
  // quote it wherever the compiler runs, without the model.py at hand.
  return mlir::FusedLoc::get(ctx, {fileLoc}, mlir::StringAttr::get(ctx, loc.code()));
}

mlir::FailureOr<mlir::RankedTensorType> GraphImporter::typeOf(const std::string &valueName,
                                                              mlir::Location loc) {
  auto it = metas.find(valueName);
  if (it == metas.end())
    return mlir::emitError(loc) << "artifact is malformed: value '" << valueName
                                << "' has no metadata";
  const artifact::TensorMeta &meta = *it->second;
  mlir::Type element = aten::elementTypeOfScalarType(ctx, meta.dtype());
  if (!element)
    return mlir::emitError(loc) << "value '" << valueName << "' has an unsupported dtype ("
                                << meta.dtype() << ")";
  llvm::SmallVector<int64_t> shape;
  for (const auto &size : meta.sizes()) {
    // A symbolic size must be an expression of the graph's dynamic dimensions.
    if (size.has_expr() && mlir::failed(symbolicText(size, loc)))
      return mlir::failure();
    // MLIR takes a negative size for "dynamic" (or worse); a traced size never is one.
    if (!size.has_expr() && size.value() < 0)
      return mlir::emitError(loc) << "artifact is malformed: value '" << valueName
                                  << "' has a negative size (" << size.value() << ")";
    shape.push_back(size.has_expr() ? mlir::ShapedType::kDynamic : size.value());
  }
  return mlir::RankedTensorType::get(shape, element);
}

mlir::FailureOr<mlir::Attribute> GraphImporter::attributeFor(const Argument &arg,
                                                             mlir::Location loc) {
  switch (arg.kind_case()) {
  case Argument::kIntValue:
    if (arg.int_value().has_expr()) {
      // The attribute keeps the traced value; decompositions that support dynamic
      // sizes read the expression (SymbolicIR.h), the rest see a static graph's value.
      auto text = symbolicText(arg.int_value(), loc);
      if (mlir::failed(text))
        return mlir::failure();
      symbolicArgs.push_back(b.getNamedAttr(kSymArgPrefix + arg.name(), b.getStringAttr(*text)));
      return mlir::Attribute(b.getI64IntegerAttr(arg.int_value().hint()));
    }
    return mlir::Attribute(b.getI64IntegerAttr(arg.int_value().value()));
  case Argument::kFloatValue:
    return mlir::Attribute(b.getF64FloatAttr(arg.float_value()));
  case Argument::kBoolValue:
    return mlir::Attribute(b.getBoolAttr(arg.bool_value()));
  case Argument::kStringValue:
    return mlir::Attribute(b.getStringAttr(arg.string_value()));
  case Argument::kDeviceValue:
    return mlir::Attribute(b.getStringAttr(arg.device_value()));
  case Argument::kDtypeValue:
    return mlir::Attribute(b.getI64IntegerAttr(arg.dtype_value()));
  case Argument::kMemoryFormat:
    return mlir::Attribute(b.getI64IntegerAttr(arg.memory_format()));
  case Argument::kLayout:
    return mlir::Attribute(b.getI64IntegerAttr(arg.layout()));
  case Argument::kFloats:
    return mlir::Attribute(b.getDenseF64ArrayAttr(
        llvm::SmallVector<double>(arg.floats().values().begin(), arg.floats().values().end())));
  case Argument::kBools:
    return mlir::Attribute(b.getDenseBoolArrayAttr(
        llvm::SmallVector<bool>(arg.bools().values().begin(), arg.bools().values().end())));
  case Argument::kInts: {
    llvm::SmallVector<int64_t> ints;
    llvm::SmallVector<mlir::Attribute> texts;
    bool symbolic = false;
    for (const auto &v : arg.ints().values()) {
      std::string text;
      if (v.has_expr()) {
        auto t = symbolicText(v, loc);
        if (mlir::failed(t))
          return mlir::failure();
        text = *t;
        symbolic = true;
      }
      texts.push_back(b.getStringAttr(text));
      ints.push_back(v.has_expr() ? v.hint() : v.value());
    }
    if (symbolic)
      symbolicArgs.push_back(b.getNamedAttr(kSymArgPrefix + arg.name(), b.getArrayAttr(texts)));
    return mlir::Attribute(b.getDenseI64ArrayAttr(ints));
  }
  default:
    return mlir::emitError(loc) << "argument '" << arg.name()
                                << "' has a kind the importer does not handle ("
                                << static_cast<int>(arg.kind_case()) << ")";
  }
}

bool GraphImporter::isNumber(const Argument &arg) {
  return arg.kind_case() == Argument::kIntValue || arg.kind_case() == Argument::kFloatValue ||
         arg.kind_case() == Argument::kBoolValue;
}

// `x - 1.5` reaches ATen as sub.Tensor with a Python number where the schema has a
// Tensor (a "wrapped number"). It becomes a rank-0 constant of the op's result dtype,
// which is what PyTorch's promotion rules give a wrapped number next to a tensor
// (wrapped numbers never widen a tensor's dtype within its category).
mlir::FailureOr<mlir::Value>
GraphImporter::wrappedNumber(const Argument &arg, const artifact::Node &node, mlir::Location loc) {
  if (node.outputs().empty() || node.outputs(0).empty())
    return mlir::emitError(loc) << "argument '" << arg.name()
                                << "' is a number where a tensor is expected";
  auto resultType = typeOf(node.outputs(0), loc);
  if (mlir::failed(resultType))
    return mlir::failure();
  mlir::Type element = resultType->getElementType();
  // A comparison's result is bool; its number compares in the other operand's dtype.
  if (element.isInteger(1))
    for (const Argument &other : node.args())
      if (other.kind_case() == Argument::kTensor) {
        auto otherType = typeOf(other.tensor(), loc);
        if (mlir::failed(otherType))
          return mlir::failure();
        element = otherType->getElementType();
        break;
      }
  auto type = mlir::RankedTensorType::get({}, element);
  double number = arg.kind_case() == Argument::kFloatValue  ? arg.float_value()
                  : arg.kind_case() == Argument::kBoolValue ? arg.bool_value()
                                                            : arg.int_value().value();
  mlir::Attribute scalar;
  if (auto ft = llvm::dyn_cast<mlir::FloatType>(element))
    scalar = b.getFloatAttr(ft, number);
  else
    scalar = b.getIntegerAttr(element, static_cast<int64_t>(number));
  mlir::OperationState state(loc, "prim.constant");
  state.addAttribute("value", mlir::DenseElementsAttr::get(type, scalar));
  state.types.push_back(type);
  return b.create(state)->getResult(0);
}

mlir::LogicalResult GraphImporter::importNode(const artifact::Node &node) {
  mlir::Location loc = locationOf(node);
  llvm::StringRef target = node.target();
  // ir/aten/gen_aten_ops.py's names: aten::mm -> aten.mm, and an op of another namespace
  // keeps it as a prefix (torchvision::nms -> aten.torchvision_nms).
  auto [ns, base] = target.split("::");
  std::string opName = "aten.";
  if (ns != "aten")
    opName += ns.str() + "_";
  opName += base.str();
  if (!node.overload().empty() && node.overload() != "default")
    opName += "." + node.overload();
  std::string torchName =
      target.str() + "." + (node.overload().empty() ? "default" : node.overload());

  auto registered = mlir::RegisteredOperationName::lookup(opName, ctx);
  if (!registered)
    return mlir::emitError(loc) << "unsupported operator " << torchName
                                << ": the aten dialect has no op for it yet";

  std::vector<SchemaArg> schemaArgs = parseSchemaArgs(node.schema());
  auto isTensorSlot = [&](const Argument &arg) {
    for (const SchemaArg &s : schemaArgs)
      if (s.name == arg.name())
        return s.isTensor() || s.isTensorList();
    return arg.kind_case() == Argument::kTensor || arg.kind_case() == Argument::kTensors;
  };

  mlir::OperationState state(loc, *registered);
  llvm::SmallVector<int32_t> segments;
  symbolicArgs.clear();
  auto lookup = [&](const std::string &name) -> mlir::FailureOr<mlir::Value> {
    auto it = values.find(name);
    if (it == values.end())
      return mlir::emitError(loc) << "artifact is malformed: " << torchName << " uses value '"
                                  << name << "' before it is defined";
    return it->second;
  };
  for (const Argument &arg : node.args()) {
    if (isTensorSlot(arg)) {
      int32_t count = 0;
      if (arg.kind_case() == Argument::kTensor) {
        auto v = lookup(arg.tensor());
        if (mlir::failed(v))
          return mlir::failure();
        state.operands.push_back(*v);
        count = 1;
      } else if (isNumber(arg)) {
        auto v = wrappedNumber(arg, node, loc);
        if (mlir::failed(v))
          return mlir::failure();
        state.operands.push_back(*v);
        count = 1;
      } else if (arg.kind_case() == Argument::kTensors) {
        // A None inside a Tensor?[] (x[:, idx] indexes with [None, idx]) is left out;
        // pt2c.present_<arg> then lists the positions of the tensors that are there.
        llvm::SmallVector<int64_t> present;
        for (int i = 0; i < arg.tensors().values_size(); ++i) {
          const std::string &name = arg.tensors().values(i);
          if (name.empty()) {
            bool optional = llvm::any_of(schemaArgs, [&](const SchemaArg &s) {
              return s.name == arg.name() && llvm::StringRef(s.type).starts_with("Tensor?[");
            });
            if (!optional)
              return mlir::emitError(loc)
                     << torchName << ": a None inside tensor list '" << arg.name() << "'";
            continue;
          }
          present.push_back(i);
          auto v = lookup(name);
          if (mlir::failed(v))
            return mlir::failure();
          state.operands.push_back(*v);
          ++count;
        }
        if (count != arg.tensors().values_size())
          state.addAttribute(kPresentPrefix + arg.name(), b.getDenseI64ArrayAttr(present));
      }
      segments.push_back(count);
      continue;
    }
    if (arg.kind_case() == Argument::kNone || arg.kind_case() == Argument::KIND_NOT_SET)
      continue;
    auto attr = attributeFor(arg, loc);
    if (mlir::failed(attr))
      return mlir::failure();
    state.addAttribute(arg.name(), *attr);
  }
  if (registered->hasTrait<mlir::OpTrait::AttrSizedOperandSegments>())
    state.addAttribute("operandSegmentSizes", b.getDenseI32ArrayAttr(segments));
  for (const mlir::NamedAttribute &a : symbolicArgs)
    state.addAttribute(a.getName(), a.getValue());

  llvm::SmallVector<mlir::Attribute> resultDims;
  bool symbolicResult = false;
  for (const std::string &out : node.outputs()) {
    if (out.empty())
      return mlir::emitError(loc) << torchName << " returns a non-tensor; not supported yet";
    auto type = typeOf(out, loc);
    if (mlir::failed(type))
      return mlir::failure();
    state.types.push_back(*type);
    auto dims = dimsOf(out, loc);
    if (mlir::failed(dims))
      return mlir::failure();
    resultDims.push_back(*dims);
    symbolicResult |= !type->hasStaticShape();
  }
  // Every result's sizes as expressions, so that decompositions size what they build
  // exactly (SymbolicIR.h, kResultDimsAttr).
  if (symbolicResult)
    state.addAttribute(kResultDimsAttr, b.getArrayAttr(resultDims));
  mlir::Operation *op = b.create(state);
  for (auto [name, result] : llvm::zip(node.outputs(), op->getResults()))
    values[name] = result;
  return mlir::success();
}

// A value's sizes as pt2c.dims entries ("batch*seq", "16").
mlir::FailureOr<mlir::ArrayAttr> GraphImporter::dimsOf(const std::string &valueName,
                                                       mlir::Location loc) {
  llvm::SmallVector<mlir::Attribute> dims;
  auto it = metas.find(valueName);
  if (it == metas.end())
    return b.getArrayAttr(dims);
  for (const auto &size : it->second->sizes()) {
    std::string text = std::to_string(size.value());
    if (size.has_expr()) {
      auto t = symbolicText(size, loc);
      if (mlir::failed(t))
        return mlir::failure();
      text = *t;
    }
    dims.push_back(b.getStringAttr(text));
  }
  return b.getArrayAttr(dims);
}

// pt2c.symbols on the model function: each dynamic dimension with its range and the
// first input dim that has its size (the runtime reads the value there), `produced` for
// a data-dependent size (the op that computes the value binds it: prim.nonzero) or
// `derived` for a clamp (the run evaluates it); and pt2c.dims on every input argument
// with a dynamic dim.
mlir::LogicalResult GraphImporter::declareSymbols(mlir::func::FuncOp func, mlir::Location loc) {
  if (graph.dynamic_dims().empty())
    return mlir::success();
  llvm::SmallVector<mlir::Attribute> symbols;
  for (const auto &dim : graph.dynamic_dims()) {
    if (dim.has_clamp()) {
      auto derived = clampSymbol(dim, symbols.size(), loc);
      if (mlir::failed(derived))
        return mlir::failure();
      symbols.push_back(*derived);
      continue;
    }
    if (dim.has_produced()) {
      symbols.push_back(b.getDictionaryAttr({
          b.getNamedAttr("name", b.getStringAttr(dim.name())),
          b.getNamedAttr("min", b.getI64IntegerAttr(dim.min())),
          b.getNamedAttr("max", b.getI64IntegerAttr(dim.max())),
          b.getNamedAttr("produced", b.getUnitAttr()),
      }));
      continue;
    }
    // The input by its name (pt2c.input): argument positions change when weights are
    // folded.
    bool found = false;
    for (const auto &in : graph.inputs())
      found |= !dim.inputs().empty() && in.kind() == artifact::InputSpec::USER_INPUT &&
               in.name() == dim.inputs(0).input();
    if (!found)
      return mlir::emitError(loc) << "artifact is malformed: dynamic dimension '" << dim.name()
                                  << "' names no input of graph '" << graph.name() << "'";
    symbols.push_back(b.getDictionaryAttr({
        b.getNamedAttr("name", b.getStringAttr(dim.name())),
        b.getNamedAttr("min", b.getI64IntegerAttr(dim.min())),
        b.getNamedAttr("max", b.getI64IntegerAttr(dim.max())),
        b.getNamedAttr("input", b.getStringAttr(dim.inputs(0).input())),
        b.getNamedAttr("dim", b.getI64IntegerAttr(dim.inputs(0).dim())),
    }));
  }
  func->setAttr(kSymbolsAttr, b.getArrayAttr(symbols));
  for (auto [i, in] : llvm::enumerate(graph.inputs())) {
    auto type = llvm::cast<mlir::RankedTensorType>(func.getArgumentTypes()[i]);
    if (type.hasStaticShape())
      continue;
    auto dims = dimsOf(in.value(), loc);
    if (mlir::failed(dims))
      return mlir::failure();
    func.setArgAttr(i, kDimsAttr, *dims);
  }
  return mlir::success();
}

mlir::LogicalResult GraphImporter::run(mlir::Location fallbackLoc) {
  llvm::SmallVector<mlir::Type> argTypes, resultTypes;
  for (const auto &in : graph.inputs()) {
    auto type = typeOf(in.value(), fallbackLoc);
    if (mlir::failed(type))
      return mlir::failure();
    argTypes.push_back(*type);
  }
  for (const auto &out : graph.outputs()) {
    auto type = typeOf(out.value(), fallbackLoc);
    if (mlir::failed(type))
      return mlir::failure();
    resultTypes.push_back(*type);
  }
  // Guards are extra results after the outputs (ir/contract/ModelContract.h: kGuardAttr).
  for (const auto &guard : graph.guards()) {
    auto type = typeOf(guard.value(), fallbackLoc);
    if (mlir::failed(type))
      return mlir::failure();
    resultTypes.push_back(*type);
  }
  auto func = b.create<mlir::func::FuncOp>(fallbackLoc, graph.name(),
                                           b.getFunctionType(argTypes, resultTypes));
  mlir::Block *entry = func.addEntryBlock();
  if (mlir::failed(declareSymbols(func, fallbackLoc)))
    return mlir::failure();
  // Module buffers written in place are model state (ir/contract/ModelContract.h), in every graph
  // that uses them: one graph writes a cache that another only reads. Their new values
  // are results that the plan writes back instead of outputs. So are the new values of
  // user inputs written in place (written back into the caller's input memory).
  for (auto [i, in] : llvm::enumerate(graph.inputs())) {
    const char *role = in.kind() == artifact::InputSpec::USER_INPUT ? kInputAttr
                       : state.contains(in.name())                  ? kStateAttr
                                                                    : kWeightAttr;
    func.setArgAttr(i, role, b.getStringAttr(in.name()));
    values[in.value()] = entry->getArgument(i);
  }
  for (auto [i, out] : llvm::enumerate(graph.outputs())) {
    const char *role = out.kind() == artifact::OutputSpec::BUFFER_MUTATION ? kWritebackAttr
                       : out.kind() == artifact::OutputSpec::USER_INPUT_MUTATION
                           ? kInputWritebackAttr
                           : kOutputAttr;
    func.setResultAttr(i, role, b.getStringAttr(out.name()));
  }
  for (auto [i, guard] : llvm::enumerate(graph.guards()))
    func.setResultAttr(
        graph.outputs_size() + i, kGuardAttr,
        b.getDictionaryAttr({b.getNamedAttr("expected", b.getF64FloatAttr(guard.expected())),
                             b.getNamedAttr("message", b.getStringAttr(guardMessage(guard)))}));

  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  for (const auto &node : graph.nodes())
    if (mlir::failed(importNode(node)))
      return mlir::failure();
  llvm::SmallVector<mlir::Value> results;
  llvm::SmallVector<std::string> resultValues;
  for (const auto &out : graph.outputs())
    resultValues.push_back(out.value());
  for (const auto &guard : graph.guards())
    resultValues.push_back(guard.value());
  for (const std::string &name : resultValues) {
    auto it = values.find(name);
    if (it == values.end())
      return mlir::emitError(fallbackLoc)
             << "artifact is malformed: result '" << name << "' is never defined";
    results.push_back(it->second);
  }
  b.create<mlir::func::ReturnOp>(fallbackLoc, results);
  return mlir::success();
}

} // namespace

mlir::OwningOpRef<mlir::ModuleOp> importArtifact(mlir::MLIRContext &context,
                                                 const ArtifactFile &artifact) {
  mlir::Location loc = mlir::FileLineColLoc::get(&context, artifact.message.model_path(), 0, 0);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  mlir::OpBuilder builder(module->getBodyRegion());
  llvm::StringSet<> state;
  for (const auto &graph : artifact.message.graphs())
    for (const auto &out : graph.outputs())
      if (out.kind() == artifact::OutputSpec::BUFFER_MUTATION)
        state.insert(out.name());
  for (const auto &graph : artifact.message.graphs()) {
    GraphImporter importer(builder, graph, state);
    if (mlir::failed(importer.run(loc)))
      return nullptr;
  }
  if (mlir::failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

} // namespace pt2c
