// The CPU plan with dense math on the runtime's microkernels: GEMM and convolution kernel
// functions become GEMM and convolution steps (dense/LibrarySteps.h), which the runtime
// serves with its packed, register-blocked, threaded kernels (runtime/src/cpu), followed
// by the generated kernels as the fallback for what it does not serve. Every other step
// stays one call of its generated kernel.
#ifndef PT2C_COMPILER_CODEGEN_CPULIBRARYPLAN_H_
#define PT2C_COMPILER_CODEGEN_CPULIBRARYPLAN_H_

#include "compiler/codegen/ExecutionPlan.h"
#include "compiler/codegen/MultiGraphPlan.h"
#include "compiler/codegen/dense/LibrarySteps.h"
#include "llvm/Support/Error.h"

namespace pt2c {

// `model`'s plan (a lone plan or a plan set, each graph rewritten) with library steps; the
// result's `kernels` lists the kernel functions in kernel-table order (split prologues
// included).
llvm::Expected<ExecutionPlan> addCpuLibrarySteps(const ModelPlan &model, const DenseKernels &dense);

// ", 12 GEMM steps, 20 convolution steps (microkernels)" for the progress line; empty
// when the plan has none.
std::string describeLibrarySteps(const ExecutionPlan &plan);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CPULIBRARYPLAN_H_
