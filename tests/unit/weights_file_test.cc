// The external weights file (pt2c/weights_format.h) as the runtime opens it: a good file
// maps, and every way a file can be wrong is one clear PT2C_ERROR_WEIGHTS_FILE. Also the
// checksum: data hashed in pieces hashes as in one.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "pt2c/weights_format.h"
#include "runtime/src/weights_file.h"
#include "runtime/src/weights_hash.h"

using Catch::Matchers::Contains;

namespace {

std::vector<unsigned char> blobBytes() {
  std::vector<unsigned char> blob(200);
  for (size_t i = 0; i < blob.size(); ++i) blob[i] = static_cast<unsigned char>(i * 7 + 1);
  return blob;
}

pt2c_external_weights expectedFor(const std::vector<unsigned char>& blob) {
  return {1, blob.size(), 0x1234, pt2c_weights_hash(blob.data(), blob.size())};
}

std::string fileWith(const std::vector<unsigned char>& bytes) {
  char path[] = "/tmp/pt2c-weights-test-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  FILE* f = fdopen(fd, "wb");
  fwrite(bytes.data(), 1, bytes.size(), f);
  fclose(f);
  return path;
}

std::vector<unsigned char> weightsFile(const std::vector<unsigned char>& blob,
                                       const pt2c_external_weights& record) {
  pt2c_weights_file_header header = {};
  std::memcpy(header.magic, PT2C_WEIGHTS_FILE_MAGIC, 8);
  header.version = PT2C_WEIGHTS_FILE_VERSION;
  header.header_size = PT2C_WEIGHTS_FILE_HEADER_SIZE;
  header.blob_size = record.blob_size;
  header.fingerprint = record.fingerprint;
  header.checksum = record.checksum;
  std::vector<unsigned char> bytes(reinterpret_cast<unsigned char*>(&header),
                                   reinterpret_cast<unsigned char*>(&header) + sizeof header);
  bytes.insert(bytes.end(), blob.begin(), blob.end());
  return bytes;
}

// Opens `bytes` as a weights file expected to be `expected`'s; returns the status and,
// through `message`, the last error.
pt2c_status open(const std::vector<unsigned char>& bytes, const pt2c_external_weights& expected,
                 std::string* message, int verify = 1) {
  std::string path = fileWith(bytes);
  pt2c_weights_file file;
  pt2c_status status = pt2c_weights_file_open(path.c_str(), &expected, verify, &file);
  *message = pt2c_last_error();
  if (status == PT2C_OK) {
    CHECK(reinterpret_cast<uintptr_t>(file.blob) % 64 == 0);
    CHECK(file.blob_size == expected.blob_size);
    CHECK(std::memcmp(file.blob, bytes.data() + 64, file.blob_size) == 0);
  } else {
    CHECK(file.mapping == nullptr);
  }
  pt2c_weights_file_close(&file);
  std::remove(path.c_str());
  return status;
}

}  // namespace

TEST_CASE("a weights file of this compile maps, 64-byte aligned") {
  auto blob = blobBytes();
  auto expected = expectedFor(blob);
  std::string message;
  CHECK(open(weightsFile(blob, expected), expected, &message) == PT2C_OK);
}

TEST_CASE("wrong weights files are refused with the reason") {
  auto blob = blobBytes();
  auto expected = expectedFor(blob);
  auto good = weightsFile(blob, expected);
  std::string message;

  pt2c_weights_file file;
  CHECK(pt2c_weights_file_open("/nonexistent/model.so.weights", &expected, 1, &file) ==
        PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(pt2c_last_error(), Contains("does not exist") && Contains("PT2C_WEIGHTS"));

  auto magic = good;
  magic[0] = 'X';
  CHECK(open(magic, expected, &message) == PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(message, Contains("not a pt2c weights file"));

  auto version = good;
  version[8] = 9;
  CHECK(open(version, expected, &message) == PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(message, Contains("format version 9"));

  auto other = expected;
  other.fingerprint = 0x9999;
  CHECK(open(weightsFile(blob, other), expected, &message) == PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(message, Contains("another model or another compile"));

  other = expected;
  other.checksum ^= 1;
  CHECK(open(weightsFile(blob, other), expected, &message) == PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(message, Contains("other weight values"));

  auto truncated = good;
  truncated.resize(good.size() - 1);
  CHECK(open(truncated, expected, &message) == PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(message, Contains("truncated") && Contains("199 bytes"));
  CHECK(open(std::vector<unsigned char>(good.begin(), good.begin() + 10), expected, &message) ==
        PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(message, Contains("shorter than its 64-byte header"));

  auto longer = good;
  longer.push_back(0);
  CHECK(open(longer, expected, &message) == PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(message, Contains("1 bytes after"));

  auto corrupt = good;
  corrupt[64 + 100] ^= 0x10;
  CHECK(open(corrupt, expected, &message) == PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(message, Contains("corrupt") && Contains("PT2C_WEIGHTS_VERIFY=0"));
  // Without the pass over the data only the header is checked.
  CHECK(open(corrupt, expected, &message, /*verify=*/0) == PT2C_OK);
}

TEST_CASE("the weights checksum of data in pieces is that of the whole") {
  std::vector<unsigned char> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 31 + 5);
  uint64_t whole = pt2c_weights_hash(data.data(), data.size());
  for (size_t cut : {1u, 3u, 8u, 13u, 64u, 999u}) {
    pt2c_weights_hasher hasher;
    pt2c_weights_hash_init(&hasher);
    for (size_t at = 0; at < data.size(); at += cut)
      pt2c_weights_hash_update(&hasher, data.data() + at, std::min(cut, data.size() - at));
    CHECK(pt2c_weights_hash_final(&hasher) == whole);
  }
  // Position, content and length all count.
  auto swapped = data;
  std::swap(swapped[0], swapped[8]);
  CHECK(pt2c_weights_hash(swapped.data(), swapped.size()) != whole);
  CHECK(pt2c_weights_hash(data.data(), data.size() - 1) != whole);
  std::vector<unsigned char> zeros(16);
  CHECK(pt2c_weights_hash(zeros.data(), 8) != pt2c_weights_hash(zeros.data(), 16));
}
