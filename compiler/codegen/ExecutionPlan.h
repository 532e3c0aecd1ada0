// Builds the execution plan of a model function after pt2c-form-kernels: which kernel
// runs at each step on which buffers, where every buffer lives (caller's input/output,
// weights blob, scratch arena) and the arena's memory plan. The result is the byte blob
// whose format runtime/include/pt2c/plan_format.h defines.
#ifndef PT2C_COMPILER_CODEGEN_EXECUTIONPLAN_H_
#define PT2C_COMPILER_CODEGEN_EXECUTIONPLAN_H_

#include <string>
#include <vector>

#include "compiler/codegen/WeightsBlob.h"
#include "ir/artifact/ArtifactFile.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace pt2c {

struct ExecutionPlan {
  // Kernel function names in kernel-table order (the plan's step.kernel indexes them).
  std::vector<std::string> kernels;
  std::string bytes;
  uint64_t arenaSize = 0;
  // The blob the plan's WEIGHT and STATE buffers point into (WeightsBlob.h).
  WeightsBlob weights;
};

// Diagnoses (on the function) anything the plan cannot express.
// `sharedWeights`: the blob of all the model functions of a multi-graph artifact
// (layoutWeightsBlob of them all); null: this function's own.
mlir::FailureOr<ExecutionPlan> buildExecutionPlan(mlir::func::FuncOp model,
                                                  const ArtifactFile &artifact,
                                                  const WeightsBlob *sharedWeights = nullptr);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_EXECUTIONPLAN_H_
