#include "compiler/codegen/dense/LibrarySteps.h"

#include <algorithm>

#include "compiler/codegen/ArenaPlanner.h"

namespace pt2c {

llvm::Error internalError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "internal error: " + message.str());
}

uint64_t alignArena(uint64_t value) {
  constexpr uint64_t a = ArenaPlanner::kAlignment;
  return (value + a - 1) / a * a;
}

DenseKernels findDenseKernels(mlir::ModuleOp kernels, const DenseOptions &options) {
  DenseKernels dense;
  dense.splits = splitGemmPrologues(kernels, options.splits);
  dense.gemms = findGemmKernels(kernels, options.gemms);
  dense.convs = findConvKernels(kernels, options.convs);
  return dense;
}

llvm::Error LibraryStepPlanner::run(std::vector<std::string> stepKernels) {
  for (const pt2c_plan_step &step : r.steps)
    if (step.kernel >= stepKernels.size())
      return internalError("a step's kernel is not in the plan");
  splitSteps(stepKernels);
  beginExpansion();
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const std::string &name = stepKernels[r.steps[i].kernel];
    auto gemm = dense.gemms.kernels.find(name);
    auto conv = dense.convs.kernels.find(name);
    if (conv != dense.convs.kernels.end()) {
      pt2c_plan_conv c = conv->second.conv;
      std::vector<uint32_t> args = convArgs(i, stepKernels, conv->second, c);
      size_t joined = c.epilogue != PT2C_CONV_EPILOGUE_NONE ? 1 : 0;
      if (auto err = libraryStep(PT2C_STEP_CONV, c, joined, r.convs, args, i, stepKernels))
        return err;
      i += joined;
    } else if (gemm != dense.gemms.kernels.end()) {
      pt2c_plan_gemm g = gemm->second.gemm;
      size_t joined = 0;
      std::vector<uint32_t> args = gemmArgs(i, stepKernels, gemm->second, g, joined);
      if (auto err = libraryStep(PT2C_STEP_GEMM, g, joined, r.gemms, args, i, stepKernels))
        return err;
      i += joined;
    } else if (auto err = expandKernelStep(name, buffersOf(r.steps[i]))) {
      return err;
    }
  }
  r.steps = std::move(steps);
  r.stepArgs = std::move(stepArgs);
  return llvm::Error::success();
}

// Each step of a split kernel function becomes its prologue's step and its GEMM's step,
// through an arena buffer after the planned arena that lives between the two. Two
// regions there serve all splits in turn: a GEMM fused with the next split's prologue
// reads one operand region while writing the other.
void LibraryStepPlanner::splitSteps(std::vector<std::string> &stepKernels) {
  uint64_t operandBase = alignArena(r.arenaSize), regionBytes = 0;
  for (const pt2c_plan_step &step : r.steps) {
    auto split = dense.splits.find(stepKernels[step.kernel]);
    if (split != dense.splits.end())
      regionBytes = std::max(regionBytes, alignArena(split->second.operandBytes));
  }
  unsigned numSplits = 0;
  auto kernelIndex = [&](const std::string &name) {
    auto it = std::find(stepKernels.begin(), stepKernels.end(), name);
    if (it != stepKernels.end())
      return static_cast<uint32_t>(it - stepKernels.begin());
    stepKernels.push_back(name);
    return static_cast<uint32_t>(stepKernels.size() - 1);
  };
  std::vector<pt2c_plan_step> newSteps;
  std::vector<uint32_t> newArgs;
  auto addStep = [&](uint32_t kernel, const std::vector<uint32_t> &buffers) {
    newSteps.push_back({kernel, static_cast<uint32_t>(buffers.size()),
                        static_cast<uint32_t>(newArgs.size()), PT2C_STEP_KERNEL});
    newArgs.insert(newArgs.end(), buffers.begin(), buffers.end());
  };
  for (const pt2c_plan_step &step : r.steps) {
    std::vector<uint32_t> buffers = buffersOf(step);
    auto split = dense.splits.find(stepKernels[step.kernel]);
    if (split == dense.splits.end()) {
      addStep(step.kernel, buffers);
      continue;
    }
    const SplitKernel &s = split->second;
    uint64_t offset = operandBase + (numSplits++ % 2) * regionBytes;
    r.buffers.push_back({PT2C_BUFFER_ARENA, 0, offset, s.operandBytes});
    uint32_t operand = r.buffers.size() - 1;
    std::vector<uint32_t> prologue;
    for (unsigned arg : s.prologueArgs)
      prologue.push_back(buffers[arg]);
    prologue.push_back(operand);
    std::vector<uint32_t> gemm;
    for (int arg : s.gemmArgs)
      gemm.push_back(arg < 0 ? operand : buffers[arg]);
    gemm.push_back(buffers.back());
    addStep(kernelIndex(s.prologue), prologue);
    addStep(kernelIndex(s.gemm), gemm);
  }
  r.steps = std::move(newSteps);
  r.stepArgs = std::move(newArgs);
  if (numSplits > 0)
    r.arenaSize = operandBase + (numSplits > 1 ? 2 : 1) * regionBytes;
}

