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
  llvm::Error expandKernelStep(const std::string &name,
                               const std::vector<uint32_t> &buffers) override {
    auto [it, inserted] = index.try_emplace(name, names.size());
    if (inserted)
      names.push_back(name);
    steps.push_back({it->second, static_cast<uint32_t>(buffers.size()),
                     static_cast<uint32_t>(stepArgs.size()), PT2C_STEP_KERNEL});
    stepArgs.insert(stepArgs.end(), buffers.begin(), buffers.end());
    return llvm::Error::success();
  }

  llvm::StringMap<uint32_t> index;
  std::vector<std::string> names;
};

// One lone plan's rewrite.
llvm::Expected<ExecutionPlan> rewritePlan(const ExecutionPlan &plan, const DenseKernels &dense) {
  auto records = readPlanRecords(plan.bytes);
  if (!records)
    return records.takeError();
  if (records->device != PT2C_DEVICE_CPU)
    return internalError("the plan is not a kernel-function plan");
  CpuStepPlanner planner(*records, dense);
  if (auto err = planner.run(plan.kernels))
    return std::move(err);
  ExecutionPlan result = plan;
  result.kernels = planner.kernelNames();
  records->numKernels = result.kernels.size();
  result.arenaSize = records->arenaSize;
  result.bytes = serializePlan(*records);
  return result;
}

} // namespace

llvm::Expected<ExecutionPlan> addCpuLibrarySteps(const ModelPlan &model,
                                                 const DenseKernels &dense) {
  // Each graph indexes the shared kernel table from its firstKernel on.
  return rewriteModelPlan(
      model, [&](const ExecutionPlan &graph) { return rewritePlan(graph, dense); },
      /*sharedKernelTable=*/true);
}

std::string describeLibrarySteps(const ExecutionPlan &plan) {
  auto records = readPlanRecords(plan.bytes);
  if (!records) {
    llvm::consumeError(records.takeError());
    return "";
  }
  std::string text;
  if (!records->gemms.empty())
    text += ", " + std::to_string(records->gemms.size()) + " GEMM steps";
  if (!records->convs.empty())
    text += ", " + std::to_string(records->convs.size()) + " convolution steps";
  return text.empty() ? text : text + " (microkernels)";
}

} // namespace pt2c
