#include "compiler/transforms/kernels/FormKernels.h"

#include "ir/contract/ModelContract.h"
#include "ir/prim/ElementwiseOnGpu.h"
#include "ir/prim/PrimDialect.h"
#include "ir/symbolic/SymbolicIR.h"

#include <functional>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace pt2c {

#define GEN_PASS_DEF_FORMKERNELSPASS
#include "compiler/transforms/Passes.h.inc"

namespace {

bool isClonedIntoUsers(mlir::Operation *op) {
  return op->hasTrait<mlir::OpTrait::ConstantLike>() || isSizeArithmetic(op);
}

// A kernel argument's or result's dims for pt2c.kernel_dims ([] when static).
mlir::Attribute kernelDims(mlir::Builder &b, mlir::Value v) {
  if (mlir::ArrayAttr dims = sym::dimsAttrOf(v))
    return dims;
  return b.getArrayAttr({});
}

// Producers cheap enough to recompute inside their single consumer's kernel: fusing them
// saves a buffer round trip and a step. On the GPU also the slices and concatenations
// its lowering computes elementwise (prim::isElementwiseOnGpu).
bool isFusibleProducer(mlir::Operation *op) {
  return op->hasTrait<mlir::OpTrait::Elementwise>() ||
         op->getName().getStringRef() == "prim.broadcast_in_dim" || prim::isElementwiseOnGpu(op);
}

// A depthwise convolution that is one loop over its output (prim::ConvolutionOp::
// isDirectDepthwise) joins the elementwise kernel that reads it: its bias and activation
// then run in its launch (EfficientNet's 16 depthwise convolutions each saved one). Not a
// library step's kernel: there it would be a prologue split off again, taking the
// elementwise ops before it (the previous convolution's epilogue) along.
bool joinsElementwiseConsumer(mlir::Operation *op, mlir::Operation *consumerRoot) {
  auto conv = llvm::dyn_cast<prim::ConvolutionOp>(op);
  return conv && conv.isDirectDepthwise() && consumerRoot->hasTrait<mlir::OpTrait::Elementwise>();
}

// An elementwise op that would join a GEMM's or a library convolution's kernel as its
// prologue and that is the end of everything computed from a direct depthwise
// convolution's result (through elementwise ops only): it starts a kernel of its own,
// which those ops and the convolution then join (joinsElementwiseConsumer). In the
// library op's kernel it would be split off again as a prologue launch reading the
// convolution's output (SplitGemmPrologues.h); with the convolution it runs as its
// epilogue (MobileViT's inverted residuals: depthwise, bias and SiLU, then the 1x1
// projection as a GEMM). Not where another kernel also reads what the convolution
// feeds (EfficientNet's squeeze-excitation mean): the convolution could not join.
bool leavesLibraryPrologue(mlir::Operation *op, mlir::Operation *consumerRoot) {
  if (!op->hasTrait<mlir::OpTrait::Elementwise>() || !inFusedOpsModule(op))
    return false;
  auto product = llvm::dyn_cast<prim::DotGeneralOp>(consumerRoot);
  auto conv = llvm::dyn_cast<prim::ConvolutionOp>(consumerRoot);
  if (!(product && !product.isSmallRowProduct()) && !(conv && !conv.isDirectDepthwise()))
    return false;
  // A SiLU is 3 ops from the convolution (add of the bias, sigmoid, mul).
  constexpr int kMaxDepth = 6;
  // Every use of `at`'s results leads, through elementwise ops, to `op` alone.
  std::function<bool(mlir::Operation *, int)> endsAtOp = [&](mlir::Operation *at, int depth) {
    for (mlir::Operation *user : at->getUsers())
      if (user != op && (depth >= kMaxDepth || !user->hasTrait<mlir::OpTrait::Elementwise>() ||
                         !endsAtOp(user, depth + 1)))
        return false;
    return true;
  };
  std::function<bool(mlir::Operation *, int)> fedByDirectConv = [&](mlir::Operation *at,
                                                                    int depth) {
    for (mlir::Value operand : at->getOperands()) {
      mlir::Operation *def = operand.getDefiningOp();
      if (!def)
        continue;
      if (auto producer = llvm::dyn_cast<prim::ConvolutionOp>(def);
          producer && producer.isDirectDepthwise() && endsAtOp(producer, 1))
        return true;
      if (depth < kMaxDepth && def->hasTrait<mlir::OpTrait::Elementwise>() &&
          fedByDirectConv(def, depth + 1))
        return true;
    }
    return false;
  };
  return fedByDirectConv(op, 1);
}

// The static shape of a tensor value, if it has one.
std::optional<llvm::ArrayRef<int64_t>> staticShape(mlir::Value v) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return type.getShape();
}

