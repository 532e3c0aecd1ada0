#include "ir/artifact/ArtifactFile.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "google/protobuf/stubs/logging.h"
#include "ir/artifact/PrintableText.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"

namespace pt2c {

// Protobuf logs why a message does not parse (a string field that is not UTF-8) to
// stderr by itself, through a process-wide handler. While one message is parsed, the
// handler keeps the first such line instead, for the error pt2c reports.
class ProtobufLogCapture {
public:
  ProtobufLogCapture() : previous(google::protobuf::SetLogHandler(&capture)) { first().clear(); }
  ~ProtobufLogCapture() { google::protobuf::SetLogHandler(previous); }
  static std::string &first() {
    thread_local std::string text;
    return text;
  }

private:
  static void capture(google::protobuf::LogLevel, const char *, int, const std::string &message) {
    if (first().empty())
      first() = message;
  }
  google::protobuf::LogHandler *previous;
};

// Artifact names in messages, escaped.
static std::string quoted(const std::string &name) { return "'" + printableText(name) + "'"; }

static llvm::Error fail(const std::string &path, const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": not a valid .pt2c artifact: " + why);
}

// Bytes per element of an artifact dtype, or 0 for an unknown one.
static uint64_t elementSize(int dtype) {
  switch (dtype) {
  case artifact::F64:
  case artifact::I64:
    return 8;
  case artifact::F32:
  case artifact::I32:
    return 4;
  case artifact::F16:
  case artifact::BF16:
  case artifact::I16:
    return 2;
  case artifact::I8:
  case artifact::U8:
  case artifact::BOOL:
    return 1;
  default:
    return 0;
  }
}

// Every weight inside the blob, aligned, of the size its dtype and (constant) sizes
// give, and overlapping no other weight: tied weights share one region exactly.
static llvm::Error checkWeights(const std::string &path, const ArtifactFile &file) {
  std::vector<std::pair<uint64_t, uint64_t>> regions; // offset, nbytes
  for (const auto &w : file.message.weights()) {
    if (w.offset() % kArtifactAlignment != 0)
      return fail(path, "weight " + quoted(w.name()) + " is not 64-byte aligned");
    if (w.offset() > file.weights.size() || w.nbytes() > file.weights.size() - w.offset())
      return fail(path, "weight " + quoted(w.name()) + " lies outside the weights blob");
    uint64_t expected = elementSize(w.meta().dtype());
    if (expected == 0)
      return fail(path, "weight " + quoted(w.name()) + " has an unknown dtype");
    for (const auto &size : w.meta().sizes())
      if (size.kind_case() != artifact::SymInt::kValue || size.value() < 0 ||
          __builtin_mul_overflow(expected, static_cast<uint64_t>(size.value()), &expected))
        return fail(path, "weight " + quoted(w.name()) + " has a size that is not a constant >= 0");
    if (expected != w.nbytes())
      return fail(path, "weight " + quoted(w.name()) + " holds " + llvm::Twine(w.nbytes()) +
                            " bytes, its dtype and sizes say " + llvm::Twine(expected));
    if (w.nbytes() > 0)
      regions.emplace_back(w.offset(), w.nbytes());
  }
  std::sort(regions.begin(), regions.end());
  regions.erase(std::unique(regions.begin(), regions.end()), regions.end());
  for (size_t i = 1; i < regions.size(); ++i)
    if (regions[i - 1].first + regions[i - 1].second > regions[i].first)
      return fail(path, "two weights overlap at blob offset " + llvm::Twine(regions[i].first));
  return llvm::Error::success();
}

llvm::Expected<ArtifactFile> readArtifactFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read " + path + ": " + buffer.getError().message());
  return readArtifactBuffer(std::move(*buffer), path);
}

llvm::Expected<ArtifactFile> readArtifactBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                                const std::string &path) {
  llvm::StringRef bytes = buffer->getBuffer();
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kArtifactMagic, 7) != 0)
    return fail(path, "bad magic (expected a file written by `pt2c export`)");
  unsigned version = static_cast<unsigned char>(bytes[7]);
  unsigned expected = static_cast<unsigned char>(kArtifactMagic[7]);
  if (version != expected)
    return fail(path, "format version " + llvm::Twine(version) + ", this pt2c reads version " +
                          llvm::Twine(expected) + ": export the model again with this pt2c");
  if (bytes.size() < kArtifactHeaderSize)
    return fail(path, "truncated header");
  uint64_t length = llvm::support::endian::read64le(bytes.data() + 8);
  uint32_t crc = llvm::support::endian::read32le(bytes.data() + 16);
  if (llvm::support::endian::read32le(bytes.data() + 20) != 0)
    return fail(path, "reserved header bytes are not zero");
  if (length > bytes.size() - kArtifactHeaderSize || length > INT32_MAX)
    return fail(path, "truncated message");
  llvm::StringRef message = bytes.substr(kArtifactHeaderSize, length);
  uint64_t blobStart = llvm::alignTo(kArtifactHeaderSize + length, kArtifactAlignment);
  // The writer always pads the message to the blob's alignment with zeros. The CRC-32
  // does not cover that padding, so it is checked here: otherwise a damaged byte there
  // would pass unnoticed.
  if (blobStart > bytes.size())
    return fail(path, "truncated before the weights blob");
  if (bytes.slice(kArtifactHeaderSize + length, blobStart).find_first_not_of('\0') !=
      llvm::StringRef::npos)
    return fail(path, "the padding after the message is not zero");
  llvm::StringRef blob = bytes.drop_front(blobStart);
  auto asBytes = [](llvm::StringRef s) {
    return llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(s.data()), s.size());
  };
  uint32_t actual = llvm::crc32(llvm::crc32(asBytes(message)), asBytes(blob));
  if (actual != crc)
    return fail(path, "its CRC-32 is " + llvm::utohexstr(actual) + ", the exporter recorded " +
                          llvm::utohexstr(crc) + ": the file was damaged after export");

  ArtifactFile file;
  ProtobufLogCapture log;
  if (!file.message.ParseFromArray(message.data(), static_cast<int>(length)))
    return fail(
        path, "the artifact message does not parse" +
                  (log.first().empty() ? std::string() : " (" + printableText(log.first()) + ")"));
  file.weights = blob;
  if (llvm::Error error = checkWeights(path, file))
    return std::move(error);
  file.buffer = std::move(buffer);
  return file;
}

} // namespace pt2c
