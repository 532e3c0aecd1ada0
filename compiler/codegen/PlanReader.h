// Reads a serialized plan back into records (the inverse of serializePlan), so that a
// target can rewrite the plan buildExecutionPlan made (compiler/codegen/cuda expands each
// kernel step into GPU launches) without a second plan builder.
#ifndef PT2C_COMPILER_CODEGEN_PLANREADER_H_
#define PT2C_COMPILER_CODEGEN_PLANREADER_H_

#include <string>

#include "compiler/codegen/PlanWriter.h"
#include "llvm/Support/Error.h"

namespace pt2c {

// Fails on a blob serializePlan cannot have written (bad magic or version, sizes that do
// not add up); it does not re-validate indices.
llvm::Expected<PlanRecords> readPlanRecords(const std::string& bytes);

}  // namespace pt2c

#endif  // PT2C_COMPILER_CODEGEN_PLANREADER_H_
