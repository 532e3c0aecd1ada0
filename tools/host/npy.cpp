#include "tools/host/npy.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace pt2c::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kHeaderAlignment = 64; // what NumPy itself writes

// NumPy type codes (without the byte-order character) and their pt2c dtypes. NumPy has
// no bfloat16: bf16 arrays are stored as their raw bit patterns with descr '<u2'
// (`t.view(torch.int16).numpy().view(numpy.uint16)`); pt2c has no uint16 dtype, so '<u2'
// is unambiguous.
struct DtypeCode {
  const char *code;
  pt2c_dtype dtype;
  size_t size;
};
constexpr DtypeCode kDtypeCodes[] = {
    {"f4", PT2C_F32, 4},  {"f8", PT2C_F64, 8},  {"f2", PT2C_F16, 2}, {"i8", PT2C_I64, 8},
    {"i4", PT2C_I32, 4},  {"i2", PT2C_I16, 2},  {"i1", PT2C_I8, 1},  {"u1", PT2C_U8, 1},
    {"b1", PT2C_BOOL, 1}, {"u2", PT2C_BF16, 2},
};

const DtypeCode *find_code(pt2c_dtype dtype) {
  for (const DtypeCode &entry : kDtypeCodes)
    if (entry.dtype == dtype)
      return &entry;
  return nullptr;
}

// Parses the Python dict literal of a .npy header, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (8, 64), }
class HeaderParser {
public:
  HeaderParser(const std::string &text, const std::string &source) : text_(text), source_(source) {}

