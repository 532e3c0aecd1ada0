// Instantiates the generated aten dialect and op classes.
#include "ir/aten/AtenDialect.h"

#include "ir/aten/AtenDialect.cpp.inc"

void pt2c::aten::AtenDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ir/aten/AtenOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "ir/aten/AtenOps.cpp.inc"
