// Instantiates the generated prim dialect, enum and op classes; the hand-written op
// logic (inference, verifiers, folders) is in PrimOps.cpp.
#include "ir/prim/PrimDialect.h"
#include "ir/prim/DataDependentOps.h"
#include "ir/prim/SortOps.h"

#include "ir/prim/PrimDialect.cpp.inc"
#include "ir/prim/PrimEnums.cpp.inc"

using namespace mlir;

void pt2c::prim::PrimDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ir/prim/PrimOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ir/prim/DataDependentOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ir/prim/SortOps.cpp.inc"
      >();
}

// Folded constants come back as prim.constant (the only constant prim has).
Operation *pt2c::prim::PrimDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                                        Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}

#define GET_OP_CLASSES
#include "ir/prim/PrimOps.cpp.inc"