// A reduction on the GPU joins the elementwise kernel that reads it one element per
// output (a mean's division and its conversion back to f16): that kernel's math becomes
// the reduction launch's epilogue, run once per output by the thread that stores it
// (compiler/codegen/cuda/MapRowReductionsToGpu.cpp), instead of a launch of its own. Not
// where a reader broadcasts it (softmax's x - max reads it once per input element). A
// small row product is such a reduction too (a row reduction per output): a squeeze-
// excitation gate's bias and SiLU then run in its launch, not in a GEMV and a kernel.
bool joinsAsEpilogue(mlir::Operation *op, mlir::Operation *consumerRoot) {
  auto product = llvm::dyn_cast<prim::DotGeneralOp>(op);
  if (!(llvm::isa<prim::ReduceOp>(op) || (product && product.isSmallRowProduct())) ||
      !inFusedOpsModule(op) || !consumerRoot->hasTrait<mlir::OpTrait::Elementwise>())
    return false;
  std::optional<llvm::ArrayRef<int64_t>> shape = staticShape(op->getResult(0));
  auto sameShape = [&](mlir::Operation *other) {
    return staticShape(other->getResult(0)) == shape;
  };
  return shape && sameShape(consumerRoot) &&
         llvm::all_of(op->getUsers(), [&](mlir::Operation *user) {
           return user->hasTrait<mlir::OpTrait::Elementwise>() && sameShape(user);
         });
}

// The ops of one kernel in program order; `root` is the last, and only its results
// may be used outside the kernel.
struct Group {
  mlir::Operation *root;
  llvm::SmallVector<mlir::Operation *> ops;
};

class KernelOutliner {
public:
  KernelOutliner(mlir::func::FuncOp func, mlir::SymbolTable &symbols)
      : func(func), symbols(symbols) {}

  void run() {
    formGroups();
    for (Group &g : groups)
      outline(g);
    copyOutputsThatShareBuffers();
  }

private:
  void formGroups() {
    // Walk backwards so that every consumer has its group before its producers ask.
    llvm::SmallVector<mlir::Operation *> ops;
    for (mlir::Operation &op : func.getBody().front().without_terminator())
      ops.push_back(&op);
    for (mlir::Operation *op : llvm::reverse(ops)) {
      if (isClonedIntoUsers(op) || isAliasOp(op))
        continue;
      if (auto g = soleConsumerGroup(op))
        if ((isFusibleProducer(op) && !leavesLibraryPrologue(op, groups[*g].root)) ||
            joinsElementwiseConsumer(op, groups[*g].root) || joinsAsEpilogue(op, groups[*g].root)) {
          groupOf[op] = *g;
          groups[*g].ops.push_back(op);
          continue;
        }
      if (isWidening(op) && duplicateIntoConsumerGroups(op))
        continue;
      groupOf[op] = groups.size();
      groups.push_back({op, {op}});
    }
    for (Group &g : groups)
      std::reverse(g.ops.begin(), g.ops.end());
  }

  std::optional<size_t> soleConsumerGroup(mlir::Operation *op) {
    std::optional<size_t> found;
    for (mlir::Operation *user : op->getUsers()) {
      auto it = groupOf.find(user);
      if (it == groupOf.end() || (found && *found != it->second))
        return std::nullopt;
      found = it->second;
    }
    if (found && !takesProducers(*found))
      return std::nullopt;
    return found;
  }

  // The fused ops' kernels are written by hand for the op alone
  // (codegen/cuda/FusedKernels.h).
  bool takesProducers(size_t g) const {
    return !llvm::isa<prim::AttentionOp, prim::LayerNormOp>(groups[g].root);
  }

  // A float conversion to a wider type, on the GPU.
  static bool isWidening(mlir::Operation *op) {
    if (!llvm::isa<prim::ConvertOp>(op) || !inFusedOpsModule(op))
      return false;
    auto from = mlir::getElementTypeOrSelf(op->getOperand(0).getType());
    auto to = mlir::getElementTypeOrSelf(op->getResult(0).getType());
    return mlir::isa<mlir::FloatType>(from) && mlir::isa<mlir::FloatType>(to) &&
           from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth();
  }

