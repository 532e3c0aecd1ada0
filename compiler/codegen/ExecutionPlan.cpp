#include "compiler/codegen/ExecutionPlan.h"

#include "compiler/codegen/ArenaPlanner.h"
#include "compiler/codegen/PlanWriter.h"
#include "compiler/import/DTypes.h"
#include "compiler/transforms/kernels/FormKernels.h"
#include "ir/contract/StorageBytes.h"
#include "ir/prim/DataDependentOps.h"
#include "ir/symbolic/SymbolicIR.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace pt2c {
namespace {

mlir::Value bufferRoot(mlir::Value v) {
  while (v.getDefiningOp() && isAliasOp(v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  return v;
}

class PlanBuilder {
public:
  PlanBuilder(mlir::func::FuncOp func, const ArtifactFile &artifact,
              const WeightsBlob *sharedWeights)
      : func(func), artifact(artifact), sharedWeights(sharedWeights) {}

  mlir::FailureOr<ExecutionPlan> build() {
    if (sharedWeights) {
      weights = *sharedWeights;
    } else {
      auto blob = layoutWeightsBlob({func}, artifact);
      if (mlir::failed(blob))
        return mlir::failure();
      weights = std::move(*blob);
    }
    r.weightsSize = weights.size;
    if (mlir::failed(addSymbols()))
      return mlir::failure();
    if (mlir::failed(addArguments()) || mlir::failed(addOutputs()) || mlir::failed(addSteps()) ||
        mlir::failed(addGuards()))
      return mlir::failure();
    ExecutionPlan plan;
    plan.kernels = kernels;
    r.numKernels = kernels.size();
    r.arenaSize = arena.size();
    plan.arenaSize = r.arenaSize;
    plan.bytes = serializePlan(r);
    plan.weights = std::move(weights);
    return plan;
  }

private:
  // The tensor type of a plan value; dynamic dims need the sizes pt2c-symbolic-shapes
  // gave them (dimsOf).
  mlir::FailureOr<mlir::RankedTensorType> staticType(mlir::Value v) {
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(v.getType());
    if (!type || !dtypeForElementType(type.getElementType()) ||
        (!type.hasStaticShape() && !sym::dimsAttrOf(v)))
      return mlir::emitError(v.getLoc()) << "the execution plan needs a tensor of a supported "
                                            "dtype with known sizes here, got "
                                         << v.getType();
    return type;
  }

  // A value's sizes as expressions (constants where static).
  std::vector<sym::Expr> dimsOf(mlir::Value v) {
    auto type = llvm::cast<mlir::RankedTensorType>(v.getType());
    std::vector<sym::Expr> dims;
    for (int64_t s : type.getShape())
      dims.push_back(sym::constant(s));
    if (mlir::ArrayAttr attr = sym::dimsAttrOf(v))
      if (auto parsed = sym::parseDims(attr, symbolNames))
        dims = *parsed;
    return dims;
  }

  // Bytes of the value at the dynamic dimensions' maxima (sizes grow with them:
  // pt2c-symbolic-shapes checked), which bounds every run.
  uint64_t byteSize(mlir::Value v) {
    auto type = llvm::cast<mlir::RankedTensorType>(v.getType());
    uint64_t n = elementBytes(type.getElementType());
    for (const sym::Expr &d : dimsOf(v))
      n *= std::max<int64_t>(sym::evaluate(d, symbolMaxima), 0);
    return n;
  }

  // Appends the expression's code to sym_code (a count, then the postfix pairs) and
  // returns its offset.
  int64_t addCode(const sym::Expr &e) {
    std::vector<int64_t> code;
    sym::encode(e, code);
    int64_t at = r.symCode.size();
    r.symCode.push_back(code.size() / 2);
    r.symCode.insert(r.symCode.end(), code.begin(), code.end());
    return at;
  }

  // A dims[] entry: the size, or -(1 + offset) of its expression's code.
  int64_t dimEntry(const sym::Expr &d) {
    if (auto c = sym::constantValue(d))
      return *c;
    return -(1 + addCode(d));
  }

  mlir::LogicalResult addSymbols() {
    auto symbols = func->getAttrOfType<mlir::ArrayAttr>(kSymbolsAttr);
    if (!symbols)
      return mlir::success();
    symbolNames = sym::symbolNames(func);
    for (mlir::Attribute a : symbols) {
      auto d = llvm::cast<mlir::DictionaryAttr>(a);
      auto get = [&](const char *key) { return d.getAs<mlir::IntegerAttr>(key).getInt(); };
      pt2c_plan_sym s{};
      s.name = r.addString(d.getAs<mlir::StringAttr>("name").str());
      s.min = get("min");
      s.max = get("max");
      if (d.get("produced")) {
        // A data-dependent size: addSteps binds it to the step that computes it.
        s.flags = PT2C_SYM_FLAG_PRODUCED;
        s.dim = UINT32_MAX;
      } else if (auto derived = d.getAs<mlir::StringAttr>("derived")) {
        // A clamp: the run evaluates its expression over the symbols before it.
        std::string error;
        auto e = sym::parse(derived.getValue(),
                            llvm::ArrayRef(symbolNames).take_front(r.syms.size()), &error);
        if (!e)
          return func.emitError() << "the size '" << d.getAs<mlir::StringAttr>("name").str()
                                  << "' = " << derived.getValue()
                                  << " is no expression of the sizes before it: " << error;
        s.flags = PT2C_SYM_FLAG_DERIVED;
        s.dim = addCode(*e);
      } else {
        // The plan's inputs are the function's pt2c.input arguments, in order.
        auto inputName = d.getAs<mlir::StringAttr>("input");
        bool found = false;
        for (unsigned i = 0; i < func.getNumArguments() && !found; ++i)
          if (auto name = func.getArgAttrOfType<mlir::StringAttr>(i, kInputAttr)) {
            if (name == inputName)
              found = true;
            else
              ++s.input;
          }
        if (!found)
          return func.emitError() << "dynamic dimension '"
                                  << d.getAs<mlir::StringAttr>("name").str() << "' names input "
                                  << inputName << ", which the graph lacks";
        s.dim = get("dim");
      }
      r.syms.push_back(s);
      symbolMaxima.push_back(s.max);
    }
    return mlir::success();
  }

  uint32_t addBuffer(uint32_t kind, uint32_t index, uint64_t offset, uint64_t nbytes) {
    r.buffers.push_back({kind, index, offset, nbytes});
    return r.buffers.size() - 1;
  }

  pt2c_plan_tensor describe(const std::string &name, mlir::Value v, uint32_t buffer) {
    auto t = llvm::cast<mlir::RankedTensorType>(v.getType());
    pt2c_plan_tensor d{};
    d.name = r.addString(name);
    d.dtype = *dtypeForElementType(t.getElementType());
    d.rank = t.getRank();
    d.buffer = buffer;
    std::vector<int64_t> entries;
    for (const sym::Expr &dim : dimsOf(v))
      entries.push_back(dimEntry(dim));
    d.dims = r.dims.size();
    r.dims.insert(r.dims.end(), entries.begin(), entries.end());
    return d;
  }

  mlir::LogicalResult addArguments() {
    for (mlir::BlockArgument arg : func.getArguments()) {
      auto type = staticType(arg);
      if (mlir::failed(type))
        return mlir::failure();
      unsigned i = arg.getArgNumber();
      if (auto name = func.getArgAttrOfType<mlir::StringAttr>(i, kInputAttr)) {
        uint32_t id = addBuffer(PT2C_BUFFER_INPUT, r.inputs.size(), 0, byteSize(arg));
        inputNumbers[name.strref()] = r.inputs.size();
        r.inputs.push_back(describe(name.str(), arg, id));
        buffers[arg] = id;
      } else if (auto fqn = weightName(i)) {
        bool state = func.getArgAttr(i, kStateAttr) != nullptr;
        buffers[arg] =
            addBuffer(state ? PT2C_BUFFER_STATE : PT2C_BUFFER_WEIGHT, state ? r.states.size() : 0,
                      weights.argumentOffsets.at(arg), byteSize(arg));
        if (state) {
          stateBuffers[fqn.strref()] = buffers[arg];
          r.states.push_back(describe(fqn.str(), arg, buffers[arg]));
        }
      } else {
        return func.emitError() << "argument " << i << " is neither an input nor a weight";
      }
    }
    return mlir::success();
  }

  // Outputs are decided before the steps so that kernels write them in place.
  mlir::LogicalResult addOutputs() {
    auto ret = func.getBody().front().getTerminator();
    for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
      if (func.getResultAttr(i, kGuardAttr))
        continue; // addGuards
      if (auto fqn = func.getResultAttrOfType<mlir::StringAttr>(i, kWritebackAttr)) {
        // The copy kernel pt2c-form-kernels put last writes straight into the state.
        mlir::Value root = bufferRoot(v);
        auto it = stateBuffers.find(fqn.strref());
        if (it == stateBuffers.end())
          return func.emitError() << "written-back buffer '" << fqn.strref()
                                  << "' is not a state argument";
        if (!llvm::isa<mlir::BlockArgument>(root))
          buffers[root] = it->second;
        continue;
      }
      if (auto name = func.getResultAttrOfType<mlir::StringAttr>(i, kInputWritebackAttr)) {
        // Input mutation: as for state, the last copy kernel writes the caller's input.
        auto it = inputNumbers.find(name.strref());
        if (it == inputNumbers.end())
          return func.emitError() << "written-back input '" << name.strref() << "' is not an input";
        mlir::Value root = bufferRoot(v);
        if (!llvm::isa<mlir::BlockArgument>(root)) {
          buffers[root] = r.inputs[it->second].buffer;
          r.inputs[it->second].flags |= PT2C_TENSOR_WRITTEN;
        }
        continue;
      }
      auto type = staticType(v);
      if (mlir::failed(type))
        return mlir::failure();
      mlir::Value root = bufferRoot(v);
      auto rootType = staticType(root);
      if (mlir::failed(rootType))
        return mlir::failure();
      if (buffers.count(root))
        return func.emitError() << "output " << i
                                << " shares its buffer with another value; "
                                   "pt2c-form-kernels should have copied it";
      uint32_t id = addBuffer(PT2C_BUFFER_OUTPUT, r.outputs.size(), 0, byteSize(root));
      buffers[root] = id;
      auto name = func.getResultAttrOfType<mlir::StringAttr>(i, kOutputAttr);
      r.outputs.push_back(describe(name ? name.str() : std::to_string(r.outputs.size()), v, id));
    }
    return mlir::success();
  }

  mlir::LogicalResult addSteps() {
    llvm::SmallVector<mlir::func::CallOp> calls;
    for (mlir::Operation &op : func.getBody().front().without_terminator()) {
      if (auto call = llvm::dyn_cast<mlir::func::CallOp>(op))
        calls.push_back(call);
      else if (!isAliasOp(&op) && !isSizeArithmetic(&op))
        return op.emitError() << "op left outside any kernel: " << op.getName();
    }
    // The last step reading each buffer root decides how long its arena memory lives;
    // guard values are read after the last step.
    llvm::DenseMap<mlir::Value, int64_t> lastUse;
    for (auto [step, call] : llvm::enumerate(calls)) {
      // A matrix product's or convolution's operands live one step longer: a GPU library
      // call (cuBLASLt, cuDNN) may then take in the next step, its bias epilogue, writing
      // that step's output while it still reads them (codegen/dense/LibrarySteps.cpp).
      // Two steps longer before a bias step and a residual add (BIAS_ADD).
      int64_t until = step;
      if (callsLibraryCandidate(call))
        until += feedsBiasThenAdd(calls, step) ? 2 : 1;
      for (mlir::Value v : call.getOperands())
        lastUse[bufferRoot(v)] = until;
    }
    for (mlir::Value v : guardValues())
      lastUse[bufferRoot(v)] = calls.size();

    for (auto [step, call] : llvm::enumerate(calls)) {
      pt2c_plan_step s{};
      s.kernel = kernels.size();
      s.first_arg = r.stepArgs.size();
      kernels.push_back(call.getCallee().str());
      for (mlir::Value v : call.getOperands())
        r.stepArgs.push_back(buffers.at(bufferRoot(v)));
      for (mlir::Value v : call.getResults()) {
        auto type = staticType(v);
        if (mlir::failed(type))
          return mlir::failure();
        if (!buffers.count(v)) {
          auto it = lastUse.find(v);
          int64_t last = it == lastUse.end() ? step : it->second;
          uint64_t offset = arena.place(byteSize(v), step, last);
          buffers[v] = addBuffer(PT2C_BUFFER_ARENA, 0, offset, byteSize(v));
        }
        r.stepArgs.push_back(buffers[v]);
      }
      s.num_args = r.stepArgs.size() - s.first_arg;
      r.steps.push_back(s);
      if (mlir::failed(bindProducedSymbols(call)))
        return mlir::failure();
    }
    for (const pt2c_plan_sym &s : r.syms)
      if ((s.flags & PT2C_SYM_FLAG_PRODUCED) && s.dim == UINT32_MAX)
        return func.emitError() << "no step computes the data-dependent size '"
                                << symbolNames[&s - r.syms.data()] << "'";
    return mlir::success();
  }

  // The data-dependent sizes `call` computes: each prim.nonzero of its kernel returns its
  // row count into a buffer no other step names, which the run reads after the step
  // (plan steps are renumbered later, when library steps join them; buffers are not).
  mlir::LogicalResult bindProducedSymbols(mlir::func::CallOp call) {
    auto callee =
        mlir::SymbolTable::lookupNearestSymbolFrom<mlir::func::FuncOp>(call, call.getCalleeAttr());
    if (!callee || callee.getBody().empty())
      return mlir::success();
    mlir::Operation *ret = callee.getBody().front().getTerminator();
    mlir::WalkResult walk = callee.walk([&](prim::NonzeroOp op) {
      auto result = llvm::find(ret->getOperands(), op.getCount());
      auto name = llvm::find(symbolNames, op.getSymbol().str());
      if (result == ret->getOperands().end() || name == symbolNames.end()) {
        op.emitError() << "the row count of this nonzero leaves its kernel unread";
        return mlir::WalkResult::interrupt();
      }
      r.syms[name - symbolNames.begin()].dim =
          buffers.at(call.getResult(result - ret->getOperands().begin()));
      return mlir::WalkResult::advance();
    });
    return mlir::failure(walk.wasInterrupted());
  }

  // Whether call `step` + 1 reads call `step`'s result and call `step` + 2, one prim.add,
  // reads call `step` + 1's: a Linear's bias add and residual add that a reshape kept in
  // two kernels, which may both join the product's library call.
  bool feedsBiasThenAdd(llvm::MutableArrayRef<mlir::func::CallOp> calls, size_t step) {
    if (step + 2 >= calls.size() || calls[step]->getNumResults() != 1 ||
        calls[step + 1]->getNumResults() != 1)
      return false;
    auto reads = [&](mlir::func::CallOp reader, mlir::Value v) {
      return llvm::any_of(reader.getOperands(),
                          [&](mlir::Value o) { return bufferRoot(o) == bufferRoot(v); });
    };
    if (!reads(calls[step + 1], calls[step]->getResult(0)) ||
        !reads(calls[step + 2], calls[step + 1]->getResult(0)))
      return false;
    auto callee = mlir::SymbolTable::lookupNearestSymbolFrom<mlir::func::FuncOp>(
        calls[step + 2], calls[step + 2].getCalleeAttr());
    if (!callee || callee.getBody().empty())
      return false;
    auto ops = callee.getBody().front().without_terminator();
    return std::distance(ops.begin(), ops.end()) == 1 &&
           ops.begin()->getName().getStringRef() == "prim.add";
  }

  // Whether `call`'s kernel function computes a prim.dot_general or prim.convolution.
  bool callsLibraryCandidate(mlir::func::CallOp call) {
    auto callee =
        mlir::SymbolTable::lookupNearestSymbolFrom<mlir::func::FuncOp>(call, call.getCalleeAttr());
    if (!callee)
      return false;
    bool found = false;
    callee.walk([&](mlir::Operation *op) {
      llvm::StringRef name = op->getName().getStringRef();
      found |= name == "prim.dot_general" || name == "prim.convolution";
    });
    return found;
  }

  mlir::StringAttr weightName(unsigned arg) {
    if (auto fqn = func.getArgAttrOfType<mlir::StringAttr>(arg, kWeightAttr))
      return fqn;
    return func.getArgAttrOfType<mlir::StringAttr>(arg, kStateAttr);
  }

  llvm::SmallVector<mlir::Value> guardValues() {
    llvm::SmallVector<mlir::Value> values;
    auto ret = func.getBody().front().getTerminator();
    for (auto [i, v] : llvm::enumerate(ret->getOperands()))
      if (func.getResultAttr(i, kGuardAttr))
        values.push_back(v);
    return values;
  }

  mlir::LogicalResult addGuards() {
    auto ret = func.getBody().front().getTerminator();
    for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
      auto attr = func.getResultAttrOfType<mlir::DictionaryAttr>(i, kGuardAttr);
      if (!attr)
        continue;
      auto type = staticType(v);
      if (mlir::failed(type))
        return mlir::failure();
      auto expected = attr.getAs<mlir::FloatAttr>("expected");
      auto message = attr.getAs<mlir::StringAttr>("message");
      if (type->getNumElements() != 1 || !expected || !message)
        return func.emitError() << "guard result " << i
                                << " must be one element with {expected, message}";
      pt2c_plan_guard g{};
      g.buffer = buffers.at(bufferRoot(v));
      g.dtype = *dtypeForElementType(type->getElementType());
      g.message = r.addString(message.str());
      g.expected = expected.getValueAsDouble();
      r.guards.push_back(g);
    }
    return mlir::success();
  }

  mlir::func::FuncOp func;
  const ArtifactFile &artifact;
  const WeightsBlob *sharedWeights;
  WeightsBlob weights;
  PlanRecords r;
  ArenaPlanner arena;
  llvm::DenseMap<mlir::Value, uint32_t> buffers;
  llvm::StringMap<uint32_t> stateBuffers;
  llvm::StringMap<uint32_t> inputNumbers;
  std::vector<std::string> kernels;
  std::vector<std::string> symbolNames; // the dynamic dimensions, in sym order
  std::vector<int64_t> symbolMaxima;
};

} // namespace

mlir::FailureOr<ExecutionPlan> buildExecutionPlan(mlir::func::FuncOp model,
                                                  const ArtifactFile &artifact,
                                                  const WeightsBlob *sharedWeights) {
  return PlanBuilder(model, artifact, sharedWeights).build();
}

} // namespace pt2c
