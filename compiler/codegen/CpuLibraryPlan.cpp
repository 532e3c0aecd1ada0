#include "compiler/codegen/CpuLibraryPlan.h"

#include <algorithm>

#include "compiler/codegen/PlanReader.h"
#include "llvm/ADT/StringMap.h"

namespace pt2c {
namespace {

// A kernel function's step stays one call of its generated code.
class CpuStepPlanner : public LibraryStepPlanner {
 public:
  using LibraryStepPlanner::LibraryStepPlanner;

  std::vector<std::string> kernelNames() const { return names; }

 private:
  llvm::Error expandKernelStep(const std::string& name,
                               const std::vector<uint32_t>& buffers) override {
    auto [it, inserted] = index.try_emplace(name, names.size());
    if (inserted) names.push_back(name);
    steps.push_back({it->second, static_cast<uint32_t>(buffers.size()),
                     static_cast<uint32_t>(stepArgs.size()), PT2C_STEP_KERNEL});
    stepArgs.insert(stepArgs.end(), buffers.begin(), buffers.end());
    return llvm::Error::success();
  }

  llvm::StringMap<uint32_t> index;
  std::vector<std::string> names;
};

// One lone plan's rewrite.
llvm::Expected<ExecutionPlan> rewritePlan(const ExecutionPlan& plan, const DenseKernels& dense) {
  auto records = readPlanRecords(plan.bytes);
  if (!records) return records.takeError();
  if (records->device != PT2C_DEVICE_CPU)
    return internalError("the plan is not a kernel-function plan");
  CpuStepPlanner planner(*records, dense);
  if (auto err = planner.run(plan.kernels)) return std::move(err);
  ExecutionPlan result = plan;
  result.kernels = planner.kernelNames();
  records->numKernels = result.kernels.size();
  result.arenaSize = records->arenaSize;
  result.bytes = serializePlan(*records);
  return result;
}

}  // namespace

llvm::Expected<ExecutionPlan> addCpuLibrarySteps(const ModelPlan& model,
                                                 const DenseKernels& dense) {
  if (!model.isPlanSet) return rewritePlan(model.plan, dense);
  // Each graph indexes the shared kernel table from its firstKernel on.
  ExecutionPlan result = model.plan;
  result.kernels.clear();
  result.arenaSize = 0;
  std::vector<PlanSetGraph> graphs = model.graphs;
  for (size_t g = 0; g < graphs.size(); ++g) {
    size_t first = graphs[g].firstKernel;
    size_t end = g + 1 < graphs.size() ? graphs[g + 1].firstKernel : model.plan.kernels.size();
    if (first > end || end > model.plan.kernels.size())
      return internalError("a plan set's kernel ranges do not add up");
    ExecutionPlan graph;
    graph.bytes = graphs[g].plan;
    graph.kernels.assign(model.plan.kernels.begin() + first, model.plan.kernels.begin() + end);
    auto rewritten = rewritePlan(graph, dense);
    if (!rewritten) return rewritten.takeError();
    graphs[g].firstKernel = result.kernels.size();
    graphs[g].plan = rewritten->bytes;
    result.kernels.insert(result.kernels.end(), rewritten->kernels.begin(),
                          rewritten->kernels.end());
    result.arenaSize = std::max(result.arenaSize, rewritten->arenaSize);
  }
  result.bytes = serializePlanSet(graphs);
  return result;
}

std::string describeLibrarySteps(const ExecutionPlan& plan) {
  auto records = readPlanRecords(plan.bytes);
  if (!records) {
    llvm::consumeError(records.takeError());
    return "";
  }
  std::string text;
  if (!records->gemms.empty()) text += ", " + std::to_string(records->gemms.size()) + " GEMM steps";
  if (!records->convs.empty())
    text += ", " + std::to_string(records->convs.size()) + " convolution steps";
  return text.empty() ? text : text + " (microkernels)";
}

}  // namespace pt2c
