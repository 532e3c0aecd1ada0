#include "compiler/driver/ArtifactToPrim.h"

#include "compiler/import/Importer.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/fold/FoldWeights.h"
#include "ir/prim/PrimDialect.h"
#include "llvm/ADT/StringMap.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace pt2c {
namespace {

llvm::Error fail(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// pt2c-fold-weights, reading the weights from the artifact.
llvm::Error foldWeights(mlir::MLIRContext& context, mlir::ModuleOp module,
                        const ArtifactFile& artifact) {
  llvm::StringMap<const artifact::WeightEntry*> entries;
  for (const auto& w : artifact.message.weights()) entries[w.name()] = &w;
  FoldWeightsOptions fold;
  fold.weightBytes = [&](llvm::StringRef fqn) -> std::optional<llvm::StringRef> {
    auto it = entries.find(fqn);
    if (it == entries.end()) return std::nullopt;
    return artifact.weights.substr(it->second->offset(), it->second->nbytes());
  };
  mlir::PassManager pm(&context);
  pm.addPass(createFoldWeightsPass(std::move(fold)));
  if (mlir::failed(pm.run(module))) return fail("folding weights failed");
  return llvm::Error::success();
}

}  // namespace

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> importArtifactModule(
    mlir::MLIRContext& context, const ArtifactFile& artifact, const std::string& artifactPath) {
  mlir::OwningOpRef<mlir::ModuleOp> module = importArtifact(context, artifact);
  if (!module) return fail("import of " + artifactPath + " failed");
  return std::move(module);
}

llvm::Error lowerAtenToPrim(mlir::MLIRContext& context, mlir::ModuleOp module,
                            const ArtifactFile& artifact, const PrimLoweringOptions& options) {
  if (options.fusedOps) module->setAttr(prim::kFusedOpsAttr, mlir::UnitAttr::get(&context));
  mlir::PassManager decompose(&context);
  decompose.addPass(createFunctionalizePass());
  decompose.addPass(createDecomposeAtenToPrimPass());
  decompose.addPass(mlir::createCanonicalizerPass());
  // Each layer's decomposition rebuilds what it shares with the others (the attention
  // mask's conversion): one copy of each is enough.
  decompose.addPass(mlir::createCSEPass());
  if (mlir::failed(decompose.run(module))) return fail("lowering aten to prim failed");
  if (options.foldWeights) return foldWeights(context, module, artifact);
  return llvm::Error::success();
}

}  // namespace pt2c
