// The `prim` dialect's definition, its op base class and tensor constraints: what the
// op files (PrimOps.td, DataDependentOps.td, SortOps.td) share.
#ifndef PT2C_PRIM_BASE_TD
#define PT2C_PRIM_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Prim_Dialect : Dialect {
  let name = "prim";
  let cppNamespace = "::pt2c::prim";
  let summary = "pt2c's closed set of primitive tensor ops";
  let hasConstantMaterializer = 1;
}

class Prim_Op<string mnemonic, list<Trait> traits = []>
    : Op<Prim_Dialect, mnemonic, !listconcat([Pure], traits)>;

def Prim_Tensor : RankedTensorOf<[AnyType]>;
def Prim_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Prim_BoolTensor : RankedTensorOf<[I1]>;

#endif // PT2C_PRIM_BASE_TD