  void parse(std::string *descr, bool *fortran_order, std::vector<int64_t> *shape) {
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (!consume('}')) {
      std::string key = parse_string();
      expect(':');
      if (key == "descr") {
        *descr = parse_string();
        seen_descr = true;
      } else if (key == "fortran_order") {
        *fortran_order = parse_bool();
        seen_order = true;
      } else if (key == "shape") {
        *shape = parse_shape();
        seen_shape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      if (!consume(',')) {
        expect('}');
        break;
      }
    }
    if (!seen_descr || !seen_order || !seen_shape)
      fail("the header lacks one of 'descr', 'fortran_order', 'shape'");
  }

private:
  [[noreturn]] void fail(const std::string &reason) const {
    throw Error(source_ + ": bad .npy header (" + reason + "): " + text_);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!consume(c))
      fail(std::string("expected '") + c + "'");
  }
  std::string parse_string() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      fail("expected a string");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string::npos)
      fail("unterminated string");
    std::string value = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return value;
  }
  bool parse_bool() {
    skip_space();
    for (const char *word : {"True", "False"}) {
      if (text_.compare(pos_, std::strlen(word), word) == 0) {
        pos_ += std::strlen(word);
        return word[0] == 'T';
      }
    }
    fail("expected True or False");
  }
  std::vector<int64_t> parse_shape() {
    std::vector<int64_t> shape;
    expect('(');
    while (!consume(')')) {
      skip_space();
      if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_])))
        fail("expected a non-negative integer in the shape");
      int64_t dim = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (dim > (INT64_MAX - 9) / 10)
          fail("a dimension is too large");
        dim = dim * 10 + (text_[pos_++] - '0');
      }
      consume('L'); // Python 2 era files write 3L
      shape.push_back(dim);
      if (!consume(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  const std::string &text_;
  const std::string &source_;
  size_t pos_ = 0;
};

// Maps a descr such as '<f4' to a dtype; NumPy writes '|' for one-byte types and '<' for
// little-endian ones ('=' is native, which is little endian wherever pt2c runs).
const DtypeCode &dtype_from_descr(const std::string &descr, const std::string &source) {
  if (descr.size() >= 2) {
    char order = descr[0];
    std::string code = descr.substr(1);
    for (const DtypeCode &entry : kDtypeCodes) {
      if (code != entry.code)
        continue;
      if (order == '>' && entry.size > 1)
        throw Error(source + ": big-endian dtype '" + descr + "' is not supported");
      if (order == '<' || order == '=' || (entry.size == 1 && (order == '|' || order == '>')))
        return entry;
    }
  }
  throw Error(source + ": unsupported dtype '" + descr +
              "' (supported: <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1 |b1, and <u2 for bf16 bits)");
}

uint32_t read_le(const std::string &bytes, size_t offset, size_t size) {
  uint32_t value = 0;
  for (size_t i = 0; i < size; ++i)
    value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return value;
}

std::string shape_text(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

// numel * element_size, or throws if a product overflows.
size_t byte_size(const std::vector<int64_t> &shape, size_t element_size,
                 const std::string &source) {
  uint64_t total = element_size;
  for (int64_t dim : shape)
    if (dim < 0 || __builtin_mul_overflow(total, static_cast<uint64_t>(dim), &total))
      throw Error(source + ": shape " + shape_text(shape) + " is too large");
  return total;
}

} // namespace

int64_t Array::num_elements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

pt2c_tensor Array::tensor() {
  return pt2c_tensor{data.data(), dtype, static_cast<int32_t>(shape.size()), shape.data()};
}

Array parse(const std::string &bytes, const std::string &source) {
  if (bytes.size() < kMagicSize + 2 || bytes.compare(0, kMagicSize, kMagic) != 0)
    throw Error(source + ": not a .npy file (bad magic)");
  int major = static_cast<unsigned char>(bytes[kMagicSize]);
  int minor = static_cast<unsigned char>(bytes[kMagicSize + 1]);
  if (major < 1 || major > 3 || minor != 0)
    throw Error(source + ": unsupported .npy format version " + std::to_string(major) + "." +
                std::to_string(minor));
  size_t length_size = major == 1 ? 2 : 4;
  size_t header_start = kMagicSize + 2 + length_size;
  if (bytes.size() < header_start)
    throw Error(source + ": truncated .npy header");
  size_t header_length = read_le(bytes, kMagicSize + 2, length_size);
  if (bytes.size() - header_start < header_length)
    throw Error(source + ": truncated .npy header");

  std::string header = bytes.substr(header_start, header_length);
  std::string descr;
  bool fortran_order = false;
  Array array;
  HeaderParser(header, source).parse(&descr, &fortran_order, &array.shape);
  const DtypeCode &code = dtype_from_descr(descr, source);
  if (fortran_order && array.shape.size() > 1)
    throw Error(source + ": Fortran-order arrays are not supported");
  if (array.shape.size() > PT2C_MAX_RANK)
    throw Error(source + ": rank " + std::to_string(array.shape.size()) +
                " exceeds pt2c's maximum of " + std::to_string(PT2C_MAX_RANK));
  array.dtype = code.dtype;

  size_t data_start = header_start + header_length;
  size_t expected = byte_size(array.shape, code.size, source);
  size_t found = bytes.size() - data_start;
  if (found != expected)
    throw Error(source + ": expected " + std::to_string(expected) + " data bytes for shape " +
                shape_text(array.shape) + " and dtype '" + descr + "', found " +
                std::to_string(found));
  array.data.assign(bytes.begin() + data_start, bytes.end());
  return array;
}

std::string serialize(const Array &array) {
  const DtypeCode *code = find_code(array.dtype);
  if (code == nullptr)
    throw Error(std::string("cannot write dtype ") + std::to_string(array.dtype) + " to .npy");
  if (array.data.size() != byte_size(array.shape, code->size, "array"))
    throw Error("cannot write .npy: the data size does not match the shape");

  std::string header = std::string("{'descr': '") + (code->size == 1 ? '|' : '<') + code->code +
                       "', 'fortran_order': False, 'shape': " + shape_text(array.shape) + ", }";

  // Pad with spaces and end with '\n' so that the data starts 64-byte aligned; version
  // 1.0 has a 16-bit header length, 2.0 a 32-bit one.
  auto padded_length = [&](size_t length_size) {
    size_t prefix = kMagicSize + 2 + length_size;
    size_t length = header.size() + 1;
    return length + (kHeaderAlignment - (prefix + length) % kHeaderAlignment) % kHeaderAlignment;
  };
  size_t length_size = padded_length(2) <= 65535 ? 2 : 4;
  size_t length = padded_length(length_size);
  header.append(length - header.size() - 1, ' ');
  header += '\n';

  std::string bytes(kMagic, kMagicSize);
  bytes += static_cast<char>(length_size == 2 ? 1 : 2);
  bytes += '\0';
  for (size_t i = 0; i < length_size; ++i)
    bytes += static_cast<char>((length >> (8 * i)) & 0xff);
  bytes += header;
  bytes.append(array.data.begin(), array.data.end());
  return bytes;
}

Array read(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw Error(path + ": cannot open for reading: " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad())
    throw Error(path + ": read error");
  return parse(bytes, path);
}

void write(const std::string &path, const Array &array) {
  std::string bytes;
  try {
    bytes = serialize(array);
  } catch (const Error &error) {
    throw Error(path + ": " + error.what());
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file)
    throw Error(path + ": cannot open for writing: " + std::strerror(errno));
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file.flush())
    throw Error(path + ": write error");
}

} // namespace pt2c::npy
