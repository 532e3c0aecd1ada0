// pt2c's passes over aten and prim (DESIGN.md data flow: aten passes, then prim).
#ifndef PT2C_TRANSFORMS_PASSES_TD
#define PT2C_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def Functionalize : Pass<"pt2c-functionalize", "::mlir::ModuleOp"> {
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
  let constructor = "::pt2c::createFunctionalizePass()";
  let dependentDialects = ["::pt2c::prim::PrimDialect"];
}

def DecomposeAtenToPrim : Pass<"pt2c-decompose-aten-to-prim"> {
  let summary = "Rewrite every aten op into prim ops";
  let description = [{
    Applies the aten -> prim decompositions registered in decompose/ (one file per
    group of ops). Type promotion and broadcasting, implicit in ATen, become explicit
    prim.convert and prim.broadcast_in_dim ops. Fails, naming the op, if an aten op
    has no decomposition or its decomposition does not apply.
  }];
  let constructor = "::pt2c::createDecomposeAtenToPrimPass()";
  let dependentDialects = ["::pt2c::prim::PrimDialect"];
}

def LowerPrimToLinalg : Pass<"pt2c-lower-prim-to-linalg"> {
  let summary = "Lower prim ops to linalg/tensor/arith/math on tensors";
  let description = [{
    Every prim op becomes destination-passing-style tensor code (tensor.empty
    destinations) that upstream one-shot-bufferize and convert-linalg-to-loops accept:
    linalg.generic for elementwise ops, broadcasts and general contractions,
    linalg.matmul/batch_matmul for plain matrix products, linalg.transpose, and
    tensor.collapse_shape/expand_shape for reshapes.
  }];
  let constructor = "::pt2c::createLowerPrimToLinalgPass()";
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // PT2C_TRANSFORMS_PASSES_TD
