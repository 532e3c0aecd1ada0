// pt2c's passes over aten and prim (DESIGN.md data flow: aten passes, then prim).
#ifndef PT2C_TRANSFORMS_PASSES_TD
#define PT2C_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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
