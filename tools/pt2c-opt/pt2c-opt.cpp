// pt2c-opt: mlir-opt with pt2c's dialects and passes, for lit tests and debugging.
//
// --pt2c-registry-only registers only what pt2c::registerAllDialects registers (not
// every upstream dialect), so that tests prove the driver's context is complete.
#include <cstring>
#include <vector>

#include "compiler/codegen/cuda/GpuPasses.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/kernels/FormKernels.h"
#include "ir/Dialects.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  std::vector<char *> args;
  bool registryOnly = false;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--pt2c-registry-only") == 0)
      registryOnly = true;
    else
      args.push_back(argv[i]);
  }

  mlir::registerAllPasses();
  pt2c::registerPasses();
  pt2c::registerFormKernelsPass();
  pt2c::registerGpuPasses();

  mlir::DialectRegistry registry;
  pt2c::registerAllDialects(registry);
  if (!registryOnly) {
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
  }
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      (int)args.size(), args.data(), "pt2c optimizer driver\n", registry));
}
