#include "compiler/codegen/LoweringPipelines.h"

#include "llvm/Support/raw_ostream.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

namespace pt2c {

mlir::LogicalResult runPassPipeline(mlir::ModuleOp module, llvm::StringRef pipeline,
                                    llvm::StringRef what) {
  mlir::PassManager pm(module->getName());
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (mlir::failed(mlir::parsePassPipeline(pipeline, pm, errorStream)))
    return module.emitError() << "internal error: bad " << what << " pipeline: " << errors;
  return pm.run(module);
}

}  // namespace pt2c
