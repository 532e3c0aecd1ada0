#include "compiler/codegen/cuda/CudaPlan.h"

#include <algorithm>

#include "compiler/codegen/ArenaPlanner.h"
#include "compiler/codegen/PlanReader.h"
#include "llvm/ADT/StringMap.h"

namespace pt2c {
namespace {

llvm::Error fail(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "internal error: " + message.str());
}

uint64_t alignUp(uint64_t value) {
  constexpr uint64_t a = ArenaPlanner::kAlignment;
  return (value + a - 1) / a * a;
}

class Expander {
 public:
  Expander(PlanRecords& r, const LaunchTable& launches, const GemmKernelTable& gemmKernels,
           const ConvKernelTable& convKernels, const std::map<std::string, SplitKernel>& splits)
      : r(r), launches(launches), gemmKernels(gemmKernels), convKernels(convKernels),
        splits(splits) {}

  llvm::Error run(std::vector<std::string> stepKernels) {
    for (const pt2c_plan_step& step : r.steps)
      if (step.kernel >= stepKernels.size()) return fail("a step's kernel is not in the plan");
    splitSteps(stepKernels);
    temporaryBase = alignUp(r.arenaSize);
    for (size_t i = 0; i < r.steps.size(); ++i) {
      const std::string& name = stepKernels[r.steps[i].kernel];
      auto gemm = gemmKernels.gemms.find(name);
      auto conv = convKernels.convs.find(name);
      if (conv != convKernels.convs.end()) {
        pt2c_plan_conv c = conv->second.conv;
        std::vector<uint32_t> args = convArgs(i, stepKernels, conv->second, c);
        bool fused = c.epilogue != PT2C_CONV_EPILOGUE_NONE;
        auto fallback = libraryStep(PT2C_STEP_CONV, r.convs.size(), args, i, fused, stepKernels);
        if (!fallback) return fallback.takeError();
        c.num_fallback_steps = *fallback;
        r.convs.push_back(c);
        if (fused) ++i;
        continue;
      }
      if (gemm == gemmKernels.gemms.end()) {
        if (auto err = expand(r.steps[i], name)) return err;
        continue;
      }
      pt2c_plan_gemm g = gemm->second.gemm;
      std::vector<uint32_t> args = gemmArgs(i, stepKernels, gemm->second, g);
      bool fused = g.epilogue != PT2C_GEMM_EPILOGUE_NONE;
      auto fallback = libraryStep(PT2C_STEP_GEMM, r.gemms.size(), args, i, fused, stepKernels);
      if (!fallback) return fallback.takeError();
      g.num_fallback_steps = *fallback;
      r.gemms.push_back(g);
      if (fused) ++i;
    }
    r.steps = std::move(steps);
    r.stepArgs = std::move(stepArgs);
    r.arenaSize = std::max(r.arenaSize, temporaryBase + temporaryEnd);
    r.device = PT2C_DEVICE_CUDA;
    r.numKernels = r.gpuKernels.size();
    return llvm::Error::success();
  }

  std::vector<std::string> kernelNames() const { return names; }

 private:
  // Each step of a split kernel function becomes its prologue's step and its GEMM's step,
  // through an arena buffer after the planned arena that lives between the two. Two
  // regions there serve all splits in turn: a GEMM fused with the next split's prologue
  // reads one operand region while writing the other.
  void splitSteps(std::vector<std::string>& stepKernels) {
    uint64_t operandBase = alignUp(r.arenaSize), regionBytes = 0;
    for (const pt2c_plan_step& step : r.steps) {
      auto split = splits.find(stepKernels[step.kernel]);
      if (split != splits.end()) regionBytes = std::max(regionBytes, alignUp(split->second.operandBytes));
    }
    unsigned numSplits = 0;
    auto kernelIndex = [&](const std::string& name) {
      auto it = std::find(stepKernels.begin(), stepKernels.end(), name);
      if (it != stepKernels.end()) return static_cast<uint32_t>(it - stepKernels.begin());
      stepKernels.push_back(name);
      return static_cast<uint32_t>(stepKernels.size() - 1);
    };
    std::vector<pt2c_plan_step> newSteps;
    std::vector<uint32_t> newArgs;
    auto addStep = [&](uint32_t kernel, const std::vector<uint32_t>& buffers) {
      newSteps.push_back({kernel, static_cast<uint32_t>(buffers.size()),
                          static_cast<uint32_t>(newArgs.size()), PT2C_STEP_KERNEL});
      newArgs.insert(newArgs.end(), buffers.begin(), buffers.end());
    };
    for (const pt2c_plan_step& step : r.steps) {
      std::vector<uint32_t> buffers = buffersOf(step);
      auto split = splits.find(stepKernels[step.kernel]);
      if (split == splits.end()) {
        addStep(step.kernel, buffers);
        continue;
      }
      const SplitKernel& s = split->second;
      uint64_t offset = operandBase + (numSplits++ % 2) * regionBytes;
      r.buffers.push_back({PT2C_BUFFER_ARENA, 0, offset, s.operandBytes});
      uint32_t operand = r.buffers.size() - 1;
      std::vector<uint32_t> prologue;
      for (unsigned arg : s.prologueArgs) prologue.push_back(buffers[arg]);
      prologue.push_back(operand);
      std::vector<uint32_t> gemm;
      for (int arg : s.gemmArgs) gemm.push_back(arg < 0 ? operand : buffers[arg]);
      gemm.push_back(buffers.back());
      addStep(kernelIndex(s.prologue), prologue);
      addStep(kernelIndex(s.gemm), gemm);
    }
    r.steps = std::move(newSteps);
    r.stepArgs = std::move(newArgs);
    if (numSplits > 0) r.arenaSize = operandBase + (numSplits > 1 ? 2 : 1) * regionBytes;
  }

