// Marks the buffer parameters of a CPU kernel `noalias` when every step of the plan that
// calls it passes buffers that share no bytes. LLVM may then keep a reduction's
// accumulator in a register instead of storing it through the output pointer after
// every term, and vectorize loops without run-time overlap checks. Kernels that some step
// calls with overlapping buffers (a state buffer read and written in place) keep plain
// pointers.
#ifndef PT2C_COMPILER_CODEGEN_NOALIASKERNELARGS_H_
#define PT2C_COMPILER_CODEGEN_NOALIASKERNELARGS_H_

#include <set>
#include <string>
#include <vector>

#include "compiler/codegen/ExecutionPlan.h"
#include "llvm/IR/Module.h"

namespace pt2c {

// Per kernel of the plan (ExecutionPlan::kernels): whether every step that calls it
// passes buffers that share no bytes, in a lone plan or any graph of a plan set. Empty if
// the plan cannot be read.
std::vector<bool> kernelsWithDisjointArgs(const ExecutionPlan &plan);

// `m` holds the plan's kernels by name (ExecutionPlan::kernels); `disjoint` is
// kernelsWithDisjointArgs(plan); `symbolKernels` take the symbol values first
// (CpuCodegenOptions). Returns how many got noalias parameters.
size_t addNoAliasKernelArgs(llvm::Module &m, const ExecutionPlan &plan,
                            const std::vector<bool> &disjoint,
                            const std::set<std::string> &symbolKernels);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_NOALIASKERNELARGS_H_
