// Builds an MLIR module of `aten` dialect ops from an exported artifact.
//
// Each graph becomes a func.func named after it. Its arguments are the graph inputs in
// order (user inputs, then parameters, buffers and constant tensors), marked with
// `pt2c.input = "<name>"` or `pt2c.weight = "<fqn>"`; its results are the graph outputs,
// marked `pt2c.output = "<name>"`. Every op carries the model.py location it came from,
// so later diagnostics point at the user's code.
#ifndef PT2C_COMPILER_IMPORT_IMPORTER_H_
#define PT2C_COMPILER_IMPORT_IMPORTER_H_

#include "ir/artifact/ArtifactFile.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace pt2c {

// Errors (an operator without an aten dialect op, a malformed graph) are reported as
// diagnostics on the context, located at the model.py line; the result is then null.
mlir::OwningOpRef<mlir::ModuleOp> importArtifact(mlir::MLIRContext &context,
                                                 const ArtifactFile &artifact);

} // namespace pt2c

#endif // PT2C_COMPILER_IMPORT_IMPORTER_H_