std::vector<uint32_t> LibraryStepPlanner::buffersOf(const pt2c_plan_step &step) const {
  return std::vector<uint32_t>(r.stepArgs.begin() + step.first_arg,
                               r.stepArgs.begin() + step.first_arg + step.num_args);
}

// A library step on `args` whose record (`record`, its number of fallback steps set here)
// joins `table`, the plan's GEMM or convolution table; then its fallback: what the kernel
// function(s) it replaces become, kernel step i and the `joined` epilogue steps after it.
template <typename Record>
llvm::Error LibraryStepPlanner::libraryStep(pt2c_plan_step_kind kind, Record record, size_t joined,
                                            std::vector<Record> &table,
                                            const std::vector<uint32_t> &args, size_t i,
                                            const std::vector<std::string> &stepKernels) {
  size_t first = steps.size();
  steps.push_back({static_cast<uint32_t>(table.size()), static_cast<uint32_t>(args.size()),
                   static_cast<uint32_t>(stepArgs.size()), static_cast<uint32_t>(kind)});
  stepArgs.insert(stepArgs.end(), args.begin(), args.end());
  for (size_t j = i; j <= i + joined; ++j)
    if (auto err = expandKernelStep(stepKernels[r.steps[j].kernel], buffersOf(r.steps[j])))
      return err;
  record.num_fallback_steps = static_cast<uint32_t>(steps.size() - first - 1);
  table.push_back(record);
  return llvm::Error::success();
}

// The epilogue kernel of `epilogues` that kernel step i + 1 runs, if there is that step and
// it runs one.
template <typename Epilogue>
const Epilogue *
LibraryStepPlanner::nextEpilogue(size_t i, const std::vector<std::string> &stepKernels,
                                 const std::map<std::string, Epilogue> &epilogues) const {
  if (i + 1 >= r.steps.size())
    return nullptr;
  auto it = epilogues.find(stepKernels[r.steps[i + 1].kernel]);
  return it == epilogues.end() ? nullptr : &it->second;
}

// Whether kernel step i + 1 (an epilogue reading `product`, step i's result, and writing
// `out`) may join step i's library call: it is the product's only reader (so the product
// need not exist), and writing `out` early cannot clobber an operand.
bool LibraryStepPlanner::epilogueMayJoin(size_t i, uint32_t product, uint32_t out,
                                         const std::vector<uint32_t> &operands) const {
  if (r.buffers[product].kind != PT2C_BUFFER_ARENA)
    return false;
  for (size_t s = 0; s < r.steps.size(); ++s)
    if (s != i && s != i + 1)
      for (uint32_t b : buffersOf(r.steps[s]))
        if (b == product)
          return false;
  for (const pt2c_plan_guard &guard : r.guards)
    if (guard.buffer == product)
      return false;
  for (uint32_t operand : operands)
    if (overlap(operand, out))
      return false;
  return true;
}

// The convolution step's buffers (x, w, [bias,] [z,] y) for kernel step `i`; takes in the
// epilogue of step i + 1 (setting c.epilogue) when it may join (epilogueMayJoin).
std::vector<uint32_t> LibraryStepPlanner::convArgs(size_t i,
                                                   const std::vector<std::string> &stepKernels,
                                                   const ConvKernel &conv,
                                                   pt2c_plan_conv &c) const {
  std::vector<uint32_t> buffers = buffersOf(r.steps[i]);
  uint32_t product = buffers.back(); // the kernel function's one result
  std::vector<uint32_t> plain = {buffers[conv.input], buffers[conv.weight], product};
  const ConvEpilogueKernel *epilogue = nextEpilogue(i, stepKernels, dense.convs.epilogues);
  if (!epilogue)
    return plain;
  const ConvEpilogueKernel &e = *epilogue;
  bool channelsLast = c.layout == PT2C_CONV_LAYOUT_CHANNELS_LAST;
  std::vector<int64_t> shape = {static_cast<int64_t>(c.batch)};
  if (!channelsLast)
    shape.push_back(c.out_channels);
  for (uint32_t d = 0; d < c.spatial_rank; ++d)
    shape.push_back(c.output[d]);
  if (channelsLast)
    shape.push_back(c.out_channels);
  std::vector<uint32_t> next = buffersOf(r.steps[i + 1]);
  if (next.size() != (e.residual < 0 ? 3u : 4u) || next[e.input] != product || e.dtype != c.dtype ||
      e.shape != shape || e.channelsLast != channelsLast)
    return plain;
  std::vector<uint32_t> operands = {plain[0], plain[1], next[e.bias]};
  if (e.residual >= 0)
    operands.push_back(next[e.residual]);
  if (!epilogueMayJoin(i, product, next.back(), operands))
    return plain;
  c.epilogue = e.epilogue;
  operands.push_back(next.back());
  return operands;
}

