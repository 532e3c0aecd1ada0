// pt2c_model_create_with_weights on a model with external weights (testdata/tiny_model.c
// plus tiny_external_weights.c, y = (x + w) * 2): once created, the model no longer
// depends on the file, so truncating or overwriting it cannot crash a run or change its
// results; and a path that is no regular file fails create at once, with a clear error.
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

#include "pt2c/pt2c.h"
#include "pt2c/weights_format.h"

using Catch::Matchers::Contains;

namespace {

const float kWeights[6] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f};
const std::vector<float> kExpected = {3, 7, 11, 15, 19, 23}; // for x = 1..6

// A temporary folder for the weights file, removed with what is in it.
struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/pt2c-external-weights-XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path = name;
  }
  ~TempDir() {
    std::remove((path + "/model.so.weights").c_str());
    rmdir(path.c_str());
  }
  std::string weights() const { return path + "/model.so.weights"; }
};

void writeFile(const std::string &path, const void *bytes, size_t size) {
  FILE *f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(std::fwrite(bytes, 1, size, f) == size);
  std::fclose(f);
}

// The file tiny_external_weights.c records.
void writeWeightsFile(const std::string &path) {
  pt2c_weights_file_header header = {};
  std::memcpy(header.magic, PT2C_WEIGHTS_FILE_MAGIC, 8);
  header.version = PT2C_WEIGHTS_FILE_VERSION;
  header.header_size = PT2C_WEIGHTS_FILE_HEADER_SIZE;
  header.blob_size = sizeof kWeights;
  header.fingerprint = 0x7069c2f00d5eed01ull;
  header.checksum = 0x2a4bdb1c90ff6483ull;
  std::vector<unsigned char> bytes(sizeof header + sizeof kWeights);
  std::memcpy(bytes.data(), &header, sizeof header);
  std::memcpy(bytes.data() + sizeof header, kWeights, sizeof kWeights);
  writeFile(path, bytes.data(), bytes.size());
}

// Runs the model on x = 1..6; returns the status and, through `y`, the output.
pt2c_status run(pt2c_model *model, std::vector<float> *y) {
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  y->assign(6, -1.0f);
  int64_t dims[] = {2, 3};
  pt2c_tensor input{x.data(), PT2C_F32, 2, dims};
  pt2c_tensor output{y->data(), PT2C_F32, 2, dims};
  return pt2c_model_run(model, &input, 1, &output, 1);
}

} // namespace

TEST_CASE("a live model is immune to its weights file being truncated or overwritten") {
  TempDir dir;
  writeWeightsFile(dir.weights());
  pt2c_model *model = nullptr;
  REQUIRE(pt2c_model_create_with_weights(dir.weights().c_str(), &model) == PT2C_OK);
  std::vector<float> y;
  REQUIRE(run(model, &y) == PT2C_OK);
  CHECK(y == kExpected);

  // Truncated: reads of a mapping of it would die of SIGBUS.
  REQUIRE(truncate(dir.weights().c_str(), 0) == 0);
  REQUIRE(run(model, &y) == PT2C_OK);
  CHECK(y == kExpected);

  // Overwritten in place with garbage of the same length (same inode): NaN weights, were
  // they read from the file.
  std::vector<unsigned char> garbage(64 + sizeof kWeights, 0xFF);
  writeFile(dir.weights(), garbage.data(), garbage.size());
  REQUIRE(run(model, &y) == PT2C_OK);
  CHECK(y == kExpected);

  // A new model does read the file as it is now.
  pt2c_model *second = nullptr;
  CHECK(pt2c_model_create_with_weights(dir.weights().c_str(), &second) == PT2C_ERROR_WEIGHTS_FILE);
  CHECK(second == nullptr);
  CHECK_THAT(pt2c_last_error(), Contains("not a pt2c weights file"));
  pt2c_model_destroy(model);
}

TEST_CASE("a FIFO at the weights path fails create instead of blocking it") {
  TempDir dir;
  REQUIRE(mkfifo(dir.weights().c_str(), 0600) == 0);
  auto created = std::async(std::launch::async, [&] {
    pt2c_model *model = nullptr;
    pt2c_status status = pt2c_model_create_with_weights(dir.weights().c_str(), &model);
    pt2c_model_destroy(model);
    return std::make_pair(status, std::string(pt2c_last_error()));
  });
  if (created.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    int writer = ::open(dir.weights().c_str(), O_WRONLY); // lets a blocked open() return
    if (writer >= 0)
      ::close(writer);
    FAIL("pt2c_model_create_with_weights blocked on a FIFO");
  }
  auto [status, message] = created.get();
  CHECK(status == PT2C_ERROR_WEIGHTS_FILE);
  CHECK_THAT(message, Contains(dir.weights()) && Contains("is a FIFO") &&
                          Contains("must be a regular file"));
}
