// tools/host/npy: round trips, NumPy's own byte layout, and bad files.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tools/host/npy.h"

using Catch::Matchers::Contains;
namespace npy = pt2c::npy;

namespace {

template <typename T>
npy::Array make_array(pt2c_dtype dtype, std::vector<int64_t> shape, const std::vector<T> &values) {
  npy::Array array;
  array.dtype = dtype;
  array.shape = std::move(shape);
  array.data.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(array.data.data(), values.data(), array.data.size());
  return array;
}

// What np.save writes: the header padded with spaces to a 64-byte boundary, then '\n'.
std::string numpy_bytes(const std::string &dict, const std::string &data) {
  std::string header = dict;
  header.resize(117, ' ');
  header += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + std::string("\x76\x00", 2) + header + data;
}

std::string temp_path(const std::string &name) {
  const char *dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string parse_error(const std::string &bytes) {
  try {
    npy::parse(bytes, "bad.npy");
  } catch (const npy::Error &error) {
    return error.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("arrays of every supported dtype survive a round trip") {
  std::vector<npy::Array> arrays = {
      make_array<float>(PT2C_F32, {2, 3}, {0, 1, 2, 3, 4, 5.5f}),
      make_array<double>(PT2C_F64, {3}, {1e300, -2, 0.25}),
      make_array<uint16_t>(PT2C_F16, {2}, {0x3c00, 0xc000}),
      make_array<int64_t>(PT2C_I64, {1, 1, 2}, {INT64_MIN, INT64_MAX}),
      make_array<int32_t>(PT2C_I32, {}, {-7}),
      make_array<int16_t>(PT2C_I16, {2}, {-1, 300}),
      make_array<int8_t>(PT2C_I8, {3}, {-128, 0, 127}),
      make_array<uint8_t>(PT2C_U8, {0, 4}, {}),
      make_array<uint8_t>(PT2C_BOOL, {2}, {1, 0}),
  };
  for (const npy::Array &array : arrays) {
    npy::Array back = npy::parse(npy::serialize(array), "memory");
    CHECK(back.dtype == array.dtype);
    CHECK(back.shape == array.shape);
    CHECK(back.data == array.data);
  }

  SECTION("through a file") {
    std::string path = temp_path("round_trip.npy");
    npy::write(path, arrays[0]);
    npy::Array back = npy::read(path);
    CHECK(back.shape == arrays[0].shape);
    CHECK(back.data == arrays[0].data);
  }
}

TEST_CASE("the bytes are the ones NumPy writes") {
  npy::Array array = make_array<float>(PT2C_F32, {2, 3}, {0, 1, 2, 3, 4, 5});
  std::string data(reinterpret_cast<const char *>(array.data.data()), array.data.size());
  CHECK(npy::serialize(array) ==
        numpy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data));
  npy::Array scalar = make_array<uint8_t>(PT2C_BOOL, {}, {1});
  CHECK(npy::serialize(scalar) ==
        numpy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (), }", "\x01"));
}

TEST_CASE("headers in the other spellings NumPy has used are read") {
  std::string data(8, '\0');
  SECTION("version 2.0, double quotes, other key order, Python 2 long ints") {
    std::string header = "{\"shape\": (2L,), \"fortran_order\": False, \"descr\": \"<i4\"}\n";
    std::string bytes = std::string("\x93NUMPY\x02\x00", 8) +
                        std::string(1, static_cast<char>(header.size())) + std::string(3, '\0') +
                        header + data;
    npy::Array array = npy::parse(bytes, "v2.npy");
    CHECK(array.dtype == PT2C_I32);
    CHECK(array.shape == std::vector<int64_t>{2});
  }
  SECTION("fortran_order is harmless for one dimension") {
    std::string bytes =
        numpy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (1,), }", data);
    CHECK(npy::parse(bytes, "f.npy").dtype == PT2C_F64);
  }
}

TEST_CASE("bad files are reported with their name and the reason") {
  std::string data(24, '\0');
  auto with_dict = [&](const std::string &dict) { return numpy_bytes(dict, data); };
  CHECK_THAT(parse_error("PK\x03\x04 not numpy"), Contains("bad.npy: not a .npy file (bad magic)"));
  CHECK_THAT(parse_error(std::string("\x93NUMPY\x04\x00", 8)),
             Contains("unsupported .npy format version 4.0"));
  CHECK_THAT(parse_error(std::string("\x93NUMPY\x01\x00\x76\x00{'descr'", 17)),
             Contains("truncated .npy header"));
  CHECK_THAT(parse_error(with_dict("{'descr': '<f4', 'fortran_order': False}")),
             Contains("bad .npy header"));
  CHECK_THAT(parse_error(with_dict("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (6,)}")),
             Contains("expected True or False"));
  CHECK_THAT(parse_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (-6,)}")),
             Contains("non-negative integer"));
  CHECK_THAT(parse_error(with_dict("{'descr': '<u4', 'fortran_order': False, 'shape': (6,), }")),
             Contains("unsupported dtype '<u4'"));
  CHECK_THAT(parse_error(with_dict("{'descr': '>f4', 'fortran_order': False, 'shape': (6,), }")),
             Contains("big-endian dtype '>f4'"));
  CHECK_THAT(parse_error(with_dict("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }")),
             Contains("Fortran-order"));
  CHECK_THAT(parse_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (7,), }")),
             Contains("expected 28 data bytes for shape (7,) and dtype '<f4', found 24"));
  CHECK_THAT(parse_error(with_dict("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (1, 1, 1, 1, 1, 1, 1, 1, 6), }")),
             Contains("rank 9 exceeds"));
}

TEST_CASE("any corrupted byte or truncation gives an Error or an array, never a crash") {
  npy::Array array = make_array<float>(PT2C_F32, {2, 3}, {0, 1, 2, 3, 4, 5});
  std::string good = npy::serialize(array);
  auto parses_or_throws = [](const std::string &bytes) {
    try {
      npy::parse(bytes, "fuzz.npy");
    } catch (const npy::Error &) {
    }
  };
  for (size_t size = 0; size < good.size(); ++size)
    parses_or_throws(good.substr(0, size));
  for (size_t at = 0; at < good.size(); ++at) {
    for (char flip : {'\x01', '\x80', '\xff'}) {
      std::string bytes = good;
      bytes[at] = static_cast<char>(bytes[at] ^ flip);
      parses_or_throws(bytes);
    }
  }
  CHECK_THROWS_AS(npy::parse(good.substr(0, good.size() - 1), "short.npy"), npy::Error);
}

TEST_CASE("missing files are errors") {
  CHECK_THROWS_WITH(npy::read(temp_path("missing.npy")), Contains("missing.npy: cannot open"));
}

TEST_CASE("bf16 arrays are stored as their bits with descr <u2") {
  npy::Array bf16 = make_array<uint16_t>(PT2C_BF16, {2}, {0x3f80, 0xc000});
  std::string bytes = npy::serialize(bf16);
  CHECK(bytes.find("'descr': '<u2'") != std::string::npos);
  npy::Array back = npy::parse(bytes, "bf16.npy");
  CHECK(back.dtype == PT2C_BF16);
  CHECK(back.shape == bf16.shape);
  CHECK(back.data == bf16.data);
}
