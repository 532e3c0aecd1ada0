// pt2c-merge-small-gpu-launches: see Passes.td. A kernel function's loop nests each
// become a launch; when they are small (a decoder's one-token step: a row norm of 512
// elements, RoPE on 64, the scalar bookkeeping of a position), the launch latency is the
// step's whole cost. Consecutive small launches of one function become one single-block
// launch: a barrier between the parts (every global write of a part is visible to the
// block after it), each part guarded to its own thread count, and the blocks of a
// multi-block part run one after another by every thread (blocks of a launch are
// independent by CUDA's rules, so any order is correct). Each element is computed by the
// same ops as before, so results are bit-identical.
#include "compiler/codegen/cuda/GpuPasses.h"

#include <array>
#include <optional>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace pt2c {

#define GEN_PASS_DEF_MERGESMALLGPULAUNCHESPASS
#include "compiler/codegen/cuda/Passes.h.inc"

namespace {

using Dims = std::array<int64_t, 3>;

int64_t product(const Dims &d) { return d[0] * d[1] * d[2]; }

struct Part {
  mlir::gpu::LaunchOp launch;
  Dims grid, block;
  bool syncs; // its threads meet (barriers, all-reduces, shuffles, shared memory)
};

// A launch's sizes are index arithmetic on constants (convert-parallel-loops-to-gpu
// leaves affine.apply of the loop bounds); fold it here rather than canonicalizing the
// function, which would also rewrite the launch bodies.
std::optional<int64_t> foldIndex(mlir::Value v, int depth = 0) {
  if (std::optional<int64_t> c = mlir::getConstantIntValue(v))
    return c;
  mlir::Operation *op = v.getDefiningOp();
  if (!op || depth > 8 || op->getNumResults() != 1 || op->getNumRegions() != 0)
    return std::nullopt;
  llvm::SmallVector<mlir::Attribute> operands;
  for (mlir::Value operand : op->getOperands()) {
    std::optional<int64_t> c = foldIndex(operand, depth + 1);
    if (!c || !operand.getType().isIntOrIndex())
      return std::nullopt;
    operands.push_back(mlir::IntegerAttr::get(operand.getType(), *c));
  }
  llvm::SmallVector<mlir::OpFoldResult> results;
  if (mlir::failed(op->fold(operands, results)) || results.size() != 1)
    return std::nullopt;
  // x * 1 and the like fold to an operand.
  if (auto value = mlir::dyn_cast_if_present<mlir::Value>(results[0]))
    return foldIndex(value, depth + 1);
  auto attr = mlir::dyn_cast_if_present<mlir::IntegerAttr>(
      mlir::dyn_cast_if_present<mlir::Attribute>(results[0]));
  if (!attr)
    return std::nullopt;
  return attr.getInt();
}

std::optional<Dims> constantDims(mlir::Value x, mlir::Value y, mlir::Value z) {
  Dims dims;
  mlir::Value values[3] = {x, y, z};
  for (int i = 0; i < 3; ++i) {
    std::optional<int64_t> c = foldIndex(values[i]);
    if (!c || *c < 1)
      return std::nullopt;
    dims[i] = *c;
  }
  return dims;
}

// Ops after which a part's threads depend on each other, or whose semantics we do not
// model (pt2c's fused kernels write LLVM/NVVM ops directly).
bool threadsMeet(mlir::gpu::LaunchOp launch) {
  if (!launch.getWorkgroupAttributions().empty())
    return true;
  bool meet = false;
  launch.getBody().walk([&](mlir::Operation *op) {
    llvm::StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
    // Ids and sizes read by ops rather than the launch's arguments would see the merged
    // launch's: such a part keeps its own block and grid.
    if (mlir::isa<mlir::gpu::BarrierOp, mlir::gpu::AllReduceOp, mlir::gpu::ShuffleOp,
                  mlir::gpu::SubgroupReduceOp, mlir::gpu::BlockIdOp, mlir::gpu::BlockDimOp,
                  mlir::gpu::GridDimOp, mlir::gpu::GlobalIdOp>(op) ||
        dialect == "llvm" || dialect == "nvvm")
      meet = true;
  });
  return meet;
}

std::optional<Part> mergeablePart(mlir::gpu::LaunchOp launch, int64_t maxThreads) {
  if (!launch.getAsyncDependencies().empty() || launch.getAsyncToken() ||
      launch.getDynamicSharedMemorySize() || launch.hasClusterSize() ||
      !launch.getPrivateAttributions().empty() || !launch.getBody().hasOneBlock())
    return std::nullopt;
  std::optional<Dims> grid =
      constantDims(launch.getGridSizeX(), launch.getGridSizeY(), launch.getGridSizeZ());
  std::optional<Dims> block =
      constantDims(launch.getBlockSizeX(), launch.getBlockSizeY(), launch.getBlockSizeZ());
  if (!grid || !block || product(*grid) * product(*block) > maxThreads)
    return std::nullopt;
  Part part{launch, *grid, *block, threadsMeet(launch)};
  // Threads that meet need their whole block, in one launch of one block.
  if (part.syncs && product(part.grid) != 1)
    return std::nullopt;
  return part;
}

// The merged block: the largest of each dimension; a part whose threads meet must have
// exactly that block (a barrier that some threads skip is undefined).
std::optional<Dims> mergedBlock(llvm::ArrayRef<Part> parts) {
  Dims block = {1, 1, 1};
  for (const Part &p : parts)
    for (int i = 0; i < 3; ++i)
      block[i] = std::max(block[i], p.block[i]);
  for (const Part &p : parts)
    if (p.syncs && p.block != block)
      return std::nullopt;
  return block;
}

// Ops that may sit between two merged launches: they are moved above the first one, so
// their operands must be defined above it or by ops moved with them.
bool isHoistable(mlir::Operation *op, mlir::Operation *first,
                 const llvm::SmallPtrSetImpl<mlir::Operation *> &hoisted) {
  if (op->getNumRegions() != 0)
    return false;
  if (!mlir::isa<mlir::memref::AllocOp, mlir::memref::AllocaOp>(op) &&
      !mlir::isMemoryEffectFree(op))
    return false;
  for (mlir::Value operand : op->getOperands()) {
    mlir::Operation *def = operand.getDefiningOp();
    if (def && def->getBlock() == first->getBlock() && !def->isBeforeInBlock(first) &&
        !hoisted.contains(def))
      return false;
  }
  return true;
}

mlir::Value indexConstant(mlir::OpBuilder &b, mlir::Location loc, int64_t v) {
  return b.create<mlir::arith::ConstantIndexOp>(loc, v);
}

// Clones `part`'s body into the merged launch at b's insertion point.
void emitPart(mlir::OpBuilder &b, Part part, const Dims &block, mlir::gpu::LaunchOp merged,
              unsigned firstAttribution) {
  mlir::Location loc = part.launch.getLoc();
  mlir::gpu::LaunchOp old = part.launch;
  mlir::IRMapping map;
  mlir::gpu::KernelDim3 tids = merged.getThreadIds();
  mlir::Value newThreads[3] = {tids.x, tids.y, tids.z};
  mlir::gpu::KernelDim3 oldThreads = old.getThreadIds(), oldBlockIds = old.getBlockIds();
  mlir::gpu::KernelDim3 oldGrid = old.getGridSize();
  mlir::Value oldT[3] = {oldThreads.x, oldThreads.y, oldThreads.z};
  mlir::Value oldB[3] = {oldBlockIds.x, oldBlockIds.y, oldBlockIds.z};
  mlir::Value oldG[3] = {oldGrid.x, oldGrid.y, oldGrid.z};
  mlir::gpu::KernelDim3 oldBlockArgs = old.getBlockSize();
  mlir::Value oldBs[3] = {oldBlockArgs.x, oldBlockArgs.y, oldBlockArgs.z};
  for (int i = 0; i < 3; ++i) {
    map.map(oldT[i], newThreads[i]);
    map.map(oldG[i], indexConstant(b, loc, part.grid[i]));
    map.map(oldBs[i], indexConstant(b, loc, part.block[i]));
  }
  for (auto [i, arg] : llvm::enumerate(old.getWorkgroupAttributions()))
    map.map(arg, merged.getWorkgroupAttributions()[firstAttribution + i]);

  mlir::OpBuilder::InsertionGuard guard(b);
  // Threads beyond this part's block skip it.
  if (part.block != block) {
    mlir::Value inside;
    for (int i = 0; i < 3; ++i) {
      if (part.block[i] == block[i])
        continue;
      mlir::Value lt =
          b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ult, newThreads[i],
                                        indexConstant(b, loc, part.block[i]));
      inside = inside ? b.create<mlir::arith::AndIOp>(loc, inside, lt).getResult() : lt;
    }
    auto ifOp = b.create<mlir::scf::IfOp>(loc, inside, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }
  // Every thread runs the part's blocks in turn.
  if (product(part.grid) == 1) {
    for (int i = 0; i < 3; ++i)
      map.map(oldB[i], indexConstant(b, loc, 0));
  } else {
    auto loop = b.create<mlir::scf::ForOp>(loc, indexConstant(b, loc, 0),
                                           indexConstant(b, loc, product(part.grid)),
                                           indexConstant(b, loc, 1));
    b.setInsertionPointToStart(loop.getBody());
    mlir::Value linear = loop.getInductionVar();
    mlir::Value gx = indexConstant(b, loc, part.grid[0]);
    mlir::Value gxy = indexConstant(b, loc, part.grid[0] * part.grid[1]);
    map.map(oldB[0], b.create<mlir::arith::RemUIOp>(loc, linear, gx));
    mlir::Value rest = b.create<mlir::arith::DivUIOp>(loc, linear, gx);
    map.map(oldB[1],
            b.create<mlir::arith::RemUIOp>(loc, rest, indexConstant(b, loc, part.grid[1])));
    map.map(oldB[2], b.create<mlir::arith::DivUIOp>(loc, linear, gxy));
  }
  for (mlir::Operation &op : old.getBody().front().without_terminator())
    b.clone(op, map);
}

void merge(llvm::ArrayRef<Part> parts, const Dims &block) {
  mlir::gpu::LaunchOp first = parts.front().launch;
  mlir::OpBuilder b(first.getOperation());
  mlir::Location loc = first.getLoc();
  llvm::SmallVector<mlir::Type> attributions;
  for (Part p : parts)
    for (mlir::BlockArgument arg : p.launch.getWorkgroupAttributions())
      attributions.push_back(arg.getType());
  mlir::Value one = indexConstant(b, loc, 1);
  auto merged = b.create<mlir::gpu::LaunchOp>(
      loc, one, one, one, indexConstant(b, loc, block[0]), indexConstant(b, loc, block[1]),
      indexConstant(b, loc, block[2]), /*dynamicSharedMemorySize=*/nullptr,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/mlir::ValueRange{}, attributions);
  b.setInsertionPointToStart(&merged.getBody().front());
  unsigned attribution = 0;
  for (auto [i, constPart] : llvm::enumerate(parts)) {
    Part part = constPart;
    if (i > 0)
      b.create<mlir::gpu::BarrierOp>(loc);
    emitPart(b, part, block, merged, attribution);
    attribution += part.launch.getWorkgroupAttributions().size();
  }
  b.create<mlir::gpu::TerminatorOp>(loc);
  for (Part p : parts)
    p.launch.erase();
}

void mergeInBlock(mlir::Block &block, int64_t maxThreads) {
  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation &op : block)
    ops.push_back(&op);
  llvm::SmallVector<llvm::SmallVector<Part>> runs;
  llvm::SmallVector<Part> run;
  llvm::SmallPtrSet<mlir::Operation *, 16> hoisted; // since the run's first launch
  auto close = [&] {
    if (run.size() > 1)
      runs.push_back(run);
    run.clear();
    hoisted.clear();
  };
  for (mlir::Operation *op : ops) {
    if (auto launch = mlir::dyn_cast<mlir::gpu::LaunchOp>(op)) {
      std::optional<Part> part = mergeablePart(launch, maxThreads);
      if (!part) {
        close();
        continue;
      }
      run.push_back(*part);
      if (run.size() > 1 && !mergedBlock(run)) {
        run.pop_back();
        close();
        run.push_back(*part);
      }
      continue;
    }
    if (!run.empty() && isHoistable(op, run.front().launch, hoisted)) {
      hoisted.insert(op); // moved above the run if the run is merged
      continue;
    }
    close();
  }
  close();
  for (llvm::SmallVector<Part> &parts : runs) {
    mlir::Operation *first = parts.front().launch;
    // Hoist what sits between the parts above the first one, in order.
    for (mlir::Operation *op = first->getNextNode(), *next = nullptr;
         op && op != parts.back().launch.getOperation(); op = next) {
      next = op->getNextNode();
      if (!mlir::isa<mlir::gpu::LaunchOp>(op))
        op->moveBefore(first);
    }
    std::optional<Dims> block = mergedBlock(parts);
    merge(parts, *block);
  }
}

struct MergeSmallGpuLaunchesPass : impl::MergeSmallGpuLaunchesPassBase<MergeSmallGpuLaunchesPass> {
  using MergeSmallGpuLaunchesPassBase::MergeSmallGpuLaunchesPassBase;
  void runOnOperation() override {
    llvm::SmallVector<mlir::Block *> blocks;
    getOperation().walk([&](mlir::Block *block) {
      if (!block->getParentOp() || !mlir::isa<mlir::gpu::LaunchOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    for (mlir::Block *block : blocks)
      mergeInBlock(*block, maxThreads);
  }
};

} // namespace

} // namespace pt2c
