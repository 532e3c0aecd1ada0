// pt2c-opt: mlir-opt with pt2c's dialects, passes and named pipelines (the driver's,
// compiler/Passes.h), for lit tests and debugging.
//
// --pt2c-registry-only registers only what pt2c::registerAllDialects registers (not
// every upstream dialect), so that tests prove the driver's context is complete.
// --pt2c-list-decompositions prints the aten ops that have a decomposition, one a line
// (tools/docs/gen_op_coverage.py reads them), and exits.
// --pt2c-list-dtype-rules prints the aten ops that have a dtype rule
// (ir/aten/AtenDtypeRules.h), one a line, and exits.
#include <cstdio>
#include <cstring>
#include <vector>

#include "compiler/Passes.h"
#include "compiler/transforms/Passes.h"
#include "ir/Dialects.h"
#include "ir/aten/AtenDtypeRules.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  std::vector<char *> args;
  bool registryOnly = false;
  bool listDecompositions = false;
  bool listDtypeRules = false;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--pt2c-registry-only") == 0)
      registryOnly = true;
    else if (std::strcmp(argv[i], "--pt2c-list-decompositions") == 0)
      listDecompositions = true;
    else if (std::strcmp(argv[i], "--pt2c-list-dtype-rules") == 0)
      listDtypeRules = true;
    else
      args.push_back(argv[i]);
  }

  if (listDecompositions) {
    mlir::MLIRContext context;
    for (const std::string &name : pt2c::decomposedAtenOps(context))
      std::printf("%s\n", name.c_str());
    return 0;
  }

  if (listDtypeRules) {
    for (const std::string &name : pt2c::aten::atenOpsWithDtypeRules())
      std::printf("%s\n", name.c_str());
    return 0;
  }

  mlir::registerAllPasses();
  pt2c::registerAllPasses();

  mlir::DialectRegistry registry;
  pt2c::registerAllDialects(registry);
  if (!registryOnly) {
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain((int)args.size(), args.data(), "pt2c optimizer driver\n", registry));
}
