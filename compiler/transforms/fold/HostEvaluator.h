// A small interpreter for the prim ops that compute on weights and constants alone
// (elementwise math, comparisons and selects, conversions; with HostStructuredOps.h data
// movement, iotas, reductions and small products), so that pt2c-fold-weights can run
// them once at compile time on the host instead of on every call of the model.
//
// Values are held in double (floating point) or int64 (integers, i1 as 0/1) and
// rounded to their element type after every op, so an f32 (f16, bf16) chain rounds as
// the same chain of f32 (f16, bf16) ops would (up to the last bit of transcendental
// functions).
#ifndef PT2C_COMPILER_TRANSFORMS_FOLD_HOSTEVALUATOR_H_
#define PT2C_COMPILER_TRANSFORMS_FOLD_HOSTEVALUATOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace pt2c::fold {

struct HostTensor {
  mlir::RankedTensorType type; // static shape, an element type isEvaluableType accepts
  std::vector<double> floats;  // for floating-point element types
  std::vector<int64_t> ints;   // for integer element types

  bool isFloat() const { return llvm::isa<mlir::FloatType>(type.getElementType()); }
  int64_t numElements() const { return type.getNumElements(); }
};

// A static-shaped tensor of f16, bf16, f32, f64, a signless integer, ui8 or i1.
bool isEvaluableType(mlir::Type type);

// The tensor in the plan's layout (row-major, little endian); nullopt if `bytes` has the
// wrong size.
std::optional<HostTensor> tensorFromBytes(mlir::RankedTensorType type, llvm::ArrayRef<char> bytes);
std::optional<HostTensor> tensorFromAttr(mlir::ElementsAttr attr);
std::string tensorToBytes(const HostTensor &t);

// Whether `op` is one of the ops `evaluate` knows (its types are checked separately).
bool canEvaluate(mlir::Operation *op);

// Runs `op` on its operand values. Nullopt where the result is undefined (an integer
// division by zero, a float out of an integer's range): the op then stays at run time.
std::optional<HostTensor> evaluate(mlir::Operation *op,
                                   llvm::ArrayRef<const HostTensor *> operands);

} // namespace pt2c::fold

#endif // PT2C_COMPILER_TRANSFORMS_FOLD_HOSTEVALUATOR_H_
