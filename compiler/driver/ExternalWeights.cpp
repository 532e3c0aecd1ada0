#include "compiler/driver/ExternalWeights.h"

#include <cstring>

#include "pt2c/shared/content_hash.h"
#include "pt2c/weights_format.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

namespace pt2c {
namespace {

// Pieces start 64-byte aligned (WeightsBlob.cpp), so gaps are shorter than this.
constexpr char kZeros[64] = {};

// Calls `chunk` with the blob's bytes in order: each piece's, and the zeros between.
template <typename BytesOf, typename Chunk>
void forEachChunk(const WeightsBlob &blob, BytesOf bytesOf, Chunk chunk) {
  uint64_t end = 0;
  auto zeros = [&](uint64_t n) {
    for (; n > 0; n -= std::min<uint64_t>(n, sizeof kZeros))
      chunk(llvm::StringRef(kZeros, std::min<uint64_t>(n, sizeof kZeros)));
  };
  for (const WeightsBlob::Piece &piece : blob.pieces) {
    zeros(piece.offset - end);
    chunk(bytesOf(piece));
    end = piece.offset + piece.size;
  }
  zeros(blob.size - end);
}

std::string hex64(uint64_t value) { return llvm::utohexstr(value, /*LowerCase=*/true, 16); }

std::string sha256Hex(llvm::StringRef bytes) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes)), true);
}

} // namespace

ExternalWeights::ExternalWeights(const WeightsBlob &blob, const ArtifactFile &artifact)
    : blob_(blob), artifact_(artifact) {
  for (const auto &graph : artifact.message.graphs())
    for (const auto &input : graph.inputs())
      kinds_.try_emplace(input.name(), input.kind());
  for (const auto &w : artifact.message.weights())
    entries_[w.name()] = &w;
  // The fingerprint names every piece by offset, size and source: a file made for
  // another layout (another model, other fold decisions) has another one.
  std::string layout = "pt2c-weights " + std::to_string(blob.size) + "\n";
  for (const WeightsBlob::Piece &piece : blob.pieces) {
    layout += std::to_string(piece.offset) + " " + std::to_string(piece.size) + " " +
              sourceOf(piece) + " " + piece.name + "\n";
    if (inSideFile(piece))
      derivedBytes_ += piece.size;
  }
  pt2c_content_hasher hasher;
  pt2c_content_hash_init(&hasher);
  forEachChunk(
      blob, [&](const WeightsBlob::Piece &p) { return bytesOf(p); },
      [&](llvm::StringRef bytes) {
        pt2c_content_hash_update(&hasher, bytes.data(), bytes.size());
      });
  record_.blobSize = blob.size;
  record_.fingerprint = pt2c_content_hash(layout.data(), layout.size());
  record_.checksum = pt2c_content_hash_final(&hasher);
}

std::string ExternalWeights::sourceOf(const WeightsBlob::Piece &piece) const {
  if (piece.derived)
    return "derived";
  auto it = kinds_.find(piece.name);
  if (it != kinds_.end() && it->second == artifact::InputSpec::PARAMETER)
    return "parameter";
  if (it != kinds_.end() && it->second == artifact::InputSpec::BUFFER)
    return "buffer";
  return "constant"; // a tensor the trace met: the live model need not hold it by name
}

bool ExternalWeights::inSideFile(const WeightsBlob::Piece &piece) const {
  std::string source = sourceOf(piece);
  return source == "derived" || source == "constant";
}

llvm::StringRef ExternalWeights::bytesOf(const WeightsBlob::Piece &piece) const {
  return llvm::StringRef(piece.derived ? blob_.derived : artifact_.weights)
      .substr(piece.sourceOffset, piece.size);
}

llvm::Expected<std::vector<AtomicOutput>> ExternalWeights::write(const std::string &path) const {
  std::vector<AtomicOutput> outputs;
  auto bytesOf = [&](const WeightsBlob::Piece &p) { return this->bytesOf(p); };
  auto weights = writeAtomicOutput(path, [&](llvm::raw_ostream &out) {
    pt2c_weights_file_header header = {};
    std::memcpy(header.magic, PT2C_WEIGHTS_FILE_MAGIC, sizeof header.magic);
    header.version = PT2C_WEIGHTS_FILE_VERSION;
    header.header_size = PT2C_WEIGHTS_FILE_HEADER_SIZE;
    header.blob_size = record_.blobSize;
    header.fingerprint = record_.fingerprint;
    header.checksum = record_.checksum;
    out.write(reinterpret_cast<const char *>(&header), sizeof header);
    forEachChunk(blob_, bytesOf, [&](llvm::StringRef bytes) { out << bytes; });
  });
  if (!weights)
    return weights.takeError();
  outputs.push_back(std::move(*weights));

  std::string sideFile = path + ".derived";
  if (derivedBytes_ > 0) {
    auto side = writeAtomicOutput(sideFile, [&](llvm::raw_ostream &out) {
      for (const WeightsBlob::Piece &piece : blob_.pieces)
        if (inSideFile(piece))
          out << bytesOf(piece);
    });
    if (!side)
      return side.takeError();
    outputs.push_back(std::move(*side));
  }

  auto recipe = writeAtomicOutput(path + ".json", [&](llvm::raw_ostream &out) {
    llvm::json::OStream json(out, 1);
    json.object([&] {
      json.attribute("format", "pt2c-weights-recipe");
      json.attribute("version", 1);
      json.attribute("weights_file_version", int64_t(PT2C_WEIGHTS_FILE_VERSION));
      json.attribute("model_path", artifact_.message.model_path());
      json.attribute("producer", artifact_.message.producer());
      json.attribute("blob_size", int64_t(record_.blobSize));
      json.attribute("fingerprint", hex64(record_.fingerprint));
      json.attribute("checksum", hex64(record_.checksum));
      if (derivedBytes_ > 0)
        json.attribute("derived_file", llvm::sys::path::filename(sideFile).str());
      else
        json.attribute("derived_file", nullptr);
      json.attribute("derived_size", int64_t(derivedBytes_));
      uint64_t sideOffset = 0;
      json.attributeArray("pieces", [&] {
        for (const WeightsBlob::Piece &piece : blob_.pieces) {
          json.object([&] {
            json.attribute("offset", int64_t(piece.offset));
            json.attribute("size", int64_t(piece.size));
            json.attribute("source", sourceOf(piece));
            json.attribute("name", piece.name);
            auto entry = entries_.find(piece.name);
            if (!piece.derived && entry != entries_.end())
              json.attribute("dtype", artifact::DType_Name(entry->second->meta().dtype()));
            if (inSideFile(piece)) {
              json.attribute("derived_offset", int64_t(sideOffset));
              sideOffset += piece.size;
            }
            json.attribute("sha256", sha256Hex(bytesOf(piece)));
          });
        }
      });
    });
    out << "\n";
  });
  if (!recipe)
    return recipe.takeError();
  outputs.push_back(std::move(*recipe));
  return outputs;
}

} // namespace pt2c
