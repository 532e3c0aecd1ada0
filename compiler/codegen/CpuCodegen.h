// CPU code generation: lowers the kernel functions of a module through upstream MLIR
// (linalg -> bufferization -> loops -> LLVM dialect), translates them to LLVM IR, adds
// the kernel table, the plan and the weights (plan_format.h's embedded symbols), and
// writes an x86-64 object file, all in process through LLVM's TargetMachine.
#ifndef PT2C_COMPILER_CODEGEN_CPUCODEGEN_H_
#define PT2C_COMPILER_CODEGEN_CPUCODEGEN_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/codegen/ExecutionPlan.h"
#include "mlir/IR/BuiltinOps.h"

namespace pt2c {

struct CpuCodegenOptions {
  std::string cpu = "x86-64-v2"; // LLVM CPU name; "native" for the build machine's
  // The weights blob (ExecutionPlan::weights): byte ranges of files placed at their blob
  // offsets, assembled in with .incbin (no copy in memory), zeros in between.
  struct WeightsPiece {
    std::string file;
    uint64_t fileOffset = 0, size = 0, blobOffset = 0;
  };
  std::vector<WeightsPiece> weights; // by increasing blobOffset
  uint64_t weightsSize = 0;
  // --external-weights: `weights` is empty and the .so records its weights file instead
  // (pt2c/weights_format.h, pt2c_external_weights: the symbol __pt2c_external_weights).
  struct ExternalWeights {
    uint64_t blobSize = 0, fingerprint = 0, checksum = 0;
  };
  std::optional<ExternalWeights> externalWeights;
  // Called with the textual LLVM IR before optimization (for `--emit llvm`).
  std::function<void(const std::string &)> onLLVMIR;
  // More read-only data for the runtime: each blob becomes the hidden symbols `symbol`
  // (its bytes, `alignment`-aligned) and `symbol`_size (uint64_t). CUDA models carry
  // their fatbin this way.
  struct Blob {
    std::string symbol, bytes;
    unsigned alignment = 8;
  };
  std::vector<Blob> blobs;
  // Per kernel function, the bytes of each buffer it takes (kernelArgBytes, taken before
  // lowering erases the types): the .so's __pt2c_kernel_args, which create checks the
  // plan against. Empty, or a kernel missing: no table.
  std::map<std::string, std::vector<uint64_t>> kernelArgBytes;
  // The kernel functions of dynamic graphs (kernelsTakingSymbols, taken before lowering):
  // their wrappers pass the symbol values first. A plan set may mix them with static
  // graphs' kernels, which take none.
  std::set<std::string> symbolKernels;
};

// Per kernel function of `kernels` (not yet lowered), the bytes of each tensor or memref
// it takes, operands then results (0 for a dynamic size), as its type says.
std::map<std::string, std::vector<uint64_t>> kernelArgBytes(mlir::ModuleOp kernels);

// The kernel functions of `kernels` (not yet lowered) that pt2c-form-kernels made for a
// dynamic graph: pt2c-bind-kernel-symbols gives them the symbol values as argument 0.
std::set<std::string> kernelsTakingSymbols(mlir::ModuleOp kernels);

// Lowers the module's kernel functions (in place) to the LLVM dialect.
mlir::LogicalResult lowerKernelsToLLVMDialect(mlir::ModuleOp kernels);

// `kernels` holds only the kernel functions (already in the LLVM dialect or not).
mlir::LogicalResult emitCpuObject(mlir::ModuleOp kernels, const ExecutionPlan &plan,
                                  const CpuCodegenOptions &options, const std::string &objectPath);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CPUCODEGEN_H_
