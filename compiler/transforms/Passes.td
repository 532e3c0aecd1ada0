// pt2c's passes over aten and prim (DESIGN.md data flow: aten passes, then prim), those of
// the subpackages fold/, symbolic/ and kernels/ included. Registered by
// pt2c::registerAllPasses (compiler/Passes.h); the pipelines that run them are in
// Pipelines.h.
#ifndef PT2C_TRANSFORMS_PASSES_TD
#define PT2C_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FunctionalizePass : Pass<"pt2c-functionalize", "::mlir::ModuleOp"> {
  let summary = "Turn in-place aten ops and writes through views into value semantics";
  let description = [{
    Reads every tensor value as a view chain over a root tensor (functionalize/). An
    in-place op becomes its functional form (aten.add_.Tensor -> aten.add.Tensor;
    copy_ -> a conversion and broadcast of its source) applied to the written view;
    the result is scattered back into the root through the inverse of each view op
    (prim.slice + prim.concatenate for slice/select/split/unbind pieces, prim.reshape
    and prim.transpose for whole-tensor views), and every later read of any alias of
    the root replays its view chain on the new root. Writes to function arguments
    need a write-back result (pt2c.writeback for module state, pt2c.input_writeback
    for user inputs); writes to weights are errors naming the op.
  }];
  let dependentDialects = ["::pt2c::prim::PrimDialect"];
}

def DecomposeAtenToPrimPass : Pass<"pt2c-decompose-aten-to-prim"> {
  let summary = "Rewrite every aten op into prim ops";
  let description = [{
    Applies the aten -> prim decompositions registered in decompose/ (one file per
    group of ops). Type promotion and broadcasting, implicit in ATen, become explicit
    prim.convert and prim.broadcast_in_dim ops. Fails, naming the op, if an aten op
    has no decomposition or its decomposition does not apply.
  }];
  let dependentDialects = ["::pt2c::prim::PrimDialect"];
}

def LowerPrimToLinalgPass : Pass<"pt2c-lower-prim-to-linalg"> {
  let summary = "Lower prim ops to linalg/tensor/arith/math on tensors";
  let description = [{
    Every prim op becomes destination-passing-style tensor code (tensor.empty
    destinations) that upstream one-shot-bufferize and convert-linalg-to-loops accept:
    linalg.generic for elementwise ops, broadcasts and general contractions,
    linalg.matmul/batch_matmul for plain matrix products, linalg.transpose,
    tensor.collapse_shape/expand_shape for reshapes, and an scf.for over the operand
    for prim.nonzero (its rows are appended in order) and scalar loops for
    prim.nms_keep (a sort, then the greedy walk).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def SymbolicShapesPass : Pass<"pt2c-symbolic-shapes", "::mlir::ModuleOp"> {
  let summary = "Express every dynamic size of a model function in its dynamic dimensions";
  let description = [{
    Gives every op with a dynamic result pt2c.result_dims and replaces each
    prim.dim_size by index arithmetic on prim.symbol (symbolic/SymbolicShapes.h);
    refuses, naming the op, a size it cannot express or one that may shrink as a
    dimension grows. A function without pt2c.symbols is left alone.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::pt2c::prim::PrimDialect",
  ];
}

def ChannelsLastConvolutionsPass : Pass<"pt2c-channels-last-convolutions", "::mlir::ModuleOp"> {
  let summary = "Compute half-precision 2-d convolutions channels-last (CUDA)";
  let description = [{
    Each f16/bf16 2-d prim.convolution of static shapes whose filter is a weight becomes
    transpose(convolution{channels_last}(transpose(x, [0, 2, 3, 1]), w), [0, 3, 1, 2])
    (kernels/ChannelsLastConvolutions.h); canonicalization then sinks and cancels the
    transposes.
  }];
  let dependentDialects = ["::pt2c::prim::PrimDialect"];
}

def PointwiseConvolutionProductsPass
    : Pass<"pt2c-pointwise-convolution-products", "::mlir::ModuleOp"> {
  let summary = "Write 1x1 convolutions as matrix products (CUDA)";
  let description = [{
    Each prim.convolution with a 1x1 filter, stride 1, no padding, one group and static
    shapes whose product needs no transpose (channels-last, one spatial position, or one
    image) becomes a prim.dot_general of its input and its filter as [O, C], reshaped to
    the convolution's result (kernels/PointwiseConvolutions.h).
  }];
  let options = [
    Option<"halfPrecision", "half-precision", "bool", /*default=*/"true",
           "Also f16/bf16 convolutions (f32 ones always)">,
  ];
  let dependentDialects = ["::pt2c::prim::PrimDialect"];
}

def SinkReshapesPass : Pass<"pt2c-sink-reshapes", "::mlir::ModuleOp"> {
  let summary = "Move reshapes below the elementwise ops that read them (GPU)";
  let description = [{
    In a module marked pt2c.fused_ops, E(reshape(x), y...) = reshape(E(x, y'...)) for
    elementwise E where x is elementwise math, a reduction or a small row product, and
    the other operands are reshapes of x's shape, splats or arguments
    (ir/prim/LayoutSinking.h): E then joins x's kernel (a mean's conversion to f16 as
    the reduction's epilogue, a squeeze-excitation gate's bias as its product's).
  }];
  let dependentDialects = ["::pt2c::prim::PrimDialect"];
}

def FormKernelsPass : Pass<"pt2c-form-kernels", "::mlir::ModuleOp"> {
  let summary = "Outline the prim ops of model functions into kernel functions";
  let description = [{
    Each model function (public func.func) keeps only calls of private `pt2c.kernel`
    functions, alias ops and its return (kernels/FormKernels.h); each kernel becomes
    one step of the execution plan.
  }];
  // The copy kernels that give returned values buffers of their own.
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def FoldWeightsPass : Pass<"pt2c-fold-weights", "::mlir::ModuleOp"> {
  let summary = "Evaluate weight-only computation at compile time into derived weights; "
                "fold per-channel scales (inference batch norm) into convolution and "
                "matmul weights";
  let description = [{
    See fold/FoldWeights.h. From pt2c-opt, weights carry their bytes as `pt2c.value`;
    the driver passes the artifact's weights (createFoldWeightsPass(WeightBytes, ...)).
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"int64_t(64) << 20",
           "Largest tensor (elements) evaluated at compile time">,
  ];
  let dependentDialects = ["::pt2c::prim::PrimDialect"];
}

#endif // PT2C_TRANSFORMS_PASSES_TD
