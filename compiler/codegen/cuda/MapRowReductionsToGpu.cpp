// pt2c-map-row-reductions-to-gpu: see GpuPasses.h. A reduction linalg.generic (softmax's
// max and sum of exp, layer norm's mean and variance, a mean over H x W, a row times a
// matrix) becomes one gpu.launch with a block per output element: the block's threads
// stride over the reduced elements (neighbouring threads read neighbouring elements when
// the reduced dimensions are innermost), each accumulating its share in a register, and
// gpu.all_reduce (warp shuffles, then one value per warp through shared memory; lowered
// by convert-gpu-to-nvvm) combines the partial results. Thread 0 folds the total into
// the output's initial value: the value of the fill just before the reduction (which
// then goes), else the output as loaded. An elementwise loop nest right after the
// reduction that reads its output one element per output (a mean's division and its
// conversion to f16, which kernel formation put in the reduction's kernel) becomes the
// launch's epilogue: thread 0 computes it for its row from the total it just stored.
#include "compiler/codegen/cuda/GpuPasses.h"

#include "compiler/codegen/cuda/ClonePayload.h"

#include <limits>

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace pt2c {

#define GEN_PASS_DEF_MAPROWREDUCTIONSTOGPUPASS
#include "compiler/codegen/cuda/Passes.h.inc"

namespace {

using mlir::gpu::AllReduceOperation;

// Fewer reduced elements than this stay a loop in one thread (the parallel dimensions
// then give the parallelism): a block would be mostly idle. Not for a row times a
// matrix (match()).
constexpr int64_t kMinReducedElements = 32;
constexpr int64_t kWarp = 32;
constexpr int64_t kGridLimit = std::numeric_limits<int32_t>::max();

// The gpu.all_reduce operation of a combining op, if it is one of them.
std::optional<AllReduceOperation> reductionKind(mlir::Operation *op) {
  return llvm::TypeSwitch<mlir::Operation *, std::optional<AllReduceOperation>>(op)
      .Case<mlir::arith::AddFOp, mlir::arith::AddIOp>([](auto) { return AllReduceOperation::ADD; })
      .Case<mlir::arith::MulFOp, mlir::arith::MulIOp>([](auto) { return AllReduceOperation::MUL; })
      .Case([](mlir::arith::MaximumFOp) { return AllReduceOperation::MAXIMUMF; })
      .Case([](mlir::arith::MinimumFOp) { return AllReduceOperation::MINIMUMF; })
      .Case([](mlir::arith::MaxNumFOp) { return AllReduceOperation::MAXNUMF; })
      .Case([](mlir::arith::MinNumFOp) { return AllReduceOperation::MINNUMF; })
      .Case([](mlir::arith::MaxSIOp) { return AllReduceOperation::MAXSI; })
      .Case([](mlir::arith::MinSIOp) { return AllReduceOperation::MINSI; })
      .Case([](mlir::arith::MaxUIOp) { return AllReduceOperation::MAXUI; })
      .Case([](mlir::arith::MinUIOp) { return AllReduceOperation::MINUI; })
      .Case([](mlir::arith::AndIOp) { return AllReduceOperation::AND; })
      .Case([](mlir::arith::OrIOp) { return AllReduceOperation::OR; })
      .Case([](mlir::arith::XOrIOp) { return AllReduceOperation::XOR; })
      .Default([](mlir::Operation *) { return std::nullopt; });
}

// The value x with combine(x, y) == y for every y: what a thread without elements holds.
mlir::TypedAttr identity(mlir::OpBuilder &b, AllReduceOperation kind, mlir::Type type) {
  if (auto f = llvm::dyn_cast<mlir::FloatType>(type)) {
    const llvm::fltSemantics &s = f.getFloatSemantics();
    switch (kind) {
    case AllReduceOperation::ADD:
      return b.getFloatAttr(f, llvm::APFloat::getZero(s, true));
    case AllReduceOperation::MUL:
      return b.getFloatAttr(f, 1.0);
    case AllReduceOperation::MAXIMUMF:
    case AllReduceOperation::MAXNUMF:
      return b.getFloatAttr(f, llvm::APFloat::getInf(s, true));
    default:
      return b.getFloatAttr(f, llvm::APFloat::getInf(s, false));
    }
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  llvm::APInt value;
  switch (kind) {
  case AllReduceOperation::MUL:
    value = llvm::APInt(bits, 1);
    break;
  case AllReduceOperation::MAXSI:
    value = llvm::APInt::getSignedMinValue(bits);
    break;
  case AllReduceOperation::MINSI:
    value = llvm::APInt::getSignedMaxValue(bits);
    break;
  case AllReduceOperation::MINUI:
  case AllReduceOperation::AND:
    value = llvm::APInt::getAllOnes(bits);
    break;
  default:
    value = llvm::APInt::getZero(bits);
    break; // ADD, MAXUI, OR, XOR
  }
  return b.getIntegerAttr(type, value);
}

// What a row reduction is made of; see match().
struct RowReduction {
  mlir::linalg::GenericOp generic;
  mlir::Operation *combiner; // yields combine(out, value)
  AllReduceOperation kind;
  llvm::SmallVector<unsigned> parallelDims, reducedDims;
  llvm::SmallVector<int64_t> ranges; // static trip count per loop dimension
  int64_t rows = 1, reduced = 1;
};

// A generic with one output and at least kMinReducedElements reduced elements (any
// number for a row times a matrix) whose payload yields combine(out, value) with `out`
// used nowhere else, so that the reduced elements can be combined in any order. Each
// input that reads reduced elements reads them per output (indexed by every parallel
// dimension of more than one iteration) or the same ones for every output (by none of
// them: a row times a matrix, whose row every block then reads from cache).
// Contractions (a GEMM fallback: an operand reused by some outputs but not all) keep the
// thread-per-output mapping.
std::optional<RowReduction> match(mlir::linalg::GenericOp generic) {
  if (!generic.hasPureBufferSemantics() || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() == 0)
    return std::nullopt;
  RowReduction r{generic, nullptr, AllReduceOperation::ADD, {}, {}, {}};
  for (int64_t range : generic.getStaticLoopRanges()) {
    if (mlir::ShapedType::isDynamic(range))
      return std::nullopt;
    r.ranges.push_back(range);
  }
  for (auto [d, type] : llvm::enumerate(generic.getIteratorTypesArray())) {
    bool isReduced = type == mlir::utils::IteratorType::reduction;
    (isReduced ? r.reducedDims : r.parallelDims).push_back(d);
    (isReduced ? r.reduced : r.rows) *= r.ranges[d];
  }
  if (r.rows < 1 || r.rows > kGridLimit)
    return std::nullopt;

  // The output is indexed by exactly the parallel dimensions: one output per block.
  mlir::OpOperand *init = generic.getDpsInitOperand(0);
  mlir::AffineMap outMap = generic.getMatchingIndexingMap(init);
  if (!outMap.isProjectedPermutation() || outMap.getNumResults() != r.parallelDims.size())
    return std::nullopt;
  llvm::SmallVector<unsigned> rowDims; // the parallel dimensions that tell rows apart
  for (unsigned d : r.parallelDims)
    if (r.ranges[d] > 1)
      rowDims.push_back(d);
  bool sharedRow = false;
  for (mlir::OpOperand *input : generic.getDpsInputOperands()) {
    mlir::AffineMap map = generic.getMatchingIndexingMap(input);
    auto reads = [&](unsigned d) { return map.isFunctionOfDim(d); };
    bool readsReduced = llvm::any_of(r.reducedDims, reads);
    bool perOutput = llvm::all_of(rowDims, reads);
    bool shared = llvm::none_of(rowDims, reads);
    if (readsReduced && !perOutput && !shared)
      return std::nullopt;
    sharedRow |= readsReduced && shared && !rowDims.empty();
  }
  // A row times a matrix takes a block per output however short its rows: one thread
  // per output would recompute the row's producer (a squeeze-excitation gate's SiLU,
  // fused in) for every output, accumulating through memory (EfficientNet-B0 fp16's
  // [1, 28] x [672, 28] gates: 11 us each against 2 for cuBLAS's GEMV).
  if (r.reduced < kMinReducedElements && !sharedRow)
    return std::nullopt;

  mlir::Block *body = generic.getBody();
  mlir::BlockArgument out = generic.getMatchingBlockArgument(init);
  mlir::Type type = out.getType();
  if (!type.isIntOrFloat() ||
      (type.getIntOrFloatBitWidth() != 32 && type.getIntOrFloatBitWidth() != 64))
    return std::nullopt; // warp shuffles move 32-bit words
  mlir::Operation *combiner = body->getTerminator()->getOperand(0).getDefiningOp();
  if (!combiner || combiner->getBlock() != body || combiner->getNumOperands() != 2 ||
      !out.hasOneUse() || out.getUses().begin()->getOwner() != combiner)
    return std::nullopt;
  auto kind = reductionKind(combiner);
  if (!kind)
    return std::nullopt;
  r.combiner = combiner;
  r.kind = *kind;
  return r;
}

// Row-major digits of `flat` over the loop dimensions `dims`, into `ivs`.
void delinearize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value flat,
                 llvm::ArrayRef<unsigned> dims, llvm::ArrayRef<int64_t> ranges,
                 llvm::SmallVectorImpl<mlir::Value> &ivs) {
  for (unsigned d : llvm::reverse(dims.drop_front())) {
    mlir::Value size = b.create<mlir::arith::ConstantIndexOp>(loc, ranges[d]);
    ivs[d] = b.create<mlir::arith::RemUIOp>(loc, flat, size);
    flat = b.create<mlir::arith::DivUIOp>(loc, flat, size);
  }
  ivs[dims.front()] = flat; // below its range: no remainder
}

// The indices `map` gives for the loop indices `ivs` (null where the map does not
// need them: the reduced dimensions, for the output).
llvm::SmallVector<mlir::Value> indicesOf(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::AffineMap map, llvm::ArrayRef<mlir::Value> ivs) {
  llvm::SmallVector<mlir::Value> indices;
  for (mlir::AffineExpr e : map.getResults()) {
    if (auto dim = llvm::dyn_cast<mlir::AffineDimExpr>(e)) {
      indices.push_back(ivs[dim.getPosition()]);
      continue;
    }
    llvm::SmallVector<mlir::Value> operands;
    for (auto [d, iv] : llvm::enumerate(ivs))
      operands.push_back(iv ? iv : b.create<mlir::arith::ConstantIndexOp>(loc, 0).getResult());
    indices.push_back(b.create<mlir::affine::AffineApplyOp>(
                           loc, mlir::AffineMap::get(map.getNumDims(), 0, e), operands)
                          .getResult());
  }
  return indices;
}

mlir::Value combine(mlir::OpBuilder &b, mlir::Operation *combiner, mlir::Value acc,
                    mlir::Value value) {
  mlir::OperationState state(combiner->getLoc(), combiner->getName());
  state.addOperands({acc, value});
  state.addTypes(acc.getType());
  state.addAttributes(combiner->getAttrs());
  return b.create(state)->getResult(0);
}

// The fill that sets the whole output just before the reduction (constants aside), if
// any: thread 0 then combines the fill value itself, and the fill, a launch of its own,
// goes (a mean over H x W was two launches for one reduction).
mlir::linalg::FillOp initialFill(mlir::linalg::GenericOp generic) {
  mlir::Value target = generic.getDpsInitOperand(0)->get();
  for (mlir::Operation *op = generic->getPrevNode(); op; op = op->getPrevNode()) {
    if (op->hasTrait<mlir::OpTrait::ConstantLike>())
      continue;
    auto fill = llvm::dyn_cast<mlir::linalg::FillOp>(op);
    if (fill && fill.getOutputs()[0] == target && fill.getInputs()[0].getType().isIntOrFloat())
      return fill;
    return {};
  }
  return {};
}

// The buffer a view-like op (subview, reshape, cast) views, through any chain of them.
mlir::Value viewedBuffer(mlir::Value v) {
  while (auto view = v.getDefiningOp<mlir::ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

// The input of `epilogue` that reads `target` through a permutation of its loops, if
// it is the only operand on target's buffer: another read of it (at another index, or
// through a view) could be of a row another block has not stored yet.
mlir::OpOperand *readerOf(mlir::linalg::GenericOp epilogue, mlir::Value target) {
  mlir::OpOperand *reader = nullptr;
  for (mlir::OpOperand &operand : epilogue->getOpOperands()) {
    if (viewedBuffer(operand.get()) != viewedBuffer(target))
      continue;
    if (reader || operand.get() != target || epilogue.isDpsInit(&operand) ||
        !epilogue.getMatchingIndexingMap(&operand).isPermutation())
      return nullptr;
    reader = &operand;
  }
  return reader;
}

// The elementwise loop nest that reads the reduction's output, if it comes right after
// the reduction (constants and allocations aside) and can run as its epilogue: all
// parallel, reading the output through a permutation of its loops (so that each of its
// iterations belongs to one output element: the row whose thread 0 runs it), and
// writing no buffer the reduction reads (the other blocks may still be reading it).
struct Epilogue {
  mlir::linalg::GenericOp generic;
  mlir::OpOperand *reader; // its read of the reduction's output (readerOf)
};
std::optional<Epilogue> epilogueOf(mlir::linalg::GenericOp generic) {
  mlir::Operation *next = generic->getNextNode();
  while (next && (next->hasTrait<mlir::OpTrait::ConstantLike>() ||
                  llvm::isa<mlir::memref::AllocOp, mlir::memref::AllocaOp>(next)))
    next = next->getNextNode();
  auto epilogue = llvm::dyn_cast_if_present<mlir::linalg::GenericOp>(next);
  if (!epilogue || !epilogue.hasPureBufferSemantics() ||
      epilogue.getNumParallelLoops() != epilogue.getNumLoops())
    return std::nullopt;
  mlir::OpOperand *reader = readerOf(epilogue, generic.getDpsInitOperand(0)->get());
  if (!reader)
    return std::nullopt;
  for (mlir::OpOperand &init : epilogue.getDpsInitsMutable())
    for (mlir::OpOperand *input : generic.getDpsInputOperands())
      if (viewedBuffer(input->get()) == viewedBuffer(init.get()))
        return std::nullopt;
  return Epilogue{epilogue, reader};
}

// Thread 0's epilogue for the output element at `outIndices`, whose value is `total`:
// the epilogue's loop indices are those of that element (its read of the reduction's
// output is a permutation), its other operands are loaded there, its results stored.
void emitEpilogue(mlir::OpBuilder &b, mlir::Location loc, const Epilogue &e,
                  llvm::ArrayRef<mlir::Value> outIndices, mlir::Value total) {
  mlir::linalg::GenericOp epilogue = e.generic;
  mlir::OpOperand *reader = e.reader;
  mlir::AffineMap readMap = epilogue.getMatchingIndexingMap(reader);
  llvm::SmallVector<mlir::Value> ivs(epilogue.getNumLoops());
  for (auto [j, index] : llvm::enumerate(outIndices))
    ivs[readMap.getDimPosition(j)] = index;
  mlir::IRMapping mapping;
  for (mlir::OpOperand &operand : epilogue->getOpOperands()) {
    mlir::BlockArgument arg = epilogue.getMatchingBlockArgument(&operand);
    if (&operand == reader)
      mapping.map(arg, total);
    else if (!arg.use_empty())
      mapping.map(arg, b.create<mlir::memref::LoadOp>(
                           loc, operand.get(),
                           indicesOf(b, loc, epilogue.getMatchingIndexingMap(&operand), ivs)));
  }
  clonePayload(b, epilogue, ivs, mapping);
  for (auto [init, value] :
       llvm::zip(epilogue.getDpsInitsMutable(), epilogue.getBody()->getTerminator()->getOperands()))
    b.create<mlir::memref::StoreOp>(loc, mapping.lookupOrDefault(value), init.get(),
                                    indicesOf(b, loc, epilogue.getMatchingIndexingMap(&init), ivs));
}

void rewrite(const RowReduction &r, int64_t blockSize) {
  mlir::linalg::GenericOp generic = r.generic;
  mlir::linalg::FillOp fill = initialFill(generic); // before ops are added in between
  std::optional<Epilogue> epilogue = epilogueOf(generic);
  mlir::Location loc = generic.getLoc();
  // At the epilogue, after the allocation of its output (nothing between the two reads
  // or writes buffers).
  mlir::OpBuilder b(epilogue ? epilogue->generic.getOperation() : generic.getOperation());
  auto index = [&](int64_t v) { return b.create<mlir::arith::ConstantIndexOp>(loc, v); };
  int64_t threads = std::min(blockSize, (r.reduced + kWarp - 1) / kWarp * kWarp);
  mlir::Value one = index(1);
  auto launch =
      b.create<mlir::gpu::LaunchOp>(loc, index(r.rows), one, one, index(threads), one, one);
  mlir::Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  b.create<mlir::gpu::TerminatorOp>(loc);
  b.setInsertionPointToStart(&body);

  unsigned numLoops = r.ranges.size();
  llvm::SmallVector<mlir::Value> ivs(numLoops);
  if (!r.parallelDims.empty())
    delinearize(b, loc, launch.getBlockIds().x, r.parallelDims, r.ranges, ivs);
  mlir::Value thread = launch.getThreadIds().x;
  mlir::BlockArgument out = generic.getMatchingBlockArgument(generic.getDpsInitOperand(0));
  mlir::Value accInit = b.create<mlir::arith::ConstantOp>(loc, identity(b, r.kind, out.getType()));

  // This thread's share: reduced elements thread, thread + threads, ...
  auto loop = b.create<mlir::scf::ForOp>(
      loc, thread, index(r.reduced), index(threads), mlir::ValueRange{accInit},
      [&](mlir::OpBuilder &lb, mlir::Location l, mlir::Value flat, mlir::ValueRange iter) {
        llvm::SmallVector<mlir::Value> all(ivs);
        delinearize(lb, l, flat, r.reducedDims, r.ranges, all);
        mlir::IRMapping mapping;
        for (mlir::OpOperand *input : generic.getDpsInputOperands()) {
          mlir::Value v = input->get();
          if (llvm::isa<mlir::MemRefType>(v.getType()))
            v = lb.create<mlir::memref::LoadOp>(
                l, v, indicesOf(lb, l, generic.getMatchingIndexingMap(input), all));
          mapping.map(generic.getMatchingBlockArgument(input), v);
        }
        clonePayload(lb, generic, all, mapping, /*skip=*/r.combiner);
        mlir::Value value = r.combiner->getOperand(0) == out ? r.combiner->getOperand(1)
                                                             : r.combiner->getOperand(0);
        lb.create<mlir::scf::YieldOp>(
            l, combine(lb, r.combiner, iter[0], mapping.lookupOrDefault(value)));
      });
  auto total = b.create<mlir::gpu::AllReduceOp>(
      loc, loop.getResult(0), mlir::gpu::AllReduceOperationAttr::get(b.getContext(), r.kind),
      /*uniform=*/true);

  // Thread 0 folds the row's total into the output.
  mlir::Value first =
      b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::eq, thread, index(0));
  auto ifFirst = b.create<mlir::scf::IfOp>(loc, first, /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifFirst.thenBlock());
  mlir::Value target = generic.getDpsInitOperand(0)->get();
  auto outIndices =
      indicesOf(b, loc, generic.getMatchingIndexingMap(generic.getDpsInitOperand(0)), ivs);
  mlir::Value old = fill ? fill.getInputs()[0]
                         : b.create<mlir::memref::LoadOp>(loc, target, outIndices).getResult();
  mlir::Value result = combine(b, r.combiner, old, total);
  b.create<mlir::memref::StoreOp>(loc, result, target, outIndices);
  if (epilogue) {
    emitEpilogue(b, loc, *epilogue, outIndices, result);
    epilogue->generic.erase();
  }
  generic.erase();
  if (fill)
    fill.erase();
}

struct MapRowReductionsToGpuPass : impl::MapRowReductionsToGpuPassBase<MapRowReductionsToGpuPass> {
  using MapRowReductionsToGpuPassBase::MapRowReductionsToGpuPassBase;

  void runOnOperation() override {
    if (blockSize < kWarp || blockSize > 1024 || blockSize % kWarp != 0) {
      getOperation().emitError() << "block-size must be a multiple of 32 in [32, 1024], got "
                                 << blockSize;
      return signalPassFailure();
    }
    if (getOperation().isExternal())
      return;
    // Named contractions (a [1, K] x [N, K] product is linalg.matmul_transpose_b) are
    // generics with a name: in generic form they are matched like the others.
    llvm::SmallVector<mlir::linalg::LinalgOp> named;
    for (auto op : getOperation().getBody().front().getOps<mlir::linalg::LinalgOp>())
      if (!llvm::isa<mlir::linalg::GenericOp>(op) && op.getNumReductionLoops() > 0)
        named.push_back(op);
    mlir::IRRewriter rewriter(&getContext());
    for (mlir::linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)mlir::linalg::generalizeNamedOp(rewriter, op);
    }
    llvm::SmallVector<RowReduction> found;
    for (auto generic : getOperation().getBody().front().getOps<mlir::linalg::GenericOp>())
      if (auto r = match(generic))
        found.push_back(*r);
    for (const RowReduction &r : found)
      rewrite(r, blockSize);
  }
};

} // namespace

} // namespace pt2c
