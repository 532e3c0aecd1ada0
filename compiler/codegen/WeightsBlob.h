// The weights blob of a model.so: the artifact weights that the model function still
// reads, by reference into the artifact file, and the weights the compiler derived
// (pt2c-fold-weights: arguments carrying `pt2c.value`), by value. Each starts 64-byte
// aligned. Artifact weights that no argument reads any more (folded into derived ones)
// are left out, so folding does not grow the .so; a weight the artifact stores once
// (tied parameters) is stored once.
#ifndef PT2C_COMPILER_CODEGEN_WEIGHTSBLOB_H_
#define PT2C_COMPILER_CODEGEN_WEIGHTSBLOB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/artifact/ArtifactFile.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace pt2c {

struct WeightsBlob {
  struct Piece {
    uint64_t offset = 0; // in the blob (64-byte aligned)
    uint64_t size = 0;
    bool derived = false;      // bytes from `derived`, else from the artifact's blob
    uint64_t sourceOffset = 0; // into the artifact's weights blob, or into `derived`
    // The FQN of the artifact weight, or the derived weight's name (`#fold3`); the first
    // argument's when several share the piece. An external weights file's recipe
    // (compiler/driver/ExternalWeights.h) names pieces by it.
    std::string name;
  };
  std::vector<Piece> pieces; // by increasing offset
  std::string derived;       // the derived weights' bytes, back to back
  uint64_t size = 0;
  // Blob offset of each weight or state argument.
  llvm::DenseMap<mlir::Value, uint64_t> argumentOffsets;
};

// Diagnoses (on the function) a weight missing from the artifact, a size that does not
// match the argument's type, and a derived weight whose value is not a dense_resource.
// Several model functions (the graphs of a multi-graph artifact) share one blob: an
// artifact weight they all read is stored once.
mlir::FailureOr<WeightsBlob> layoutWeightsBlob(llvm::ArrayRef<mlir::func::FuncOp> models,
                                               const ArtifactFile &artifact);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_WEIGHTSBLOB_H_
