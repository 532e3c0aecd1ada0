// Mapping from MLIR element types to artifact/runtime dtypes (pt2c.proto DType ==
// pt2c_dtype numbering), and their names. Used by the importer and by the plan writer;
// the other direction is aten::elementTypeOfScalarType (ir/aten/AtenDtypeRules.h).
#ifndef PT2C_COMPILER_IMPORT_DTYPES_H_
#define PT2C_COMPILER_IMPORT_DTYPES_H_

#include <cstdint>
#include <optional>

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"

namespace pt2c {

// std::nullopt for a type the runtime cannot describe.
std::optional<int> dtypeForElementType(mlir::Type type);
// "f32", "i64", ... as PyTorch users know them, for messages.
const char *dtypeName(int dtype);

} // namespace pt2c

#endif // PT2C_COMPILER_IMPORT_DTYPES_H_
