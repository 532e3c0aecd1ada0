// pt2c-map-parallel-loops-to-gpu: see GpuPasses.h. The mapping is deliberately simple
// (correctness first): one flat index space per loop nest, a fixed block size, reductions
// sequential inside a thread, up to 8 bytes of neighbours a thread in pointwise nests. Better
// schedules replace it per kernel kind without changing what surrounds it: reductions over many
// elements per output arrive here as launches already (pt2c-map-row-reductions-to-gpu).
#include "compiler/codegen/cuda/DynamicBounds.h"
#include "compiler/codegen/cuda/GpuPasses.h"

#include <numeric>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace pt2c {

#define GEN_PASS_DEF_MAPPARALLELLOOPSTOGPUPASS
#include "compiler/codegen/cuda/Passes.h.inc"

namespace {

using mlir::gpu::Processor;

mlir::LogicalResult setMapping(mlir::scf::ParallelOp loop, Processor processor) {
  mlir::MLIRContext *ctx = loop.getContext();
  mlir::AffineMap identity = mlir::AffineMap::getMultiDimIdentityMap(1, ctx);
  llvm::SmallVector<mlir::gpu::ParallelLoopDimMappingAttr> mapping(
      loop.getNumLoops(),
      mlir::gpu::ParallelLoopDimMappingAttr::get(ctx, Processor::Sequential, identity, identity));
  if (processor != Processor::Sequential)
    mapping.front() =
        mlir::gpu::ParallelLoopDimMappingAttr::get(ctx, processor, identity, identity);
  return mlir::gpu::setMappingAttr(loop, mapping);
}

// Loops inside a thread run one iteration after another. convert-parallel-loops-to-gpu
// wants the parallel loops directly in a mapped loop's body mapped too (sequential), and
// those deeper inside (in an scf.for or scf.if) unmapped: it copies them into the launch
// as they are, and convert-scf-to-cf turns them into plain loops there.
mlir::LogicalResult makeNestedLoopsSequential(mlir::scf::ParallelOp mapped) {
  for (auto nested : mapped.getBody()->getOps<mlir::scf::ParallelOp>())
    if (mlir::failed(setMapping(nested, Processor::Sequential)) ||
        mlir::failed(makeNestedLoopsSequential(nested)))
      return mlir::failure();
  return mlir::success();
}

// The number of iterations, if every bound and step is a constant.
std::optional<int64_t> staticTripCount(mlir::scf::ParallelOp loop) {
  int64_t count = 1;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto l = mlir::getConstantIntValue(lb), u = mlir::getConstantIntValue(ub),
         s = mlir::getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    count *= *u > *l ? (*u - *l + *s - 1) / *s : 0;
  }
  return count;
}

// The memref accesses of a loop body, if it is straight-line code (no nested loops or
// conditionals).
std::optional<llvm::SmallVector<mlir::Operation *>> straightLineAccesses(mlir::Block *body) {
  llvm::SmallVector<mlir::Operation *> accesses;
  for (mlir::Operation &op : body->without_terminator()) {
    if (op.getNumRegions() > 0)
      return std::nullopt;
    if (llvm::isa<mlir::memref::LoadOp, mlir::memref::StoreOp>(op))
      accesses.push_back(&op);
  }
  return accesses;
}