  // `op`, read by the kernels of several groups, becomes one copy in each of them, so
  // that its narrow operand is what crosses between kernels: an f16 activation that
  // both a reduction and an elementwise kernel read in f32 (EfficientNet's
  // squeeze-excitation input) is stored and read in f16, not written out at twice the
  // bytes. False (nothing changed) where a user is not in a group.
  bool duplicateIntoConsumerGroups(mlir::Operation *op) {
    llvm::MapVector<size_t, llvm::SmallVector<mlir::OpOperand *>> uses;
    for (mlir::OpOperand &use : op->getUses()) {
      auto it = groupOf.find(use.getOwner());
      if (it == groupOf.end() || !takesProducers(it->second))
        return false;
      uses[it->second].push_back(&use);
    }
    if (uses.size() < 2)
      return false;
    mlir::OpBuilder b(op);
    for (auto &[g, operands] : uses) {
      mlir::Operation *copy = b.clone(*op);
      for (mlir::OpOperand *use : operands)
        use->set(copy->getResult(0));
      groupOf[copy] = g;
      groups[g].ops.push_back(copy);
    }
    op->erase();
    return true;
  }

  void outline(Group &g) {
    // Operands from outside the group become kernel arguments; constants are cloned in.
    llvm::SetVector<mlir::Value> inputs;
    llvm::SetVector<mlir::Operation *> constants; // operands before their users
    llvm::SmallPtrSet<mlir::Operation *, 8> members(g.ops.begin(), g.ops.end());
    std::function<void(mlir::Operation *)> cloneWithOperands = [&](mlir::Operation *def) {
      if (constants.contains(def))
        return;
      for (mlir::Value v : def->getOperands())
        if (mlir::Operation *d = v.getDefiningOp())
          cloneWithOperands(d);
      constants.insert(def);
    };
    for (mlir::Operation *op : g.ops)
      for (mlir::Value v : op->getOperands()) {
        mlir::Operation *def = v.getDefiningOp();
        if (def && members.contains(def))
          continue;
        if (def && isClonedIntoUsers(def))
          cloneWithOperands(def);
        else
          inputs.insert(v);
      }

    mlir::OpBuilder b(func);
    std::string name = (func.getName() + "_kernel_" + llvm::Twine(kernelCount++)).str();
    auto type = b.getFunctionType(mlir::ValueRange(inputs.getArrayRef()).getTypes(),
                                  g.root->getResultTypes());
    auto kernel = b.create<mlir::func::FuncOp>(g.root->getLoc(), name, type);
    kernel.setPrivate();
    kernel->setAttr(kKernelAttr, b.getUnitAttr());
    llvm::SmallVector<mlir::Value> boundary(inputs.begin(), inputs.end());
    llvm::append_range(boundary, g.root->getResults());
    markDynamic(kernel, boundary);
    symbols.insert(kernel);

    mlir::Block *body = kernel.addEntryBlock();
    b.setInsertionPointToStart(body);
    mlir::IRMapping map;
    for (auto [outer, arg] : llvm::zip(inputs, body->getArguments()))
      map.map(outer, arg);
    for (mlir::Operation *c : constants)
      b.clone(*c, map);
    for (mlir::Operation *op : g.ops)
      b.clone(*op, map);
    b.create<mlir::func::ReturnOp>(g.root->getLoc(), map.lookup(g.root)->getResults());

    b.setInsertionPoint(g.root);
    auto call = b.create<mlir::func::CallOp>(g.root->getLoc(), kernel, inputs.getArrayRef());
    if (auto dims = g.root->getAttr(kResultDimsAttr))
      call->setAttr(kResultDimsAttr, dims);
    g.root->replaceAllUsesWith(call.getResults());
    for (mlir::Operation *op : llvm::reverse(g.ops))
      op->erase();
    for (mlir::Operation *c : llvm::reverse(constants))
      if (c->use_empty())
        c->erase();
  }

