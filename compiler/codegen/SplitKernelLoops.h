// pt2c-split-kernel-loops (CPU): makes a kernel's work divisible among threads. A kernel
// function (bufferized linalg) splits when one loop of each of its linalg ops can be
// restricted to a range [begin, end) of the same extent N, such that every op touches
// only the rows [begin, end) of every buffer the kernel writes, along a fixed axis per
// buffer: each op's chosen loop is a parallel loop that indexes each written buffer it
// touches by itself alone (d_l at that buffer's axis, nowhere else in the map), written
// buffers are accessed directly or through subviews that keep that axis whole (a padded
// copy's interior), and op bodies read no written buffer. Calls
// with disjoint ranges then touch disjoint bytes of every written buffer, and their union
// is the whole kernel.
//
// Such a kernel's linalg ops become loop nests here (other kernels' later, by
// convert-linalg-to-loops), the chosen loop bounded by two `index` parameters appended
// to the function, `begin` and `end`; the module attribute `pt2c.kernel_splits` maps
// the kernel's name to [N, work] (work: the loop iterations of all its ops, whether a
// split pays). The CPU code generator emits the range entry points and the table the
// runtime splits with (plan_format.h, pt2c_kernel_split).
#ifndef PT2C_COMPILER_CODEGEN_SPLITKERNELLOOPS_H_
#define PT2C_COMPILER_CODEGEN_SPLITKERNELLOOPS_H_

#include <cstdint>
#include <map>
#include <string>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace pt2c {

struct KernelSplit {
  int64_t extent = 0; // N: iterations of the split loop
  int64_t work = 0;   // iterations of every loop nest of the kernel, summed
};

// The module attribute's content, by kernel name (empty when there is none).
std::map<std::string, KernelSplit> kernelSplits(mlir::ModuleOp module);

#define GEN_PASS_DECL_SPLITKERNELLOOPSPASS
#include "compiler/codegen/Passes.h.inc"

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_SPLITKERNELLOOPS_H_
