// A .pt2c file's bytes from its message and weights blob, as the exporter writes them,
// for tests that build artifacts in C++ (artifact_seeds.h, pbtxt_to_pt2c.cpp).
#ifndef PT2C_TESTS_UNIT_ARTIFACT_BYTES_H_
#define PT2C_TESTS_UNIT_ARTIFACT_BYTES_H_

#include <cstring>
#include <string>

#include "ir/artifact/ArtifactFile.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

namespace pt2c_test {

// The file the exporter writes (writer.py): header, message, padding to 64, blob; the
// CRC-32 covers the message and the blob.
inline std::string serializeArtifact(const pt2c::artifact::Artifact &message,
                                     const std::string &blob) {
  std::string body;
  message.SerializeToString(&body);
  std::string file(pt2c::kArtifactHeaderSize, '\0');
  std::memcpy(&file[0], pt2c::kArtifactMagic, 8);
  llvm::support::endian::write64le(&file[8], body.size());
  auto bytes = [](const std::string &s) {
    return llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(s.data()), s.size());
  };
  llvm::support::endian::write32le(&file[16], llvm::crc32(llvm::crc32(bytes(body)), bytes(blob)));
  file += body;
  file.resize(llvm::alignTo(file.size(), pt2c::kArtifactAlignment), '\0');
  return file + blob;
}

} // namespace pt2c_test

#endif // PT2C_TESTS_UNIT_ARTIFACT_BYTES_H_