  std::vector<uint32_t> buffersOf(const pt2c_plan_step& step) const {
    return std::vector<uint32_t>(r.stepArgs.begin() + step.first_arg,
                                 r.stepArgs.begin() + step.first_arg + step.num_args);
  }

  // Replaces the kernel function's step by its GPU launches.
  llvm::Error expand(const pt2c_plan_step& step, const std::string& name) {
    auto it = launches.find(name);
    if (it == launches.end()) return fail("no GPU launches for kernel " + name);
    std::vector<uint32_t> buffers = buffersOf(step);
    std::vector<uint32_t> temporaries = placeTemporaries(it->second);
    for (const GpuLaunch& launch : it->second.launches) {
      pt2c_plan_step s{};
      s.kernel = gpuKernel(launch);
      s.first_arg = stepArgs.size();
      for (const LaunchArg& arg : launch.args) {
        const std::vector<uint32_t>& from = arg.kind == LaunchArg::kBuffer ? buffers : temporaries;
        if (arg.index >= from.size())
          return fail("a launch of " + name + " uses a buffer its step does not have");
        stepArgs.push_back(from[arg.index]);
      }
      s.num_args = stepArgs.size() - s.first_arg;
      steps.push_back(s);
    }
    return llvm::Error::success();
  }

  // A library step (record `record` of the GEMM or convolution table) on `args`, then its
  // fallback: the launches of the kernel function(s) it replaces, kernel step i (and i + 1
  // when its epilogue joined). Returns how many fallback steps that made.
  llvm::Expected<uint32_t> libraryStep(pt2c_plan_step_kind kind, size_t record,
                                       const std::vector<uint32_t>& args, size_t i, bool fused,
                                       const std::vector<std::string>& stepKernels) {
    size_t first = steps.size();
    steps.push_back({static_cast<uint32_t>(record), static_cast<uint32_t>(args.size()),
                     static_cast<uint32_t>(stepArgs.size()), static_cast<uint32_t>(kind)});
    stepArgs.insert(stepArgs.end(), args.begin(), args.end());
    for (size_t j = i; j <= i + (fused ? 1 : 0); ++j)
      if (auto err = expand(r.steps[j], stepKernels[r.steps[j].kernel])) return std::move(err);
    return static_cast<uint32_t>(steps.size() - first - 1);
  }

  // Whether kernel step i + 1 (an epilogue reading `product`, step i's result, and writing
  // `out`) may join step i's library call: it is the product's only reader (so the product
  // need not exist), and writing `out` early cannot clobber an operand.
  bool epilogueMayJoin(size_t i, uint32_t product, uint32_t out,
                       const std::vector<uint32_t>& operands) const {
    if (r.buffers[product].kind != PT2C_BUFFER_ARENA) return false;
    for (size_t s = 0; s < r.steps.size(); ++s)
      if (s != i && s != i + 1)
        for (uint32_t b : buffersOf(r.steps[s]))
          if (b == product) return false;
    for (const pt2c_plan_guard& guard : r.guards)
      if (guard.buffer == product) return false;
    for (uint32_t operand : operands)
      if (overlap(operand, out)) return false;
    return true;
  }

  // The convolution step's buffers (x, w, [bias,] [z,] y) for kernel step `i`; takes in the
  // epilogue of step i + 1 (setting c.epilogue) when it may join (epilogueMayJoin).
  std::vector<uint32_t> convArgs(size_t i, const std::vector<std::string>& stepKernels,
                                 const ConvKernel& conv, pt2c_plan_conv& c) const {
    std::vector<uint32_t> buffers = buffersOf(r.steps[i]);
    uint32_t product = buffers.back();  // the kernel function's one result
    std::vector<uint32_t> plain = {buffers[conv.input], buffers[conv.weight], product};
    if (i + 1 >= r.steps.size()) return plain;
    auto epilogue = convKernels.epilogues.find(stepKernels[r.steps[i + 1].kernel]);
    if (epilogue == convKernels.epilogues.end()) return plain;
    const ConvEpilogueKernel& e = epilogue->second;
    std::vector<int64_t> shape = {static_cast<int64_t>(c.batch),
                                  static_cast<int64_t>(c.out_channels)};
    for (uint32_t d = 0; d < c.spatial_rank; ++d) shape.push_back(c.output[d]);
    std::vector<uint32_t> next = buffersOf(r.steps[i + 1]);
    if (next.size() != (e.residual < 0 ? 3u : 4u) || next[e.input] != product ||
        e.dtype != c.dtype || e.shape != shape)
      return plain;
    std::vector<uint32_t> operands = {plain[0], plain[1], next[e.bias]};
    if (e.residual >= 0) operands.push_back(next[e.residual]);
    if (!epilogueMayJoin(i, product, next.back(), operands)) return plain;
    c.epilogue = e.epilogue;
    operands.push_back(next.back());
    return operands;
  }

