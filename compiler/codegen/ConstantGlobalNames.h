// pt2c-name-constant-globals (both targets, right after one-shot-bufferize): the globals
// bufferization made for constant tensors (`__constant_<type>`, then `_0`, `_1`, ... for
// more of one type) are named and placed in the order of their first use in the module,
// as if the functions had been bufferized in module order. MLIR 19's module bufferization
// orders functions through a pointer-keyed DenseMap (getFuncOpsOrderedByCalls; fixed
// upstream by llvm-project#184722), so without this a model whose kernels hold two
// constants of one type got the names in a different order from run to run.
#ifndef PT2C_COMPILER_CODEGEN_CONSTANTGLOBALNAMES_H_
#define PT2C_COMPILER_CODEGEN_CONSTANTGLOBALNAMES_H_

#include "mlir/Pass/Pass.h"

namespace pt2c {

#define GEN_PASS_DECL_NAMECONSTANTGLOBALSPASS
#include "compiler/codegen/Passes.h.inc"

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CONSTANTGLOBALNAMES_H_
