// prim ops that order elements (SortOps.td).
#ifndef PT2C_IR_PRIM_SORTOPS_H
#define PT2C_IR_PRIM_SORTOPS_H

#include "ir/prim/PrimDialect.h"

#define GET_OP_CLASSES
#include "ir/prim/SortOps.h.inc"

#endif // PT2C_IR_PRIM_SORTOPS_H
