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
// not add up); it does not re-validate indices. With `usedBytes`, `bytes` may go on past
// the plan (a plan found inside a model.so: `pt2c inspect`), and *usedBytes is its size.
llvm::Expected<PlanRecords> readPlanRecords(const std::string &bytes,
                                            uint64_t *usedBytes = nullptr);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_PLANREADER_H_
