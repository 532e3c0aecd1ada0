// pt2c's passes over kernel functions on their way to machine code (compiler/codegen):
// the kernel ABI of dynamic models and the CPU's loop and math rewrites. Registered
// by pt2c::registerAllPasses (compiler/Passes.h); the pipelines that run them are in
// BufferizeKernels.h and CpuPipeline.h.
#ifndef PT2C_CODEGEN_PASSES_TD
#define PT2C_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def BindKernelSymbolsPass : Pass<"pt2c-bind-kernel-symbols", "::mlir::ModuleOp"> {
  let summary = "Pass dynamic kernels their symbol values as a first memref argument";
  let description = [{
    On prim kernels, before lowering (DynamicKernelAbi.h): each kernel of a dynamic
    model (pt2c.symbol_names) gets a first argument memref<N x i64>, the symbol
    values, and its prim.symbol ops become loads from it.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def DynamicKernelAbiPass : Pass<"pt2c-dynamic-kernel-abi", "::mlir::ModuleOp"> {
  let summary = "Pass dynamically sized memrefs of dynamic kernels as bare pointers";
  let description = [{
    After bufferization (DynamicKernelAbi.h): each memref argument of a dynamic
    kernel with dynamic sizes becomes a bare !llvm.ptr, and the memref is rebuilt
    from it with the sizes pt2c.kernel_dims gives in terms of the symbol values
    (row-major strides); the bare-pointer calling convention cannot carry dynamic
    sizes itself.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::LLVM::LLVMDialect",
  ];
}

def CopyReturnedArgumentsPass : Pass<"pt2c-copy-returned-arguments", "::mlir::ModuleOp"> {
  let summary = "Return copies of kernel arguments a kernel returns unchanged";
  let description = [{
    On tensors, before bufferization, for every target (DynamicKernelAbi.h):
    buffer-results-to-out-params needs every result to be a new buffer.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def NameConstantGlobalsPass : Pass<"pt2c-name-constant-globals", "::mlir::ModuleOp"> {
  let summary = "Name and place the globals of constant tensors in the order of first use";
  let description = [{
    Right after one-shot-bufferize, for every target (ConstantGlobalNames.h): the
    globals `__constant_<type>`, `_0`, `_1`, ... get their names in the order the
    module first uses them, and the module lists them in reverse of it, as module
    bufferization makes them when it visits the functions in module order. MLIR 19
    visits them in an order that changes from run to run.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def SplitKernelLoopsPass : Pass<"pt2c-split-kernel-loops", "::mlir::ModuleOp"> {
  let summary = "Bound one loop of each splittable kernel by appended begin/end "
                "parameters, so the runtime can divide the kernel among threads";
  let description = [{
    CPU, on bufferized linalg (SplitKernelLoops.h): records each split kernel's
    extent and work in the module attribute `pt2c.kernel_splits`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def ApproximateMathPass : Pass<"pt2c-approximate-math", "::mlir::ModuleOp"> {
  let summary = "Replace f32 transcendental math ops by polynomial approximations";
  let description = [{
    CPU (ApproximateMath.h): polynomials vectorize where libm calls do not. ROCm
    (compiler/codegen/rocm) with `expand-pow`: the GPU kernels link no device library,
    so every function LLVM's AMDGPU backend cannot select becomes arithmetic.
  }];
  let options = [
    Option<"expandPow", "expand-pow", "bool", /*default=*/"false",
           "Also expand math.powf to exp(b * log(a)) with its sign and special cases "
           "(for targets without a pow function)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def SelectMinMaxPass : Pass<"pt2c-select-minmax", "::mlir::ModuleOp"> {
  let summary = "Float maximum/minimum as a compare and a select (NaN propagating)";
  let description = [{
    CPU (SelectMinMax.h): what PyTorch's CPU kernels compute, and much faster on x86
    than LLVM's expansion of llvm.maximum.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // PT2C_CODEGEN_PASSES_TD
