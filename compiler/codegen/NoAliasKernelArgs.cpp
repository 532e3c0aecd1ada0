#include "compiler/codegen/NoAliasKernelArgs.h"

#include "compiler/codegen/PlanReader.h"

namespace pt2c {
namespace {

// Whether two buffers of a plan may share bytes. Caller tensors (inputs, outputs) are
// distinct per index (pt2c.h: outputs must not overlap inputs); weights are read-only,
// so a weight never conflicts.
bool mayOverlap(const pt2c_plan_buffer& x, uint32_t a, const pt2c_plan_buffer& y, uint32_t b) {
  if (a == b) return true;
  if (x.kind == PT2C_BUFFER_WEIGHT || y.kind == PT2C_BUFFER_WEIGHT) return false;
  if (x.kind != y.kind) return false;
  if (x.kind == PT2C_BUFFER_INPUT || x.kind == PT2C_BUFFER_OUTPUT) return x.index == y.index;
  return x.offset < y.offset + y.nbytes && y.offset < x.offset + x.nbytes;
}

}  // namespace

std::vector<bool> kernelsWithDisjointArgs(const ExecutionPlan& plan) {
  auto records = readPlanRecords(plan.bytes);
  if (!records) {  // a plan set
    llvm::consumeError(records.takeError());
    return {};
  }
  std::vector<bool> distinct(plan.kernels.size(), true);
  for (const pt2c_plan_step& step : records->steps) {
    if (step.kind != PT2C_STEP_KERNEL || step.kernel >= distinct.size()) continue;
    const uint32_t* args = records->stepArgs.data() + step.first_arg;
    for (uint32_t i = 0; i < step.num_args && distinct[step.kernel]; ++i)
      for (uint32_t j = i + 1; j < step.num_args; ++j)
        if (mayOverlap(records->buffers[args[i]], args[i], records->buffers[args[j]], args[j])) {
          distinct[step.kernel] = false;
          break;
        }
  }
  return distinct;
}

size_t addNoAliasKernelArgs(llvm::Module& m, const ExecutionPlan& plan,
                            const std::vector<bool>& disjoint) {
  size_t marked = 0;
  for (size_t k = 0; k < disjoint.size() && k < plan.kernels.size(); ++k) {
    llvm::Function* f = m.getFunction(plan.kernels[k]);
    if (!f || !disjoint[k]) continue;
    // A dynamic kernel's first parameter is the symbol values (DynamicKernelAbi.h).
    for (unsigned i = plan.dynamic ? 1 : 0; i < f->arg_size(); ++i)
      if (f->getArg(i)->getType()->isPointerTy()) f->addParamAttr(i, llvm::Attribute::NoAlias);
    ++marked;
  }
  return marked;
}

}  // namespace pt2c
