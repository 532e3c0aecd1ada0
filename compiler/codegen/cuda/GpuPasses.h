// The passes pt2c adds to upstream MLIR's GPU lowering (compiler/codegen/cuda): where
// each loop nest of a kernel function runs on the GPU, and what a launch computes itself.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_GPUPASSES_H_
#define PT2C_COMPILER_CODEGEN_CUDA_GPUPASSES_H_

#include <cstdint>
#include <memory>

#include "mlir/Pass/Pass.h"

namespace pt2c {

// pt2c-map-parallel-loops-to-gpu (on func.func, after convert-linalg-to-parallel-loops):
// every top-level scf.parallel becomes one launch for convert-parallel-loops-to-gpu. Its
// dimensions are collapsed into one row-major index (the last dimension varies fastest,
// so neighbouring threads touch neighbouring elements), tiled by `blockSize`, and the
// tiles mapped to blocks and the elements of a tile to threads. Loops nested inside run
// sequentially in each thread (e.g. the reduction of a matmul). Top-level code outside
// any parallel loop (a full reduction, a rank-0 result) runs in a single-thread launch;
// memref.copy becomes a parallel loop first.
std::unique_ptr<mlir::Pass> createMapParallelLoopsToGpuPass(int64_t blockSize = 256);

// pt2c-map-row-reductions-to-gpu (on func.func, on bufferized linalg, before
// convert-linalg-to-parallel-loops): a reduction linalg.generic over at least 32
// elements per output (softmax, layer norm, a mean over a dimension, a full sum), whose
// payload combines the output with one associative op, becomes a gpu.launch with one
// block per output element: its threads stride over the reduced elements and
// gpu.all_reduce combines their partial results. Contractions (an operand shared by
// several outputs, as in a GEMM fallback) are left to the loop mapping.
std::unique_ptr<mlir::Pass> createMapRowReductionsToGpuPass();

// pt2c-sink-into-gpu-launches (after convert-parallel-loops-to-gpu): clones into each
// gpu.launch the side-effect-free ops it uses from above (constants, index arithmetic,
// memref views), so that after outlining a kernel's parameters are buffers only: the
// function's own memref arguments and its allocations.
std::unique_ptr<mlir::Pass> createSinkIntoGpuLaunchesPass();

// pt2c-lower-fused-ops-to-gpu (on the kernel module, before bufferization): a kernel
// function made of one prim.attention or prim.layer_norm becomes the bufferized
// function (arguments, then the result as an out-param) of one launch of pt2c's fused
// kernel for it (FusedKernels.h: AttentionKernel.cpp, LayerNormKernel.cpp).
std::unique_ptr<mlir::Pass> createLowerFusedOpsToGpuPass();

// Registers them for pt2c-opt and textual pipelines.
void registerGpuPasses();

}  // namespace pt2c

#endif  // PT2C_COMPILER_CODEGEN_CUDA_GPUPASSES_H_
