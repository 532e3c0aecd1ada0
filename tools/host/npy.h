// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0; little endian,
// C order) as pt2c tensors. Shared by examples/cpp_host and `pt2c run`.
//
// Supported dtypes: <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1 |b1, and <u2 for bf16: NumPy has no
// bfloat16, so bf16 arrays are their raw 16-bit patterns as uint16 (pt2c has no uint16).
#ifndef PT2C_TOOLS_HOST_NPY_H_
#define PT2C_TOOLS_HOST_NPY_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "pt2c/pt2c.h"

namespace pt2c::npy {

// Thrown for unreadable, malformed or unsupported files; the message starts with the
// file name.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A dense C-order array; `data` holds num_elements() * element size little-endian bytes.
struct Array {
  pt2c_dtype dtype = PT2C_DTYPE_UNDEFINED;
  std::vector<int64_t> shape;
  std::vector<unsigned char> data;

  int64_t num_elements() const;
  // A pt2c_tensor over this array's memory (valid while the array is unchanged).
  pt2c_tensor tensor();
};

// Decodes the bytes of a .npy file; `source` names it in error messages.
Array parse(const std::string &bytes, const std::string &source);
// Encodes an array as .npy bytes (version 1.0, or 2.0 when the header needs it).
std::string serialize(const Array &array);

Array read(const std::string &path);
void write(const std::string &path, const Array &array);

} // namespace pt2c::npy

#endif // PT2C_TOOLS_HOST_NPY_H_
