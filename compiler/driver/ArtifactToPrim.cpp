#include "compiler/driver/ArtifactToPrim.h"

#include "compiler/import/Importer.h"
#include "compiler/transforms/Pipelines.h"
#include "ir/contract/ModelContract.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"

namespace pt2c {
namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importArtifactModule(mlir::MLIRContext &context, const ArtifactFile &artifact,
                     const std::string &artifactPath) {
  mlir::OwningOpRef<mlir::ModuleOp> module = importArtifact(context, artifact);
  if (!module)
    return fail("import of " + artifactPath + " failed");
  return std::move(module);
}

llvm::Error lowerAtenToPrim(mlir::MLIRContext &context, mlir::ModuleOp module,
                            const ArtifactFile &artifact, const PrimLoweringOptions &options) {
  if (options.fusedOps)
    module->setAttr(kFusedOpsAttr, mlir::UnitAttr::get(&context));
  // pt2c-fold-weights reads the weights from the artifact.
  llvm::StringMap<const artifact::WeightEntry *> entries;
  for (const auto &w : artifact.message.weights())
    entries[w.name()] = &w;
  AtenToPrimOptions pipeline;
  pipeline.foldWeights = options.foldWeights;
  pipeline.weightBytes = [&](llvm::StringRef fqn) -> std::optional<llvm::StringRef> {
    auto it = entries.find(fqn);
    if (it == entries.end())
      return std::nullopt;
    return artifact.weights.substr(it->second->offset(), it->second->nbytes());
  };
  mlir::PassManager pm(&context);
  buildAtenToPrimPipeline(pm, pipeline);
  if (mlir::failed(pm.run(module)))
    return fail("lowering aten to prim failed");
  return llvm::Error::success();
}

} // namespace pt2c
