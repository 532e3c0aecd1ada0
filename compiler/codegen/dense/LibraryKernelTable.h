// The shape GemmKernels.h and ConvKernels.h both give their findings: the kernel
// functions a library step (a GEMM, a convolution) can serve, and the epilogue kernels
// that may join such a step, each by kernel function name.
#ifndef PT2C_COMPILER_CODEGEN_DENSE_LIBRARYKERNELTABLE_H_
#define PT2C_COMPILER_CODEGEN_DENSE_LIBRARYKERNELTABLE_H_

#include <map>
#include <optional>
#include <string>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace pt2c {

template <typename Kernel, typename Epilogue> struct LibraryKernelTable {
  std::map<std::string, Kernel> kernels;     // by kernel function name
  std::map<std::string, Epilogue> epilogues; // by kernel function name
};

// The table of `module`'s defined functions: a function `matchKernel` takes is a kernel,
// else one `matchEpilogue` takes is an epilogue (each returns a std::optional).
template <typename Kernel, typename Epilogue, typename MatchKernel, typename MatchEpilogue>
LibraryKernelTable<Kernel, Epilogue>
findLibraryKernels(mlir::ModuleOp module, MatchKernel matchKernel, MatchEpilogue matchEpilogue) {
  LibraryKernelTable<Kernel, Epilogue> table;
  module.walk([&](mlir::func::FuncOp func) {
    if (func.isExternal())
      return;
    if (std::optional<Kernel> kernel = matchKernel(func))
      table.kernels[func.getName().str()] = *kernel;
    else if (std::optional<Epilogue> epilogue = matchEpilogue(func))
      table.epilogues[func.getName().str()] = *epilogue;
  });
  return table;
}

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_DENSE_LIBRARYKERNELTABLE_H_
