// prim ops whose result sizes depend on operand values (DataDependentOps.td).
#ifndef PT2C_IR_PRIM_DATADEPENDENTOPS_H
#define PT2C_IR_PRIM_DATADEPENDENTOPS_H

#include "ir/prim/PrimDialect.h"

#define GET_OP_CLASSES
#include "ir/prim/DataDependentOps.h.inc"

#endif // PT2C_IR_PRIM_DATADEPENDENTOPS_H
