// The rewrite every target shares when dense math leaves the generated kernels: a step of
// a split kernel function (SplitGemmPrologues.h) becomes the steps of its two parts; a
// step of a GEMM kernel (GemmKernels.h) becomes a GEMM step (plan_format.h) followed by
// its own kernel's steps as the fallback, and an epilogue kernel right after it that
// reads only the product (bias, bias + ReLU, a residual add, bias + residual; also a bias
// kernel then a residual-add kernel) joins the GEMM step (its steps join the fallback). Convolution
// kernels (ConvKernels.h) become convolution steps the same way, joined by a bias
// (+ ReLU, + residual) epilogue kernel.
//
// What a kernel function's step becomes in the target's plan (CUDA: its GPU launches; CPU:
// one call of its generated code) is the target's part: `expandKernelStep`.
#ifndef PT2C_COMPILER_CODEGEN_DENSE_LIBRARYSTEPS_H_
#define PT2C_COMPILER_CODEGEN_DENSE_LIBRARYSTEPS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/codegen/PlanWriter.h"
#include "compiler/codegen/dense/ConvKernels.h"
#include "compiler/codegen/dense/GemmKernels.h"
#include "compiler/codegen/dense/SplitGemmPrologues.h"
#include "llvm/Support/Error.h"

namespace pt2c {

// What the matchers found in the kernel module, read before any lowering rewrites it.
struct DenseKernels {
  GemmKernelTable gemms;
  ConvKernelTable convs;
  std::map<std::string, SplitKernel> splits;
};

// Splits GEMM and convolution prologues off in `kernels` (in place), then finds the GEMM
// and convolution kernel functions and their epilogues.
// What a target's library steps take beyond the common ground.
struct DenseOptions {
  GemmMatchOptions gemms;
  ConvMatchOptions convs;
  SplitOptions splits;
};

DenseKernels findDenseKernels(mlir::ModuleOp kernels, const DenseOptions &options = {});

llvm::Error internalError(const llvm::Twine &message);

class LibraryStepPlanner {
public:
  LibraryStepPlanner(PlanRecords &records, const DenseKernels &dense) : r(records), dense(dense) {}
  virtual ~LibraryStepPlanner() = default;

  // Rewrites the records' steps and step args; `stepKernels` names the kernel function of
  // each step.kernel of the plan buildExecutionPlan made.
  llvm::Error run(std::vector<std::string> stepKernels);

protected:
  // Called once the split steps are in place (r.arenaSize is final), before the first
  // expandKernelStep.
  virtual void beginExpansion() {}
  // Appends to `steps`/`stepArgs` what kernel function `name` on `buffers` becomes.
  virtual llvm::Error expandKernelStep(const std::string &name,
                                       const std::vector<uint32_t> &buffers) = 0;

  PlanRecords &r;
  std::vector<pt2c_plan_step> steps; // the rewritten plan's steps and args
  std::vector<uint32_t> stepArgs;

private:
  void splitSteps(std::vector<std::string> &stepKernels);
  std::vector<uint32_t> buffersOf(const pt2c_plan_step &step) const;
  template <typename Record>
  llvm::Error libraryStep(pt2c_plan_step_kind kind, Record record, size_t joined,
                          std::vector<Record> &table, const std::vector<uint32_t> &args, size_t i,
                          const std::vector<std::string> &stepKernels);
  template <typename Epilogue>
  const Epilogue *nextEpilogue(size_t i, const std::vector<std::string> &stepKernels,
                               const std::map<std::string, Epilogue> &epilogues) const;
  bool epilogueMayJoin(size_t i, uint32_t product, uint32_t out,
                       const std::vector<uint32_t> &operands) const;
  std::vector<uint32_t> convArgs(size_t i, const std::vector<std::string> &stepKernels,
                                 const ConvKernel &conv, pt2c_plan_conv &c) const;
  std::vector<uint32_t> gemmArgs(size_t i, const std::vector<std::string> &stepKernels,
                                 const GemmKernel &gemm, pt2c_plan_gemm &g, size_t &joined) const;
  std::optional<std::vector<uint32_t>> joinGemmEpilogue(size_t i, uint32_t product,
                                                        const GemmEpilogueKernel &e,
                                                        const pt2c_plan_gemm &g,
                                                        std::vector<uint32_t> operands) const;
  bool overlap(uint32_t a, uint32_t b) const;

  const DenseKernels &dense;
};

// Rounds up to the arena planner's alignment.
uint64_t alignArena(uint64_t value);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_DENSE_LIBRARYSTEPS_H_
