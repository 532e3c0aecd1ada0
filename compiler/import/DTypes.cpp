#include "compiler/import/DTypes.h"

#include "ir/artifact/pt2c.pb.h"
#include "mlir/IR/BuiltinTypes.h"

namespace pt2c {
namespace {
using artifact::DType;

struct Entry {
  int dtype;
  const char *name;
};
constexpr Entry kNames[] = {
    {DType::F32, "f32"}, {DType::F64, "f64"},   {DType::F16, "f16"}, {DType::BF16, "bf16"},
    {DType::I64, "i64"}, {DType::I32, "i32"},   {DType::I16, "i16"}, {DType::I8, "i8"},
    {DType::U8, "u8"},   {DType::BOOL, "bool"},
};
} // namespace

std::optional<int> dtypeForElementType(mlir::Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (auto it = mlir::dyn_cast<mlir::IntegerType>(type)) {
    if (it.isUnsigned())
      return it.getWidth() == 8 ? std::optional<int>(DType::U8) : std::nullopt;
    switch (it.getWidth()) {
    case 64:
      return DType::I64;
    case 32:
      return DType::I32;
    case 16:
      return DType::I16;
    case 8:
      return DType::I8;
    case 1:
      return DType::BOOL;
    }
  }
  return std::nullopt;
}

const char *dtypeName(int dtype) {
  for (const Entry &e : kNames)
    if (e.dtype == dtype)
      return e.name;
  return "unknown";
}

} // namespace pt2c
