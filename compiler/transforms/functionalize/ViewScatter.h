// The inverse direction of an aten view: given the tensor a view was taken of and a
// new value for the view, the tensor with the view's elements replaced. pt2c-functionalize
// uses it to write the new value of a mutated view back into its base, one view op at
// a time from the innermost outwards.
#ifndef PT2C_COMPILER_TRANSFORMS_FUNCTIONALIZE_VIEWSCATTER_H
#define PT2C_COMPILER_TRANSFORMS_FUNCTIONALIZE_VIEWSCATTER_H

#include "compiler/transforms/decompose/PrimBuilder.h"

namespace pt2c::functionalize {

/// True for the aten ops whose result aliases their first operand (schema `-> Tensor(a)`,
/// generated from ir/aten/aten_ops.txt), except lift_fresh: its operand is a constant
/// captured by the trace, fresh on every call, so its result is a new tensor.
bool isViewOp(mlir::Operation *op);

/// `parent` with the elements that result `result` of view op `view` shows replaced by
/// `updated` (a value of that result's type), built from prim ops. A null Value (with
/// the reason recorded on `b`) for views that cannot be written through.
mlir::Value scatterIntoParent(decompose::PrimBuilder &b, mlir::Operation *view, unsigned result,
                              mlir::Value parent, mlir::Value updated);

} // namespace pt2c::functionalize

#endif // PT2C_COMPILER_TRANSFORMS_FUNCTIONALIZE_VIEWSCATTER_H
