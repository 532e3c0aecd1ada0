#include "compiler/codegen/NoAliasKernelArgs.h"

#include "compiler/codegen/PlanReader.h"
#include "compiler/codegen/PlanSetWriter.h"

namespace pt2c {
namespace {

// Whether two buffers of a plan may share bytes. Caller tensors (inputs, outputs) are
// distinct per index (pt2c.h: outputs must not overlap inputs); weights are read-only,
// so a weight never conflicts.
bool mayOverlap(const pt2c_plan_buffer &x, uint32_t a, const pt2c_plan_buffer &y, uint32_t b) {
  if (a == b)
    return true;
  if (x.kind == PT2C_BUFFER_WEIGHT || y.kind == PT2C_BUFFER_WEIGHT)
    return false;
  if (x.kind != y.kind)
    return false;
  if (x.kind == PT2C_BUFFER_INPUT || x.kind == PT2C_BUFFER_OUTPUT)
    return x.index == y.index;
  return x.offset < y.offset + y.nbytes && y.offset < x.offset + x.nbytes;
}

} // namespace

// Clears distinct[first + k] for every kernel k that a step of `plan` calls with
// buffers that may overlap.
llvm::Error markOverlaps(const std::string &plan, uint32_t first, std::vector<bool> &distinct) {
  auto records = readPlanRecords(plan);
  if (!records)
    return records.takeError();
  for (const pt2c_plan_step &step : records->steps) {
    size_t kernel = first + static_cast<size_t>(step.kernel);
    if (step.kind != PT2C_STEP_KERNEL || kernel >= distinct.size())
      continue;
    const uint32_t *args = records->stepArgs.data() + step.first_arg;
    for (uint32_t i = 0; i < step.num_args && distinct[kernel]; ++i)
      for (uint32_t j = i + 1; j < step.num_args; ++j)
        if (mayOverlap(records->buffers[args[i]], args[i], records->buffers[args[j]], args[j])) {
          distinct[kernel] = false;
          break;
        }
  }
  return llvm::Error::success();
}

std::vector<bool> kernelsWithDisjointArgs(const ExecutionPlan &plan) {
  std::vector<bool> distinct(plan.kernels.size(), true);
  // A plan set's graphs call the shared kernel table from their first kernel on; a kernel
  // two graphs call would have to be disjoint in both (form-kernels gives each graph its
  // own kernels, so none is).
  std::vector<PlanSetPart> parts = planSetParts(plan.bytes);
  if (parts.empty())
    parts.push_back({0, plan.bytes});
  for (const PlanSetPart &part : parts)
    if (auto err = markOverlaps(part.plan, part.firstKernel, distinct)) {
      llvm::consumeError(std::move(err));
      return {};
    }
  return distinct;
}

size_t addNoAliasKernelArgs(llvm::Module &m, const ExecutionPlan &plan,
                            const std::vector<bool> &disjoint,
                            const std::set<std::string> &symbolKernels) {
  size_t marked = 0;
  for (size_t k = 0; k < disjoint.size() && k < plan.kernels.size(); ++k) {
    llvm::Function *f = m.getFunction(plan.kernels[k]);
    if (!f || !disjoint[k])
      continue;
    // A dynamic kernel's first parameter is the symbol values (DynamicKernelAbi.h).
    for (unsigned i = symbolKernels.count(plan.kernels[k]) ? 1 : 0; i < f->arg_size(); ++i)
      if (f->getArg(i)->getType()->isPointerTy())
        f->addParamAttr(i, llvm::Attribute::NoAlias);
    ++marked;
  }
  return marked;
}

} // namespace pt2c
