// The CPU kernel ABI of models with dynamic dimensions (plan_format.h, "Symbolic
// sizes"). A kernel is called as kernel(sym_values, buffer0, buffer1, ...) with bare
// pointers; its sizes come from the symbol values:
//
//   pt2c-bind-kernel-symbols  (prim, before lowering) gives each kernel of a dynamic
//       model (pt2c.symbol_names) a first argument memref<N x i64>, the symbol values,
//       and turns its prim.symbol ops into loads from it;
//   pt2c-dynamic-kernel-abi   (memrefs, after bufferization) turns each memref argument
//       with dynamic sizes into a bare !llvm.ptr and rebuilds the memref from it, with
//       the sizes pt2c.kernel_dims gives in terms of the symbols (row-major strides).
//       The bare-pointer calling convention cannot carry dynamic sizes itself.
//   pt2c-copy-returned-arguments (tensors, before bufferization; every target) makes a
//       kernel that returns an argument unchanged return a copy (see the pass).
#ifndef PT2C_COMPILER_CODEGEN_DYNAMICKERNELABI_H_
#define PT2C_COMPILER_CODEGEN_DYNAMICKERNELABI_H_

#include "mlir/Pass/Pass.h"

namespace pt2c {

#define GEN_PASS_DECL_BINDKERNELSYMBOLSPASS
#define GEN_PASS_DECL_DYNAMICKERNELABIPASS
#define GEN_PASS_DECL_COPYRETURNEDARGUMENTSPASS
#include "compiler/codegen/Passes.h.inc"

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_DYNAMICKERNELABI_H_
