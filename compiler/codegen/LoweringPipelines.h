// Pass pipelines shared by the code generators, parsed into a pass manager anchored on
// builtin.module (so no anchor in the text).
#ifndef PT2C_COMPILER_CODEGEN_LOWERINGPIPELINES_H_
#define PT2C_COMPILER_CODEGEN_LOWERINGPIPELINES_H_

#include "llvm/ADT/StringRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace pt2c {

// Value-semantics prim kernels to bufferized linalg: kernel results become out-params
// (the plan passes output buffers), temporaries are memref.alloc. Both targets start so.
constexpr const char kBufferizeKernelsPipeline[] =
    "pt2c-lower-prim-to-linalg,"
    "func.func(linalg-fuse-elementwise-ops),"
    "canonicalize,"
    "pt2c-copy-returned-arguments,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{hoist-static-allocs},"
    "canonicalize";

// Parses and runs `pipeline` on `module`; a pipeline that does not parse is reported as
// an internal error naming `what`.
mlir::LogicalResult runPassPipeline(mlir::ModuleOp module, llvm::StringRef pipeline,
                                    llvm::StringRef what);

}  // namespace pt2c

#endif  // PT2C_COMPILER_CODEGEN_LOWERINGPIPELINES_H_