  // A kernel of a model with dynamic dimensions: its symbols' names, and the dims of
  // its arguments and results (`boundary`, in that order), for the kernel ABI.
  void markDynamic(mlir::func::FuncOp kernel, llvm::ArrayRef<mlir::Value> boundary) {
    auto symbolsAttr = func->getAttrOfType<mlir::ArrayAttr>(kSymbolsAttr);
    if (!symbolsAttr)
      return;
    mlir::Builder b(kernel.getContext());
    llvm::SmallVector<mlir::Attribute> names, dims;
    for (const std::string &name : sym::symbolNames(func))
      names.push_back(b.getStringAttr(name));
    for (mlir::Value v : boundary)
      dims.push_back(kernelDims(b, v));
    kernel->setAttr(kSymbolNamesAttr, b.getArrayAttr(names));
    llvm::SmallVector<int64_t> ranges;
    for (sym::SymbolRange r : sym::symbolRanges(func))
      ranges.append({r.min, r.max});
    kernel->setAttr(kSymbolRangesAttr, b.getDenseI64ArrayAttr(ranges));
    kernel->setAttr(kKernelDimsAttr, b.getArrayAttr(dims));
  }

  // Outputs must own their buffers: an output that is (an alias of) an argument, or of a
  // value another output already owns, is copied by a kernel of its own.
  void copyOutputsThatShareBuffers() {
    auto ret = llvm::cast<mlir::func::ReturnOp>(func.getBody().front().getTerminator());
    llvm::SmallPtrSet<mlir::Value, 8> owned;
    // Write-backs go last: an output copied from a state or input argument must read
    // it before its new value lands there.
    llvm::SmallVector<mlir::OpOperand *> operands;
    for (mlir::OpOperand &operand : ret->getOpOperands())
      if (!isWriteback(operand.getOperandNumber()))
        operands.push_back(&operand);
    for (mlir::OpOperand &operand : ret->getOpOperands())
      if (isWriteback(operand.getOperandNumber()))
        operands.push_back(&operand);
    for (mlir::OpOperand *operandPtr : operands) {
      mlir::OpOperand &operand = *operandPtr;
      mlir::Value root = operand.get();
      while (root.getDefiningOp() && isAliasOp(root.getDefiningOp()))
        root = root.getDefiningOp()->getOperand(0);
      // A constant has no buffer until a kernel writes it.
      bool constant = root.getDefiningOp() && isClonedIntoUsers(root.getDefiningOp());
      // Guards only read their value after the last step, from whatever buffer holds it.
      unsigned i = operand.getOperandNumber();
      bool guard = func.getResultAttr(i, kGuardAttr) != nullptr;
      if (isWriteback(i)) {
        // Unchanged state needs no write; changed state is copied in at the very end.
        if (!isOwnArgument(root, i))
          operand.set(copyOf(operand.get(), ret));
        continue;
      }
      bool shared = !guard && (llvm::isa<mlir::BlockArgument>(root) || !owned.insert(root).second);
      if (constant) {
        mlir::Value value = operand.get();
        operand.set(materialize(value, ret));
        eraseUnusedChain(value);
      } else if (shared)
        operand.set(copyOf(operand.get(), ret));
    }
  }

  // The ops that make `v`: its views from the outermost in, then the op they view.
  static llvm::SmallVector<mlir::Operation *> viewChain(mlir::Value v) {
    llvm::SmallVector<mlir::Operation *> chain;
    for (mlir::Operation *op = v.getDefiningOp(); op;
         op = isAliasOp(op) ? op->getOperand(0).getDefiningOp() : nullptr)
      chain.push_back(op);
    return chain;
  }

  // `v` rebuilt at `b`: its viewChain cloned in order.
  static mlir::Value cloneChain(mlir::OpBuilder &b, mlir::Value v) {
    mlir::IRMapping mapping;
    for (mlir::Operation *op : llvm::reverse(viewChain(v)))
      b.clone(*op, mapping);
    return mapping.lookup(v);
  }

  // The ops of v's viewChain that nothing reads any more (the plan has no step for an
  // op outside a kernel).
  static void eraseUnusedChain(mlir::Value v) {
    for (mlir::Operation *op : viewChain(v)) {
      if (!op->use_empty())
        return;
      op->erase();
    }
  }

