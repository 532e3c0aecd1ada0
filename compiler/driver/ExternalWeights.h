// `pt2c --external-weights`: the weights blob (compiler/codegen/WeightsBlob.h) goes to a
// file of its own (runtime/include/pt2c/weights_format.h) instead of into model.so, for
// models too big to carry, and with it
//   WEIGHTS.json     the recipe: per blob piece its offset, size, source ("parameter",
//                    "buffer": a weight of the live model by FQN; "derived", "constant":
//                    bytes in the side file) and SHA-256, plus the fingerprint and checksum
//                    the .so records;
//   WEIGHTS.derived  the side file: the bytes of the pieces the model alone cannot give
//                    (weights the compiler folded, anonymous constants), back to back.
// From these the exporter writes the same weights file from a fresh instance of the model
// (`python -m pt2c_exporter weights`) on a machine the big file cannot be carried to.
#ifndef PT2C_COMPILER_DRIVER_EXTERNALWEIGHTS_H_
#define PT2C_COMPILER_DRIVER_EXTERNALWEIGHTS_H_

#include <string>
#include <vector>

#include "compiler/codegen/CpuCodegen.h"
#include "compiler/codegen/WeightsBlob.h"
#include "compiler/driver/AtomicOutput.h"
#include "ir/artifact/ArtifactFile.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

namespace pt2c {

class ExternalWeights {
public:
  // Computes the layout fingerprint and the data checksum of `blob`.
  ExternalWeights(const WeightsBlob &blob, const ArtifactFile &artifact);

  // What model.so records (CpuCodegenOptions::externalWeights).
  const CpuCodegenOptions::ExternalWeights &record() const { return record_; }
  uint64_t derivedBytes() const { return derivedBytes_; }

  // Writes the weights file at `path` and its recipe and side file (path + ".json",
  // path + ".derived") to temporaries beside them; commit them once model.so is linked.
  llvm::Expected<std::vector<AtomicOutput>> write(const std::string &path) const;

private:
  // "parameter", "buffer", "constant" (by the artifact's input specs) or "derived".
  std::string sourceOf(const WeightsBlob::Piece &piece) const;
  llvm::StringRef bytesOf(const WeightsBlob::Piece &piece) const;
  bool inSideFile(const WeightsBlob::Piece &piece) const;

  const WeightsBlob &blob_;
  const ArtifactFile &artifact_;
  llvm::StringMap<artifact::InputSpec::Kind> kinds_;       // by FQN
  llvm::StringMap<const artifact::WeightEntry *> entries_; // by FQN
  CpuCodegenOptions::ExternalWeights record_;
  uint64_t derivedBytes_ = 0;
};

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_EXTERNALWEIGHTS_H_
