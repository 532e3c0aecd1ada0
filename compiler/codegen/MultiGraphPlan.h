// The execution plan of a whole model: the lone plan of a single-graph artifact, or, for
// a multi-graph one (or a graph with an input traced as None), a plan set: one plan per
// graph over one shared weights blob and one kernel table, plus the dispatch table
// (runtime/include/pt2c/plan_format.h, "Plan sets").
#ifndef PT2C_COMPILER_CODEGEN_MULTIGRAPHPLAN_H_
#define PT2C_COMPILER_CODEGEN_MULTIGRAPHPLAN_H_

#include "compiler/codegen/ExecutionPlan.h"
#include "compiler/codegen/PlanSetWriter.h"
#include <functional>

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace pt2c {

struct ModelPlan {
  ExecutionPlan plan; // for a plan set: all kernels, the set's bytes, the shared blob
  size_t numGraphs = 1;
  bool isPlanSet = false;
  std::vector<PlanSetGraph> graphs; // a plan set's graphs, as serialized into plan.bytes
};

// `module` after pt2c-form-kernels: one model function per artifact graph, named after
// it. Diagnoses (on the module) a missing function and anything buildExecutionPlan does.
mlir::FailureOr<ModelPlan> buildModelPlan(mlir::ModuleOp module, const ArtifactFile &artifact);

// A target's rewrite of one graph's kernel-function plan (library steps, GPU launches).
using GraphPlanRewrite = std::function<llvm::Expected<ExecutionPlan>(const ExecutionPlan &)>;

// `rewrite` applied to the model's lone plan, or to each graph of a plan set (its plan,
// with the kernels it indexes from its firstKernel on) and the set serialized again.
// With `sharedKernelTable` (CPU), the graphs index one table of the rewritten kernels;
// otherwise (CUDA) each rewritten plan carries its own kernel table and firstKernel is 0.
llvm::Expected<ExecutionPlan>
rewriteModelPlan(const ModelPlan &model, const GraphPlanRewrite &rewrite, bool sharedKernelTable);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_MULTIGRAPHPLAN_H_
