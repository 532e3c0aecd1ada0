// The `aten` dialect and the op base class that gen_aten_ops.py instantiates.
#ifndef PT2C_ATEN_BASE_TD
#define PT2C_ATEN_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Aten_Dialect : Dialect {
  let name = "aten";
  let cppNamespace = "::pt2c::aten";
  let summary = "ATen operators as recorded by the pt2c exporter";
  let description = [{
    One op per ATen schema (ir/aten/aten_ops.txt), generated rather than written by
    hand. Tensor arguments are operands in schema order; every other argument is an
    attribute named like the schema argument; defaulted or optional arguments are
    optional attributes whose absence means the schema default (or None).
  }];
}

// ATen `Scalar`: an int, a float or a bool, whichever the caller passed.
def Aten_ScalarAttr : AnyAttrOf<[I64Attr, F64Attr, BoolAttr]>;

// Every aten op checks its result shapes against the rule registered for its name
// (AtenShapeRules.cpp): one C++ entry point instead of one verifier per op.
class Aten_Op<string mnemonic, list<Trait> traits = []>
    : Op<Aten_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::verify() {
      return ::pt2c::aten::verifyAtenOp(getOperation());
    }
  }];
}

#endif // PT2C_ATEN_BASE_TD
