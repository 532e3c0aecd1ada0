// The front half of `pt2c compile`, from a read artifact to a module of prim ops:
// import (aten ops, verified) and the aten -> prim lowering. One function per half so
// that the driver can stop after import (--emit aten) and the artifact fuzz test
// (tests/unit/artifact_fuzz_test.cpp) runs exactly what the driver runs.
#ifndef PT2C_COMPILER_DRIVER_ARTIFACTTOPRIM_H_
#define PT2C_COMPILER_DRIVER_ARTIFACTTOPRIM_H_

#include <string>

#include "ir/artifact/ArtifactFile.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

namespace pt2c {

// Imports and verifies every graph; the reasons for a failure are diagnostics on the
// context, the returned error names `artifactPath`.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importArtifactModule(mlir::MLIRContext &context, const ArtifactFile &artifact,
                     const std::string &artifactPath);

struct PrimLoweringOptions {
  bool fusedOps = false;   // the GPU's prim.attention and prim.layer_norm (CUDA targets)
  bool foldWeights = true; // pt2c-fold-weights with the artifact's weights
};

// The pipeline pt2c-aten-to-prim (compiler/transforms/Pipelines.h): functionalize,
// decompose aten to prim, canonicalize, CSE, then fold weights.
llvm::Error lowerAtenToPrim(mlir::MLIRContext &context, mlir::ModuleOp module,
                            const ArtifactFile &artifact, const PrimLoweringOptions &options);

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_ARTIFACTTOPRIM_H_
