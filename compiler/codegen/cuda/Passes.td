// The passes pt2c adds to upstream MLIR's GPU lowering (compiler/codegen/cuda): where
// each loop nest of a kernel function runs on the GPU, what a launch computes itself,
// pt2c's own fused kernels, and one gpu.module for the fatbin. Registered by
// pt2c::registerAllPasses (compiler/Passes.h); the CUDA pipeline that runs them is in
// GpuLowering.h.
#ifndef PT2C_CODEGEN_CUDA_PASSES_TD
#define PT2C_CODEGEN_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def MapParallelLoopsToGpuPass
    : Pass<"pt2c-map-parallel-loops-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map each top-level loop nest of a function to one GPU launch (flat "
                "index, fixed block size)";
  let description = [{
    After convert-linalg-to-parallel-loops: every top-level scf.parallel becomes one
    launch for convert-parallel-loops-to-gpu. Its dimensions are collapsed into one
    row-major index (the last dimension varies fastest, so neighbouring threads touch
    neighbouring elements), tiled by `block-size`, and the tiles mapped to blocks and
    the elements of a tile to threads. A straight-line body whose accesses along the
    innermost loop are unit-stride last indices takes up to 8 bytes of neighbours per
    thread (the innermost loop stepped by k, the body repeated k times op by op), for
    the backend's vector loads and stores. Loops nested inside run sequentially in each
    thread (e.g. the reduction of a matmul). Top-level code outside any parallel loop
    (a full reduction, a rank-0 result) runs in a single-thread launch; memref.copy
    becomes a parallel loop first.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256", "Threads per block">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def MapRowReductionsToGpuPass
    : Pass<"pt2c-map-row-reductions-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map reductions over many elements to one GPU block per output element, "
                "combining the threads' partial results with gpu.all_reduce";
  let description = [{
    On bufferized linalg, before convert-linalg-to-parallel-loops: a reduction
    linalg.generic over at least 32 elements per output (softmax, layer norm, a mean
    over a dimension, a full sum), whose payload combines the output with one
    associative op, becomes a gpu.launch with one block per output element: its
    threads stride over the reduced elements and gpu.all_reduce combines their
    partial results. Contractions (an operand shared by several outputs, as in a GEMM
    fallback) are left to the loop mapping.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Most threads per block (a multiple of 32)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def SinkIntoGpuLaunchesPass : Pass<"pt2c-sink-into-gpu-launches", "::mlir::func::FuncOp"> {
  let summary = "Clone the side-effect-free ops a gpu.launch uses from above into it";
  let description = [{
    After convert-parallel-loops-to-gpu: constants, index arithmetic and memref views
    are cloned into each launch, so that after outlining a kernel's parameters are
    buffers only (the function's own memref arguments and its allocations).
  }];
}

def MergeSmallGpuLaunchesPass
    : Pass<"pt2c-merge-small-gpu-launches", "::mlir::func::FuncOp"> {
  let summary = "Merge consecutive small launches of a kernel function into one "
                "single-block launch";
  let description = [{
    After pt2c-gpu-load-symbols, before outlining: consecutive gpu.launch ops of
    static size with at most `max-threads` threads each (a one-token decode step's
    norms, rotary embeddings and scalar bookkeeping) become one launch of one block
    (the largest of their blocks). The parts run in order with a barrier between
    them; a part with fewer threads is guarded, a part of several blocks runs them
    one after another in every thread. Parts whose threads meet (barriers,
    all-reduces, shuffles, shared memory, pt2c's fused kernels) join only with their
    own single block unchanged. Allocations and pure ops between the launches move
    above them. Every element is computed by the same ops: results are identical.
  }];
  let options = [
    Option<"maxThreads", "max-threads", "int64_t", /*default=*/"4096",
           "Largest launch (blocks x threads) that is merged">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def LowerFusedOpsToGpuPass : Pass<"pt2c-lower-fused-ops-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Rewrite kernel functions made of one prim.attention or prim.layer_norm "
                "into bufferized functions of one fused launch";
  let description = [{
    On the kernel module, before bufferization: such a kernel function becomes the
    bufferized function (arguments, then the result as an out-param) of one launch
    of pt2c's fused kernel for it (FusedKernels.h: AttentionKernel.cpp,
    LayerNormKernel.cpp).
  }];
  let options = [
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Use the NVIDIA tensor-core attention kernel (inline PTX mma.sync) where it "
           "applies; off for targets without PTX (ROCm), which take the f32 tile and row "
           "kernels">,
    Option<"smCount", "sm-count", "int64_t", /*default=*/"132",
           "The GPU's multiprocessors (an H100's 132) that the attention kernels size "
           "their grids for: fewer query rows per block where the blocks would not "
           "cover them">,
  ];
  // LLVM: the tensor-core attention kernel's pointer accesses and mma.sync
  // (AttentionMmaKernel.cpp).
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def MergeGpuModulesPass : Pass<"pt2c-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Move every outlined GPU kernel into one gpu.module, @pt2c_kernels";
  let description = [{
    After gpu-kernel-outlining, which makes one gpu.module per launch: the fatbin
    holds one module (one PTX, one cubin per architecture), so each kernel moves into
    @pt2c_kernels renamed after its (unique) module, the globals the kernels read
    move once, and the launches follow.
  }];
}

def BoundDynamicBuffersPass
    : Pass<"pt2c-gpu-bound-dynamic-buffers", "::mlir::ModuleOp"> {
  let summary = "Give the kernel functions of dynamic graphs buffers of fixed size and "
                "a buffer of the run's symbol values";
  let description = [{
    After bufferization, on kernel functions with pt2c.symbol_names: each argument of
    dynamic shape becomes a byte array of its size at the symbols' maxima
    (pt2c.kernel_dims, pt2c.symbol_ranges), viewed (memref.view) at the run's sizes,
    which prim.symbol ops compute; each temporary of dynamic shape becomes a byte
    array at its bound, viewed the same way; a last argument, marked
    pt2c.symbol_values, holds the symbol values (int64) in device memory. The plan
    then passes plain device pointers, as for static kernels.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::pt2c::prim::PrimDialect",
  ];
}

def LoadGpuSymbolsPass : Pass<"pt2c-gpu-load-symbols", "::mlir::func::FuncOp"> {
  let summary = "Read the dynamic sizes inside GPU launches from the symbol values buffer";
  let description = [{
    After pt2c-sink-into-gpu-launches: every prim.symbol in a gpu.launch becomes a
    load from the kernel function's pt2c.symbol_values argument, which outlining
    then passes to the GPU kernel as one more pointer.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def WriteReshapedResultsInPlacePass
    : Pass<"pt2c-write-reshaped-results-in-place", "::mlir::func::FuncOp"> {
  let summary = "Compute a result that is a reshape of a temporary into its out-param";
  let description = [{
    After buffer-results-to-out-params: `memref.copy (reshape %tmp), %out`, where %tmp
    is a static memref.alloc and %out an out-param nothing else uses, becomes %tmp :=
    the inverse reshape of %out, and the copy goes. A loop nest linalg fused through a
    reshape (a stacked concatenate's collapse: rotary embeddings) computes in the
    expanded shape; the copy would be a launch of its own.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def RecomputeAtExtractsPass
    : Pass<"pt2c-recompute-at-extracts", "::mlir::func::FuncOp"> {
  let summary = "Compute an elementwise loop nest's element where a tensor.extract reads it";
  let description = [{
    On fused linalg, before bufferization: `tensor.extract %r[i...]`, where %r is the
    result of an all-parallel linalg.generic of cheap arithmetic (no divisions or math
    functions) read only by tensor.extract ops, becomes that generic's payload for
    element i (its operands extracted at the indices its indexing maps give), and the
    generic goes once nothing reads it. A direct depthwise convolution reads its input
    tap by tap with tensor.extract (clamped indices, no padded copy); the bias and ReLU
    of the convolution before it, fused into its kernel, were a loop nest of their own
    writing a temporary: a launch and a round trip through memory, now a few
    instructions per tap. A SiLU (exp and a division) stays a loop nest: repeated at 9
    or 25 taps it cost more than it saved (EfficientNet-B0 fp16 on an H100).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

#endif // PT2C_CODEGEN_CUDA_PASSES_TD
