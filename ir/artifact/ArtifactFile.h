// Reads a .pt2c file: the Artifact message and the weights blob that follows it.
// The layout is documented at the top of pt2c.proto.
#ifndef PT2C_IR_ARTIFACT_ARTIFACTFILE_H_
#define PT2C_IR_ARTIFACT_ARTIFACTFILE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "ir/artifact/pt2c.pb.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace pt2c {

// "PT2CART" and the format version, 2: a CRC-32 of the message and the blob follows the
// message length (version 1 had none).
constexpr char kArtifactMagic[8] = {'P', 'T', '2', 'C', 'A', 'R', 'T', '\x02'};
constexpr uint64_t kArtifactHeaderSize = 24;
constexpr uint64_t kArtifactAlignment = 64;

struct ArtifactFile {
  artifact::Artifact message;
  // The whole file, mapped; `weights` points into it.
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  llvm::StringRef weights;
};

// Fails with a message naming the file and the problem (missing, truncated, bad magic,
// another format version, a CRC-32 that does not match, unparsable message, a weight
// outside the blob, overlapping another or of the wrong size for its dtype and shape).
// Names from the file are escaped in the messages (PrintableText.h); a message that does
// not parse is one error, with protobuf's own complaint in it instead of on stderr.
llvm::Expected<ArtifactFile> readArtifactFile(const std::string &path);

// The same checks on a file's bytes already in memory (`path` names it in messages):
// readArtifactFile reads the file and calls this; the artifact fuzz test calls it
// directly.
llvm::Expected<ArtifactFile> readArtifactBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                                const std::string &path);

} // namespace pt2c

#endif // PT2C_IR_ARTIFACT_ARTIFACTFILE_H_