// How many neighbouring elements of its innermost loop one thread takes (1, 2, 4, 8): as
// many as kNeighbourBytes of the widest element, where the body is straight-line code
// whose accesses that loop moves along are unit-stride in their last index and the
// loop's static trip count divides evenly. The backend then merges a thread's
// neighbouring loads and stores into vector ones (the kernel pointers are 16-byte
// aligned: GpuLLVMModule.h), and a launch has fewer blocks to schedule. 8 bytes, not
// 16: a ViT's f16 bias + GELU (197 x 1536) took 1.6 us on an H100 with 2 or 4
// neighbours, 1.8 with 8, 1.9 with 1 (thirty-third session, docs/BENCHMARKS.md).
constexpr int64_t kNeighbourBytes = 8;
int64_t elementsPerThread(mlir::scf::ParallelOp loop) {
  size_t n = loop.getNumLoops();
  auto lb = mlir::getConstantIntValue(loop.getLowerBound()[n - 1]);
  auto ub = mlir::getConstantIntValue(loop.getUpperBound()[n - 1]);
  auto step = mlir::getConstantIntValue(loop.getStep()[n - 1]);
  if (!lb || !ub || !step || *lb != 0 || *step != 1)
    return 1;
  auto accesses = straightLineAccesses(loop.getBody());
  if (!accesses)
    return 1;
  mlir::Value inner = loop.getInductionVars()[n - 1];
  int64_t widest = 0;
  for (mlir::Operation *access : *accesses) {
    auto load = llvm::dyn_cast<mlir::memref::LoadOp>(access);
    auto store = llvm::dyn_cast<mlir::memref::StoreOp>(access);
    mlir::MemRefType type = load ? load.getMemRefType() : store.getMemRefType();
    mlir::ValueRange indices = load ? load.getIndices() : store.getIndices();
    if (!llvm::is_contained(indices, inner))
      continue; // the same element for the thread's neighbours
    if (indices.back() != inner || llvm::count(indices, inner) != 1)
      return 1;
    llvm::SmallVector<int64_t> strides;
    int64_t offset;
    unsigned bits = type.getElementTypeBitWidth();
    if (mlir::failed(mlir::getStridesAndOffset(type, strides, offset)) || strides.back() != 1 ||
        bits % 8 != 0)
      return 1;
    widest = std::max<int64_t>(widest, bits / 8);
  }
  if (widest == 0 || widest > kNeighbourBytes)
    return 1;
  int64_t k = kNeighbourBytes / widest;
  while (k > 1 && *ub % k != 0)
    k /= 2;
  return k;
}

class Mapper {
public:
  Mapper(mlir::func::FuncOp func, int64_t blockSize)
      : func(func), blockSize(blockSize), ranges(sym::symbolRanges(func)),
        rewriter(func.getContext()) {}

  mlir::LogicalResult run() {
    if (mlir::failed(rewriteCopies()))
      return mlir::failure();
    llvm::SmallVector<mlir::Operation *> ops;
    for (mlir::Operation &op : func.getBody().front())
      ops.push_back(&op);
    llvm::SmallVector<mlir::Operation *> run; // top-level code outside parallel loops
    for (mlir::Operation *op : ops) {
      if (joinsRun(op, run)) {
        run.push_back(op);
        continue;
      }
      if (mlir::failed(wrapInSingleThreadLaunch(run)))
        return mlir::failure();
      run.clear();
      if (auto loop = llvm::dyn_cast<mlir::scf::ParallelOp>(op))
        if (mlir::failed(mapLoopNest(loop)))
          return mlir::failure();
    }
    return wrapInSingleThreadLaunch(run);
  }

private:
  // memref.copy (bufferization's copies into out-params) as a parallel loop of loads and
  // stores, so that it is mapped like every other loop nest.
  mlir::LogicalResult rewriteCopies() {
    llvm::SmallVector<mlir::memref::CopyOp> copies;
    func.walk([&](mlir::memref::CopyOp copy) { copies.push_back(copy); });
    for (mlir::memref::CopyOp copy : copies) {
      auto type = llvm::cast<mlir::MemRefType>(copy.getSource().getType());
      rewriter.setInsertionPoint(copy);
      mlir::Location loc = copy.getLoc();
      auto zero = rewriter.create<mlir::arith::ConstantIndexOp>(loc, 0);
      auto one = rewriter.create<mlir::arith::ConstantIndexOp>(loc, 1);
      llvm::SmallVector<mlir::Value> lbs(type.getRank(), zero), steps(type.getRank(), one), ubs;
      mlir::Value source = copy.getSource(), target = copy.getTarget();
      // A dynamic size is the source's (a view of a dynamic kernel's buffer: the loop
      // mapping bounds it).
      for (int64_t k = 0; k < type.getRank(); ++k)
        ubs.push_back(type.isDynamicDim(k)
                          ? rewriter.create<mlir::memref::DimOp>(loc, source, k).getResult()
                          : rewriter.create<mlir::arith::ConstantIndexOp>(loc, type.getDimSize(k))
                                .getResult());
      auto body = [&](mlir::OpBuilder &b, mlir::Location l, mlir::ValueRange ivs) {
        mlir::Value v = b.create<mlir::memref::LoadOp>(l, source, ivs);
        b.create<mlir::memref::StoreOp>(l, v, target, ivs);
      };
      if (type.getRank() == 0) {
        body(rewriter, loc, {});
      } else {
        rewriter.create<mlir::scf::ParallelOp>(loc, lbs, ubs, steps, body);
      }
      rewriter.eraseOp(copy);
    }
    return mlir::success();
  }