// The GEMM step's buffers (A, B, [bias,] [C,] D) for kernel step `i`; takes in the
// epilogue of step i + 1 (setting g.epilogue and `joined`) when it may join, and after a
// BIAS epilogue an ADD one at step i + 2 (BIAS_ADD: a Linear on [batch, seq, features],
// whose bias add and residual add a reshape keeps in two kernels).
std::vector<uint32_t> LibraryStepPlanner::gemmArgs(size_t i,
                                                   const std::vector<std::string> &stepKernels,
                                                   const GemmKernel &gemm, pt2c_plan_gemm &g,
                                                   size_t &joined) const {
  std::vector<uint32_t> buffers = buffersOf(r.steps[i]);
  uint32_t product = buffers.back(); // the kernel function's one result
  std::vector<uint32_t> args = {buffers[gemm.lhs], buffers[gemm.rhs]};
  joined = 0;
  const GemmEpilogueKernel *epilogue = nextEpilogue(i, stepKernels, dense.gemms.epilogues);
  auto first = epilogue && g.batch == 1 && g.input_dtype == 0
                   ? joinGemmEpilogue(i, product, *epilogue, g, args)
                   : std::nullopt;
  if (!first) {
    args.push_back(product);
    return args;
  }
  g.epilogue = epilogue->epilogue;
  joined = 1;
  uint32_t out = first->back();
  first->pop_back();
  args.insert(args.end(), first->begin(), first->end());
  const GemmEpilogueKernel *add = nextEpilogue(i + 1, stepKernels, dense.gemms.epilogues);
  if (g.epilogue == PT2C_GEMM_EPILOGUE_BIAS && add && add->epilogue == PT2C_GEMM_EPILOGUE_ADD)
    if (auto second = joinGemmEpilogue(i + 1, out, *add, g, args)) {
      g.epilogue = PT2C_GEMM_EPILOGUE_BIAS_ADD;
      joined = 2;
      out = second->back();
      args.push_back(second->front()); // C
    }
  args.push_back(out);
  return args;
}

// Whether epilogue kernel `e` at step i + 1 may join the GEMM `g` whose result `product`
// step i writes, the GEMM step reading `operands` (A, B and what joined before): its bias
// and residual (those it has), then its output, else nullopt. The residual, like the
// bias, must be another buffer than the product (it exists before the GEMM step runs),
// and the output must overlap none of them (epilogueMayJoin): D never shares bytes with
// C, as the CPU microkernels need (the arena planner's lifetimes give that for free, the
// epilogue's operands living through its step).
std::optional<std::vector<uint32_t>>
LibraryStepPlanner::joinGemmEpilogue(size_t i, uint32_t product, const GemmEpilogueKernel &e,
                                     const pt2c_plan_gemm &g,
                                     std::vector<uint32_t> operands) const {
  std::vector<uint32_t> next = buffersOf(r.steps[i + 1]);
  int input = static_cast<int>(e.input), residual = e.residual;
  size_t numArgs = 2 + (e.bias >= 0 ? 1 : 0) + (residual >= 0 ? 1 : 0);
  if (next.size() != numArgs)
    return std::nullopt;
  if (e.commutes && next[residual] == product)
    std::swap(input, residual);
  if (next[input] != product || e.elements != g.m * g.n ||
      (e.bias >= 0 && e.n != static_cast<int64_t>(g.n)) ||
      (residual >= 0 && next[residual] == product))
    return std::nullopt;
  std::vector<uint32_t> joined;
  if (e.bias >= 0)
    joined.push_back(next[e.bias]);
  if (residual >= 0)
    joined.push_back(next[residual]);
  operands.insert(operands.end(), joined.begin(), joined.end());
  if (!epilogueMayJoin(i, product, next.back(), operands))
    return std::nullopt;
  joined.push_back(next.back());
  return joined;
}

// Whether two arena buffers share bytes (the arena planner reuses dead buffers' space).
bool LibraryStepPlanner::overlap(uint32_t a, uint32_t b) const {
  const pt2c_plan_buffer &x = r.buffers[a], &y = r.buffers[b];
  if (a == b)
    return true;
  if (x.kind != PT2C_BUFFER_ARENA || y.kind != PT2C_BUFFER_ARENA)
    return false;
  return x.offset < y.offset + y.nbytes && y.offset < x.offset + x.nbytes;
}

} // namespace pt2c
