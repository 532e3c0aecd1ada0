// The bytes of an external weights file (pt2c/weights_format.h) for tests: the header
// that `record` describes, then `blob`.
#ifndef PT2C_TESTS_UNIT_WEIGHTS_FILE_BYTES_H_
#define PT2C_TESTS_UNIT_WEIGHTS_FILE_BYTES_H_

#include <cstring>
#include <vector>

#include "pt2c/weights_format.h"

namespace pt2c::testing {

inline std::vector<unsigned char> weightsFileBytes(const std::vector<unsigned char> &blob,
                                                   const pt2c_external_weights &record) {
  pt2c_weights_file_header header = {};
  std::memcpy(header.magic, PT2C_WEIGHTS_FILE_MAGIC, 8);
  header.version = PT2C_WEIGHTS_FILE_VERSION;
  header.header_size = PT2C_WEIGHTS_FILE_HEADER_SIZE;
  header.blob_size = record.blob_size;
  header.fingerprint = record.fingerprint;
  header.checksum = record.checksum;
  std::vector<unsigned char> bytes(reinterpret_cast<unsigned char *>(&header),
                                   reinterpret_cast<unsigned char *>(&header) + sizeof header);
  bytes.insert(bytes.end(), blob.begin(), blob.end());
  return bytes;
}

} // namespace pt2c::testing

#endif // PT2C_TESTS_UNIT_WEIGHTS_FILE_BYTES_H_
