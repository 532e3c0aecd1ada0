#include "compiler/codegen/WeightsBlob.h"

#include "compiler/transforms/fold/FoldWeights.h"
#include "ir/contract/ModelContract.h"
#include "ir/contract/StorageBytes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringMap.h"

namespace pt2c {
namespace {

constexpr uint64_t kAlignment = 64; // runtime/src/model.c: kWeightsAlignment

uint64_t alignUp(uint64_t x) { return (x + kAlignment - 1) / kAlignment * kAlignment; }

} // namespace

mlir::FailureOr<WeightsBlob> layoutWeightsBlob(llvm::ArrayRef<mlir::func::FuncOp> models,
                                               const ArtifactFile &artifact) {
  llvm::StringMap<const artifact::WeightEntry *> entries;
  for (const auto &w : artifact.message.weights())
    entries[w.name()] = &w;
  WeightsBlob blob;
  // (artifact offset, size) -> blob offset
  llvm::DenseMap<std::pair<uint64_t, uint64_t>, uint64_t> placed;
  // hash of a derived weight's bytes -> where they are
  struct DerivedPiece {
    uint64_t offset = 0, source = 0, size = 0; // in the blob, in blob.derived
  };
  llvm::DenseMap<llvm::hash_code, DerivedPiece> derivedPlaced;
  auto place = [&](uint64_t size, bool derived, uint64_t source, llvm::StringRef name) {
    uint64_t offset = alignUp(blob.size);
    blob.pieces.push_back({offset, size, derived, source, name.str()});
    blob.size = offset + size;
    return offset;
  };
  for (mlir::func::FuncOp func : models)
    for (mlir::BlockArgument arg : func.getArguments()) {
      unsigned i = arg.getArgNumber();
      auto fqn = func.getArgAttrOfType<mlir::StringAttr>(i, kWeightAttr);
      if (!fqn)
        fqn = func.getArgAttrOfType<mlir::StringAttr>(i, kStateAttr);
      auto type = llvm::dyn_cast<mlir::RankedTensorType>(arg.getType());
      if (!fqn || !type || !type.hasStaticShape())
        continue; // inputs; the plan checks types
      if (auto value = func.getArgAttr(i, kWeightValueAttr)) {
        auto resource = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(value);
        mlir::AsmResourceBlob *data = resource ? resource.getRawHandle().getBlob() : nullptr;
        if (!data || data->getData().size() != storageBytes(type))
          return func.emitError() << "derived weight '" << fqn.strref()
                                  << "' needs a dense_resource value of " << storageBytes(type)
                                  << " bytes";
        // The graphs of a multi-graph artifact fold the same weights into the same bytes.
        llvm::StringRef bytes(data->getData().data(), data->getData().size());
        auto [slot, fresh] = derivedPlaced.try_emplace(llvm::hash_value(bytes));
        DerivedPiece &known = slot->second;
        if (fresh || llvm::StringRef(blob.derived).substr(known.source, known.size) != bytes) {
          uint64_t source = blob.derived.size();
          known = {place(bytes.size(), true, source, fqn.strref()), source, bytes.size()};
          blob.derived.append(bytes.data(), bytes.size());
        }
        blob.argumentOffsets[arg] = known.offset;
        continue;
      }
      auto it = entries.find(fqn.strref());
      if (it == entries.end())
        return func.emitError() << "weight '" << fqn.strref() << "' is not in the artifact";
      const artifact::WeightEntry &w = *it->second;
      if (w.nbytes() != storageBytes(type))
        return func.emitError() << "weight '" << fqn.strref() << "' has " << w.nbytes()
                                << " bytes, its type needs " << storageBytes(type);
      auto [slot, fresh] = placed.try_emplace({w.offset(), w.nbytes()}, 0);
      if (fresh)
        slot->second = place(w.nbytes(), false, w.offset(), w.name());
      blob.argumentOffsets[arg] = slot->second;
    }
  return blob;
}

} // namespace pt2c
