// Prints MLIR diagnostics the way a model author reads them:
//   pt2c: model.py:12: error: unsupported operator aten::foo.default: ...
//      12 |     return torch.foo(x)
// Locations come from the exporter (the model.py line each ATen call came from).
#ifndef PT2C_COMPILER_DRIVER_DIAGNOSTICS_H_
#define PT2C_COMPILER_DRIVER_DIAGNOSTICS_H_

#include "mlir/IR/Diagnostics.h"

namespace pt2c {

class UserDiagnosticPrinter : public mlir::ScopedDiagnosticHandler {
public:
  explicit UserDiagnosticPrinter(mlir::MLIRContext *ctx);
};

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_DIAGNOSTICS_H_