  /// True if `root` is the argument that write-back result `result` writes.
  bool isOwnArgument(mlir::Value root, unsigned result) {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(root);
    if (!arg)
      return false;
    if (auto fqn = func.getResultAttr(result, kWritebackAttr))
      return func.getArgAttr(arg.getArgNumber(), kStateAttr) == fqn;
    return func.getArgAttr(arg.getArgNumber(), kInputAttr) ==
           func.getResultAttr(result, kInputWritebackAttr);
  }

  bool isWriteback(unsigned result) {
    return func.getResultAttr(result, kWritebackAttr) ||
           func.getResultAttr(result, kInputWritebackAttr);
  }

  mlir::Value copyOf(mlir::Value v, mlir::Operation *before) {
    return copyKernel(v, before, false);
  }

  // An output that is a constant (torch.zeros(...) returned as it is; a splat is no
  // weight): a kernel without arguments writes it, its constant and views cloned in.
  mlir::Value materialize(mlir::Value v, mlir::Operation *before) {
    return copyKernel(v, before, true);
  }

  // A kernel returning a fresh copy of `v`: of its argument, or (`cloneSource`) of v
  // computed inside it from its constant.
  mlir::Value copyKernel(mlir::Value v, mlir::Operation *before, bool cloneSource) {
    mlir::OpBuilder b(func);
    std::string name = (func.getName() + "_kernel_" + llvm::Twine(kernelCount++)).str();
    llvm::SmallVector<mlir::Type> args;
    if (!cloneSource)
      args.push_back(v.getType());
    auto kernel =
        b.create<mlir::func::FuncOp>(v.getLoc(), name, b.getFunctionType(args, {v.getType()}));
    kernel.setPrivate();
    kernel->setAttr(kKernelAttr, b.getUnitAttr());
    markDynamic(kernel,
                cloneSource ? llvm::ArrayRef<mlir::Value>{v} : llvm::ArrayRef<mlir::Value>{v, v});
    symbols.insert(kernel);
    mlir::Block *body = kernel.addEntryBlock();
    b.setInsertionPointToStart(body);
    mlir::Value source = cloneSource ? cloneChain(b, v) : body->getArgument(0);
    // An explicit copy into a fresh tensor: a kernel returning its argument would leave
    // bufferization nothing to turn into the output buffer.
    auto type = llvm::cast<mlir::RankedTensorType>(v.getType());
    llvm::SmallVector<mlir::Value> sizes;
    for (int64_t k = 0; k < type.getRank(); ++k)
      if (type.isDynamicDim(k))
        sizes.push_back(b.create<mlir::tensor::DimOp>(v.getLoc(), source, k));
    mlir::Value empty =
        b.create<mlir::tensor::EmptyOp>(v.getLoc(), type.getShape(), type.getElementType(), sizes);
    auto copy = b.create<mlir::linalg::CopyOp>(v.getLoc(), source, empty);
    b.create<mlir::func::ReturnOp>(v.getLoc(), copy.getResult(0));
    b.setInsertionPoint(before);
    auto call = b.create<mlir::func::CallOp>(
        v.getLoc(), kernel, cloneSource ? mlir::ValueRange{} : mlir::ValueRange{v});
    if (mlir::ArrayAttr dims = sym::dimsAttrOf(v))
      call->setAttr(kResultDimsAttr, b.getArrayAttr({dims}));
    return call.getResult(0);
  }

  mlir::func::FuncOp func;
  mlir::SymbolTable &symbols;
  std::vector<Group> groups;
  llvm::DenseMap<mlir::Operation *, size_t> groupOf;
  unsigned kernelCount = 0;
};

struct FormKernelsPass : impl::FormKernelsPassBase<FormKernelsPass> {
  void runOnOperation() override {
    mlir::SymbolTable symbols(getOperation());
    llvm::SmallVector<mlir::func::FuncOp> models;
    for (auto func : getOperation().getOps<mlir::func::FuncOp>())
      if (func.isPublic() && !func->hasAttr(kKernelAttr))
        models.push_back(func);
    for (auto func : models)
      KernelOutliner(func, symbols).run();
  }
};

} // namespace

bool isAliasOp(mlir::Operation *op) { return op->getName().getStringRef() == "prim.reshape"; }

bool isSizeArithmetic(mlir::Operation *op) {
  return op->getNumResults() == 1 && op->getResult(0).getType().isIndex() &&
         llvm::all_of(op->getOperandTypes(), [](mlir::Type t) { return t.isIndex(); });
}

} // namespace pt2c
