#include "ir/artifact/ArtifactFile.h"

#include <cstring>

#include "llvm/Support/Endian.h"

namespace pt2c {

static llvm::Error fail(const std::string& path, const llvm::Twine& why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": not a valid .pt2c artifact: " + why);
}

llvm::Expected<ArtifactFile> readArtifactFile(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read " + path + ": " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() < 16 || std::memcmp(bytes.data(), kArtifactMagic, 8) != 0)
    return fail(path, "bad magic (expected a file written by `pt2c export`)");
  uint64_t length = llvm::support::endian::read64le(bytes.data() + 8);
  if (length > bytes.size() - 16) return fail(path, "truncated message");

  ArtifactFile file;
  if (!file.message.ParseFromArray(bytes.data() + 16, static_cast<int>(length)))
    return fail(path, "the artifact message does not parse");
  uint64_t blobStart = llvm::alignTo(16 + length, kArtifactAlignment);
  file.weights = blobStart <= bytes.size() ? bytes.drop_front(blobStart) : llvm::StringRef();
  for (const auto& w : file.message.weights()) {
    if (w.offset() % kArtifactAlignment != 0)
      return fail(path, "weight '" + w.name() + "' is not 64-byte aligned");
    if (w.offset() > file.weights.size() || w.nbytes() > file.weights.size() - w.offset())
      return fail(path, "weight '" + w.name() + "' lies outside the weights blob");
  }
  file.buffer = std::move(*buffer);
  return file;
}

}  // namespace pt2c