  // The GEMM step's buffers (A, B, [bias,] D) for kernel step `i`; takes in the bias
  // epilogue of step i + 1 (setting g.epilogue) when that step is the only reader of the
  // product and writing its output early cannot clobber an operand.
  std::vector<uint32_t> gemmArgs(size_t i, const std::vector<std::string>& stepKernels,
                                 const GemmKernel& gemm, pt2c_plan_gemm& g) const {
    std::vector<uint32_t> buffers = buffersOf(r.steps[i]);
    uint32_t product = buffers.back();  // the kernel function's one result
    std::vector<uint32_t> plain = {buffers[gemm.lhs], buffers[gemm.rhs], product};
    if (i + 1 >= r.steps.size() || g.batch != 1 || g.input_dtype != 0) return plain;
    auto epilogue = gemmKernels.epilogues.find(stepKernels[r.steps[i + 1].kernel]);
    if (epilogue == gemmKernels.epilogues.end()) return plain;
    const BiasEpilogueKernel& e = epilogue->second;
    std::vector<uint32_t> next = buffersOf(r.steps[i + 1]);
    if (next.size() != 3 || next[e.input] != product || e.n != static_cast<int64_t>(g.n))
      return plain;
    uint32_t bias = next[e.bias], out = next[2];
    if (!epilogueMayJoin(i, product, out, {plain[0], plain[1], bias})) return plain;
    g.epilogue = e.epilogue;
    return {plain[0], plain[1], bias, out};
  }

  // Whether two arena buffers share bytes (the arena planner reuses dead buffers' space).
  bool overlap(uint32_t a, uint32_t b) const {
    const pt2c_plan_buffer &x = r.buffers[a], &y = r.buffers[b];
    if (a == b) return true;
    if (x.kind != PT2C_BUFFER_ARENA || y.kind != PT2C_BUFFER_ARENA) return false;
    return x.offset < y.offset + y.nbytes && y.offset < x.offset + x.nbytes;
  }

  // Arena buffers for one step's temporaries, from temporaryBase on.
  std::vector<uint32_t> placeTemporaries(const KernelLaunches& k) {
    std::vector<uint32_t> ids;
    uint64_t offset = 0;
    for (uint64_t bytes : k.temporaryBytes) {
      r.buffers.push_back({PT2C_BUFFER_ARENA, 0, temporaryBase + offset, bytes});
      ids.push_back(r.buffers.size() - 1);
      offset = alignUp(offset + bytes);
    }
    temporaryEnd = std::max(temporaryEnd, offset);
    return ids;
  }

  // The kernel-table entry of a GPU kernel (one per name: its configuration is fixed).
  uint32_t gpuKernel(const GpuLaunch& launch) {
    auto [it, inserted] = index.try_emplace(launch.kernel, r.gpuKernels.size());
    if (inserted) {
      pt2c_plan_gpu_kernel k{};
      k.name = r.addString(launch.kernel);
      k.shared_bytes = launch.sharedBytes;
      for (int d = 0; d < 3; ++d) k.grid[d] = launch.grid[d], k.block[d] = launch.block[d];
      r.gpuKernels.push_back(k);
      names.push_back(launch.kernel);
    }
    return it->second;
  }

  PlanRecords& r;
  const LaunchTable& launches;
  const GemmKernelTable& gemmKernels;
  const ConvKernelTable& convKernels;
  const std::map<std::string, SplitKernel>& splits;
  std::vector<pt2c_plan_step> steps;
  std::vector<uint32_t> stepArgs;
  uint64_t temporaryBase = 0, temporaryEnd = 0;
  llvm::StringMap<uint32_t> index;
  std::vector<std::string> names;
};

}  // namespace

llvm::Expected<ExecutionPlan> expandPlanForCuda(const ExecutionPlan& plan,
                                                const LaunchTable& launches,
                                                const GemmKernelTable& gemmKernels,
                                                const ConvKernelTable& convKernels,
                                                const std::map<std::string, SplitKernel>& splits) {
  auto records = readPlanRecords(plan.bytes);
  if (!records) return records.takeError();
  if (records->device != PT2C_DEVICE_CPU) return fail("the plan is not a kernel-function plan");
  Expander expander(*records, launches, gemmKernels, convKernels, splits);
  if (auto err = expander.run(plan.kernels)) return std::move(err);
  ExecutionPlan result;
  result.kernels = expander.kernelNames();
  result.arenaSize = records->arenaSize;
  result.bytes = serializePlan(*records);
  return result;
}

}  // namespace pt2c
