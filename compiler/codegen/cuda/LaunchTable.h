// What each kernel function of the model does on the GPU, read off the host functions
// lowerKernelsToGpu leaves: a sequence of launches over the function's buffers and its
// temporaries. The execution plan turns each pt2c kernel step into these launches.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_LAUNCHTABLE_H_
#define PT2C_COMPILER_CODEGEN_CUDA_LAUNCHTABLE_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mlir/IR/BuiltinOps.h"

namespace pt2c {

// A launch argument: the kernel function's own buffer `index` (its arguments, then its
// results, the order of the plan step's buffers), its temporary `index`, or the run's
// symbol values (a kernel of a dynamic graph; index unused).
struct LaunchArg {
  enum Kind { kBuffer, kTemporary, kSymbols } kind;
  unsigned index;
};

struct GpuLaunch {
  std::string kernel; // entry point in the gpu.module
  std::array<uint32_t, 3> grid, block;
  uint32_t sharedBytes = 0;
  std::vector<LaunchArg> args;
};

struct KernelLaunches {
  std::vector<uint64_t> temporaryBytes; // scratch the launches share, per temporary
  std::vector<GpuLaunch> launches;      // in order
};

// By kernel function name.
using LaunchTable = std::map<std::string, KernelLaunches>;

// Reads the launch sequence of every kernel function (diagnosing anything but
// allocations, constants and launches with constant sizes).
mlir::FailureOr<LaunchTable> readLaunchTable(mlir::ModuleOp lowered);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_LAUNCHTABLE_H_