  // Whether `op` is top-level code that must run on the GPU in the current run: anything
  // that touches memory or holds regions, and pure ops computing on what the run made.
  // Allocations, constants and other pure ops stay on the host side of the launch (the
  // sink pass copies what a launch needs into it); a gpu.launch
  // (pt2c-map-row-reductions-to-gpu's) is a launch of its own.
  static bool joinsRun(mlir::Operation *op, llvm::ArrayRef<mlir::Operation *> run) {
    if (llvm::isa<mlir::scf::ParallelOp, mlir::gpu::LaunchOp, mlir::memref::AllocOp,
                  mlir::memref::DeallocOp, mlir::func::ReturnOp>(op))
      return false;
    if (!mlir::isMemoryEffectFree(op) || op->getNumRegions() > 0)
      return true;
    return llvm::any_of(op->getOperands(),
                        [&](mlir::Value v) { return llvm::is_contained(run, v.getDefiningOp()); });
  }

  // Moves `run` into `scf.parallel (%i) = (0) to (1)` mapped to one block of one thread.
  // It goes where the run's last op was, so that pure ops left among the run's ops
  // still dominate their uses.
  mlir::LogicalResult wrapInSingleThreadLaunch(llvm::ArrayRef<mlir::Operation *> run) {
    if (run.empty())
      return mlir::success();
    for (mlir::Operation *op : run)
      for (mlir::Operation *user : op->getUsers())
        if (!llvm::is_contained(run, user))
          return op->emitError() << "internal error: a value computed on the GPU is used "
                                    "outside its launch";
    mlir::Location loc = run.back()->getLoc();
    rewriter.setInsertionPointAfter(run.back());
    auto zero = rewriter.create<mlir::arith::ConstantIndexOp>(loc, 0);
    auto one = rewriter.create<mlir::arith::ConstantIndexOp>(loc, 1);
    auto loop = rewriter.create<mlir::scf::ParallelOp>(
        loc, mlir::ValueRange{zero}, mlir::ValueRange{one}, mlir::ValueRange{one},
        [](mlir::OpBuilder &, mlir::Location, mlir::ValueRange) {});
    mlir::Operation *terminator = loop.getBody()->getTerminator();
    for (mlir::Operation *op : run)
      op->moveBefore(terminator);
    if (mlir::failed(setMapping(loop, Processor::BlockX)))
      return mlir::failure();
    return makeNestedLoopsSequential(loop);
  }

