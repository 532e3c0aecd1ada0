// The external weights file (pt2c/weights_format.h) as the runtime opens it: a good file
// is read into private memory that later changes to the file cannot reach, and every way
// a file can be wrong (its header bytes, its size, its data, its kind) is one clear
// PT2C_ERROR_WEIGHTS_FILE. Also the checksum: data hashed in pieces hashes as in one.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>
#include <vector>

#include "pt2c/weights_format.h"
#include "runtime/src/content_hash.h"
#include "runtime/src/weights_file.h"
#include "tests/unit/weights_file_bytes.h"

using Catch::Matchers::Contains;

namespace {

std::vector<unsigned char> blobBytes() {
  std::vector<unsigned char> blob(200);
  for (size_t i = 0; i < blob.size(); ++i)
    blob[i] = static_cast<unsigned char>(i * 7 + 1);
  return blob;
}

pt2c_external_weights expectedFor(const std::vector<unsigned char> &blob) {
  return {1, blob.size(), 0x1234, pt2c_content_hash(blob.data(), blob.size())};
}

std::string fileWith(const std::vector<unsigned char> &bytes) {
  char path[] = "/tmp/pt2c-weights-test-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  FILE *f = fdopen(fd, "wb");
  fwrite(bytes.data(), 1, bytes.size(), f);
  fclose(f);
  return path;
}

std::vector<unsigned char> weightsFile(const std::vector<unsigned char> &blob,
                                       const pt2c_external_weights &record) {
  return pt2c::testing::weightsFileBytes(blob, record);
}

// Opens `bytes` as a weights file expected to be `expected`'s; returns the status and,
// through `message`, the last error.
pt2c_status open(const std::vector<unsigned char> &bytes, const pt2c_external_weights &expected,
                 std::string *message, int verify = 1) {
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

} // namespace

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

TEST_CASE("every header byte is checked, the reserved ones included") {
  auto blob = blobBytes();
  auto expected = expectedFor(blob);
  auto good = weightsFile(blob, expected);
  std::string message;
  // Without the pass over the data, so that only the header can catch the change.
  for (size_t byte = 0; byte < PT2C_WEIGHTS_FILE_HEADER_SIZE; ++byte) {
    auto changed = good;
    changed[byte] ^= 0x01;
    INFO("header byte " << byte);
    CHECK(open(changed, expected, &message, /*verify=*/0) == PT2C_ERROR_WEIGHTS_FILE);
  }
  auto reserved = good;
  reserved[63] = 0x80;
  CHECK(open(reserved, expected, &message, 0) == PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(message, Contains("header byte 63 (reserved) is 0x80"));
}

TEST_CASE("a FIFO or a directory at the path is refused without blocking") {
  auto blob = blobBytes();
  auto expected = expectedFor(blob);
  char dir[] = "/tmp/pt2c-weights-fifo-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  std::string fifo = std::string(dir) + "/model.so.weights";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // A blocking open() of a FIFO waits for a writer: run it aside, and if it hangs, be
  // that writer so that the test fails instead of hanging.
  auto opened = std::async(std::launch::async, [&] {
    pt2c_weights_file file;
    pt2c_status status = pt2c_weights_file_open(fifo.c_str(), &expected, 1, &file);
    return std::make_pair(status, std::string(pt2c_last_error()));
  });
  if (opened.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    int writer = ::open(fifo.c_str(), O_WRONLY);
    if (writer >= 0)
      ::close(writer);
    FAIL("pt2c_weights_file_open blocked on a FIFO");
  }
  auto [status, message] = opened.get();
  CHECK(status == PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(message, Contains("is a FIFO") && Contains("must be a regular file"));

  pt2c_weights_file file;
  CHECK(pt2c_weights_file_open(dir, &expected, 1, &file) == PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(pt2c_last_error(), Contains("is a directory"));
  CHECK(file.mapping == nullptr);
  std::remove(fifo.c_str());
  rmdir(dir);
}

TEST_CASE("truncating or overwriting the file after open leaves the weights as read") {
  auto blob = blobBytes();
  auto expected = expectedFor(blob);
  std::string path = fileWith(weightsFile(blob, expected));
  pt2c_weights_file file;
  REQUIRE(pt2c_weights_file_open(path.c_str(), &expected, 1, &file) == PT2C_OK);

  REQUIRE(truncate(path.c_str(), 0) == 0); // a mapping would now SIGBUS on reads
  CHECK(std::memcmp(file.blob, blob.data(), blob.size()) == 0);

  std::vector<unsigned char> garbage(64 + blob.size(), 0xA5);
  FILE *f = std::fopen(path.c_str(), "r+b"); // in place: same inode, as `cp` over it does
  REQUIRE(f != nullptr);
  std::fwrite(garbage.data(), 1, garbage.size(), f);
  std::fclose(f);
  CHECK(std::memcmp(file.blob, blob.data(), blob.size()) == 0);

  pt2c_weights_file_close(&file);
  std::remove(path.c_str());
}

TEST_CASE("the weights checksum of data in pieces is that of the whole") {
  std::vector<unsigned char> data(1000);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<unsigned char>(i * 31 + 5);
  uint64_t whole = pt2c_content_hash(data.data(), data.size());
  for (size_t cut : {1u, 3u, 8u, 13u, 64u, 999u}) {
    pt2c_content_hasher hasher;
    pt2c_content_hash_init(&hasher);
    for (size_t at = 0; at < data.size(); at += cut)
      pt2c_content_hash_update(&hasher, data.data() + at, std::min(cut, data.size() - at));
    CHECK(pt2c_content_hash_final(&hasher) == whole);
  }
  // Position, content and length all count.
  auto swapped = data;
  std::swap(swapped[0], swapped[8]);
  CHECK(pt2c_content_hash(swapped.data(), swapped.size()) != whole);
  CHECK(pt2c_content_hash(data.data(), data.size() - 1) != whole);
  std::vector<unsigned char> zeros(16);
  CHECK(pt2c_content_hash(zeros.data(), 8) != pt2c_content_hash(zeros.data(), 16));
}
