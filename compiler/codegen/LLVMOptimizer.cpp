#include "compiler/codegen/LLVMOptimizer.h"

#include "llvm/Passes/PassBuilder.h"

namespace pt2c {

void optimizeModuleO3(llvm::Module &module, llvm::TargetMachine &target, bool unrollLoops) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = unrollLoops;
  llvm::PassBuilder pb(&target, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
}

} // namespace pt2c