  mlir::LogicalResult mapLoopNest(mlir::scf::ParallelOp loop) {
    if (loop->hasAttr(mlir::gpu::getMappingAttrName()))
      return mlir::success();
    if (loop.getNumResults() > 0)
      return loop.emitError() << "GPU lowering does not handle parallel reductions yet";
    std::optional<int64_t> trips = staticTripCount(loop);
    if (trips && *trips == 0) {
      rewriter.eraseOp(loop);
      return mlir::success();
    }
    if (trips) {
      int64_t k = elementsPerThread(loop);
      if (k > 1) {
        takeNeighbours(loop, k);
        trips = staticTripCount(loop);
      }
    }
    // Collapsing also normalizes the steps to 1, which tileParallelLoop's guard needs:
    // with noMinMaxBounds it tests `thread_iv * step + block_iv < ub` although the
    // thread's index already counts in steps, so a loop left at step k (a
    // one-dimensional nest after takeNeighbours) would leave the tail of every block
    // but the first unwritten.
    auto step = mlir::getConstantIntValue(loop.getStep()[0]);
    if (loop.getNumLoops() > 1 || !step || *step != 1) {
      // collapseParallelLoops replaces the loop with a new one at the same place.
      mlir::Operation *next = loop->getNextNode();
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0u);
      mlir::collapseParallelLoops(rewriter, loop, {all});
      loop = llvm::cast<mlir::scf::ParallelOp>(next->getPrevNode());
    }
    // A dynamic trip count (a kernel of a dynamic graph): the grid covers its bound
    // over the symbols' ranges, and the tiling's guard (index < the run's count) stops
    // the threads past the run's end. The launch stays the same from run to run.
    std::optional<int64_t> bound = trips, maxUpper;
    if (!trips) {
      auto lb = mlir::getConstantIntValue(loop.getLowerBound()[0]);
      auto step = mlir::getConstantIntValue(loop.getStep()[0]);
      maxUpper = upperBound(loop.getUpperBound()[0], ranges);
      if (!lb || !step || *step <= 0 || !maxUpper)
        return loop.emitError() << "cannot bound the iterations of this dynamic loop for a "
                                   "GPU launch";
      bound = *maxUpper > *lb ? (*maxUpper - *lb + *step - 1) / *step : 0;
      if (*bound == 0) {
        rewriter.eraseOp(loop);
        return mlir::success();
      }
    }
    int64_t tile = std::min(*bound, blockSize);
    auto [blocks, threads] = mlir::scf::tileParallelLoop(loop, {tile}, /*noMinMaxBounds=*/true);
    if (maxUpper) {
      rewriter.setInsertionPoint(blocks);
      blocks.getUpperBoundMutable().assign(
          rewriter.create<mlir::arith::ConstantIndexOp>(blocks.getLoc(), *maxUpper));
    }
    if (mlir::failed(setMapping(blocks, Processor::BlockX)) ||
        mlir::failed(setMapping(threads, Processor::ThreadX)))
      return mlir::failure();
    return makeNestedLoopsSequential(threads);
  }

  // Steps the innermost loop by k and repeats the body for the k neighbouring
  // iterations, op by op (the iterations are independent), so that their loads sit side
  // by side, and their stores.
  void takeNeighbours(mlir::scf::ParallelOp loop, int64_t k) {
    size_t n = loop.getNumLoops();
    mlir::Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);
    loop.getStepMutable()[n - 1].set(rewriter.create<mlir::arith::ConstantIndexOp>(loc, k));
    mlir::Block *body = loop.getBody();
    llvm::SmallVector<mlir::Operation *> ops;
    for (mlir::Operation &op : body->without_terminator())
      ops.push_back(&op);
    mlir::Value inner = loop.getInductionVars()[n - 1];
    rewriter.setInsertionPointToStart(body);
    std::vector<mlir::IRMapping> neighbours(k);
    for (int64_t j = 1; j < k; ++j)
      neighbours[j].map(inner,
                        rewriter.create<mlir::arith::AddIOp>(
                            loc, inner, rewriter.create<mlir::arith::ConstantIndexOp>(loc, j)));
    for (mlir::Operation *op : ops) {
      mlir::Operation *last = op;
      for (int64_t j = 1; j < k; ++j) {
        rewriter.setInsertionPointAfter(last);
        last = rewriter.clone(*op, neighbours[j]);
      }
    }
  }

  mlir::func::FuncOp func;
  int64_t blockSize;
  std::vector<sym::SymbolRange> ranges; // of a dynamic kernel's symbols
  mlir::IRRewriter rewriter;
};

struct MapParallelLoopsToGpuPass : impl::MapParallelLoopsToGpuPassBase<MapParallelLoopsToGpuPass> {
  using MapParallelLoopsToGpuPassBase::MapParallelLoopsToGpuPassBase;

  void runOnOperation() override {
    if (blockSize < 1 || blockSize > 1024) {
      getOperation().emitError() << "block-size must be in [1, 1024], got " << blockSize;
      return signalPassFailure();
    }
    if (getOperation().isExternal())
      return;
    if (mlir::failed(Mapper(getOperation(), blockSize).run()))
      signalPassFailure();
  }
};

} // namespace

} // namespace pt2c
