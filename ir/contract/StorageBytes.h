// How many bytes an element takes where a tensor is stored: in the plan's buffers, the
// weights blob, folded constants and the kernels' arguments (runtime/include/pt2c/pt2c.h:
// a PT2C_BOOL element is one byte). The compiler sizes buffers with it and the runtime checks
// sizes by the same rule, so it lives here with the rest of the model contract.
#ifndef PT2C_IR_CONTRACT_STORAGEBYTES_H_
#define PT2C_IR_CONTRACT_STORAGEBYTES_H_

#include <cstdint>

#include "mlir/IR/BuiltinTypes.h"

namespace pt2c {

// Bytes of one element of an integer or floating-point type: its width over eight,
// booleans (i1) as one byte each.
inline int64_t elementBytes(mlir::Type elementType) {
  unsigned bits = elementType.getIntOrFloatBitWidth();
  return bits == 1 ? 1 : bits / 8;
}

// Bytes of a tensor or buffer of static shape, stored densely.
inline int64_t storageBytes(mlir::ShapedType type) {
  return type.getNumElements() * elementBytes(type.getElementType());
}

} // namespace pt2c

#endif // PT2C_IR_CONTRACT_STORAGEBYTES_H_
