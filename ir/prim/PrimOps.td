// The `prim` dialect: a small, closed set of value-semantics tensor ops that every aten
// op decomposes into and that fusion/codegen consume (DESIGN.md decision 4).
// StableHLO-like: no implicit broadcasting or type promotion; broadcast_in_dim and
// convert make both explicit. Dynamic dims are allowed; ops whose result sizes cannot
// be derived from their operands (broadcast_in_dim, reshape) take the dynamic sizes as
// index operands, as tensor.empty does.
#ifndef PT2C_PRIM_OPS_TD
#define PT2C_PRIM_OPS_TD

include "ir/prim/PrimBase.td"

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

def Prim_ConstantOp : Prim_Op<"constant", [ConstantLike, InferTypeOpAdaptor]> {
  let summary = "a constant tensor (splat or dense)";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Prim_DimSizeOp : Prim_Op<"dim_size", [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "the size of one dimension of a tensor, for dynamic result sizes";
  let arguments = (ins Prim_Tensor:$operand, I64Attr:$dimension);
  let results = (outs Index:$result);
  let assemblyFormat = "$operand `,` $dimension attr-dict `:` type($operand)";
  let hasVerifier = 1;
}

def Prim_SymbolOp : Prim_Op<"symbol"> {
  let summary = "the value of a dynamic dimension of the graph (model.py's dynamic_shapes)";
  let description = [{
    `index` is the symbol's position in the model function's `pt2c.symbols` list;
    `name` is model.py's name for it. Size computations of dynamic graphs are index
    arithmetic (arith) on symbols, so every kernel can recompute them from the symbol
    values the runtime passes it.
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$index);
  let results = (outs Index:$result);
  let assemblyFormat = "$name `,` $index attr-dict";
}

//===----------------------------------------------------------------------===//
// Elementwise ops: operands and result have one and the same type.
//===----------------------------------------------------------------------===//

class Prim_UnaryOp<string mnemonic, Type type = Prim_Tensor>
    : Prim_Op<mnemonic, [Elementwise, SameOperandsAndResultType, InferTypeOpInterface]> {
  let arguments = (ins type:$operand);
  let results = (outs type:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Prim_NegOp : Prim_UnaryOp<"neg"> { let summary = "-x"; }
def Prim_AbsOp : Prim_UnaryOp<"abs"> { let summary = "|x|"; }
def Prim_ExpOp : Prim_UnaryOp<"exp", Prim_FloatTensor> { let summary = "e^x"; }
def Prim_LogOp : Prim_UnaryOp<"log", Prim_FloatTensor> { let summary = "ln x"; }
def Prim_TanhOp : Prim_UnaryOp<"tanh", Prim_FloatTensor> { let summary = "tanh x"; }
def Prim_ErfOp : Prim_UnaryOp<"erf", Prim_FloatTensor> { let summary = "erf x"; }
def Prim_SigmoidOp : Prim_UnaryOp<"sigmoid", Prim_FloatTensor> {
  let summary = "1 / (1 + e^-x)";
}
def Prim_SqrtOp : Prim_UnaryOp<"sqrt", Prim_FloatTensor> { let summary = "sqrt x"; }
def Prim_RsqrtOp : Prim_UnaryOp<"rsqrt", Prim_FloatTensor> {
  let summary = "1 / sqrt x";
  let hasCanonicalizer = 1; // RMS norm -> prim.layer_norm {rms} (RmsNormForm.cpp)
}
def Prim_CosOp : Prim_UnaryOp<"cos", Prim_FloatTensor> { let summary = "cos x"; }
def Prim_SinOp : Prim_UnaryOp<"sin", Prim_FloatTensor> { let summary = "sin x"; }
// The rest of ATen's elementwise math (the Core ATen opset's): each is one math-dialect
// op when lowered, except asin, acos and the hyperbolic functions, which
// compiler/transforms/lower/ScalarOps.cpp writes as accurate formulas (it says why).
def Prim_TanOp : Prim_UnaryOp<"tan", Prim_FloatTensor> { let summary = "tan x"; }
def Prim_AsinOp : Prim_UnaryOp<"asin", Prim_FloatTensor> { let summary = "asin x"; }
def Prim_AcosOp : Prim_UnaryOp<"acos", Prim_FloatTensor> { let summary = "acos x"; }
def Prim_AtanOp : Prim_UnaryOp<"atan", Prim_FloatTensor> { let summary = "atan x"; }
def Prim_SinhOp : Prim_UnaryOp<"sinh", Prim_FloatTensor> { let summary = "sinh x"; }
def Prim_CoshOp : Prim_UnaryOp<"cosh", Prim_FloatTensor> { let summary = "cosh x"; }
def Prim_AsinhOp : Prim_UnaryOp<"asinh", Prim_FloatTensor> { let summary = "asinh x"; }
def Prim_AcoshOp : Prim_UnaryOp<"acosh", Prim_FloatTensor> { let summary = "acosh x"; }
def Prim_AtanhOp : Prim_UnaryOp<"atanh", Prim_FloatTensor> { let summary = "atanh x"; }
def Prim_Expm1Op : Prim_UnaryOp<"expm1", Prim_FloatTensor> {
  let summary = "e^x - 1, exact near 0";
}
def Prim_Log1pOp : Prim_UnaryOp<"log1p", Prim_FloatTensor> {
  let summary = "ln(1 + x), exact near 0";
}
def Prim_Log2Op : Prim_UnaryOp<"log2", Prim_FloatTensor> { let summary = "log2 x"; }
def Prim_Log10Op : Prim_UnaryOp<"log10", Prim_FloatTensor> { let summary = "log10 x"; }
def Prim_FloorOp : Prim_UnaryOp<"floor", Prim_FloatTensor> { let summary = "floor x"; }
def Prim_CeilOp : Prim_UnaryOp<"ceil", Prim_FloatTensor> { let summary = "ceil x"; }
def Prim_TruncOp : Prim_UnaryOp<"trunc", Prim_FloatTensor> {
  let summary = "x rounded toward 0";
}
def Prim_RoundOp : Prim_UnaryOp<"round", Prim_FloatTensor> {
  let summary = "x rounded to the nearest integer, halves to even (torch.round)";
}

class Prim_BinaryOp<string mnemonic, Type type = Prim_Tensor>
    : Prim_Op<mnemonic, [Elementwise, SameOperandsAndResultType, InferTypeOpInterface]> {
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

// add, sub, mul and div fold away their identities (x + 0 on integers, x + -0.0,
// x - 0, x * 1, x / 1): a kernel left doing nothing would return its own argument.
def Prim_AddOp : Prim_BinaryOp<"add"> { let summary = "x + y"; let hasFolder = 1; }
def Prim_SubOp : Prim_BinaryOp<"sub"> { let summary = "x - y"; let hasFolder = 1; }
def Prim_MulOp : Prim_BinaryOp<"mul"> { let summary = "x * y"; let hasFolder = 1; }
def Prim_DivOp : Prim_BinaryOp<"div"> {
  let summary = "x / y (integers: truncating, like C)";
  let hasFolder = 1;
}
def Prim_MaxOp : Prim_BinaryOp<"max"> { let summary = "max(x, y), NaN-propagating"; }
def Prim_MinOp : Prim_BinaryOp<"min"> { let summary = "min(x, y), NaN-propagating"; }
def Prim_PowOp : Prim_BinaryOp<"pow", Prim_FloatTensor> { let summary = "x ^ y"; }
def Prim_Atan2Op : Prim_BinaryOp<"atan2", Prim_FloatTensor> {
  let summary = "the angle of the point (y = lhs, x = rhs), in [-pi, pi]";
}
def Prim_RemOp : Prim_BinaryOp<"rem"> {
  let summary = "x - trunc(x / y) * y, with x's sign: C's fmod and integer %";
}

def Prim_CompareDirection : I64EnumAttr<"CompareDirection", "comparison", [
    I64EnumAttrCase<"EQ", 0>, I64EnumAttrCase<"NE", 1>, I64EnumAttrCase<"LT", 2>,
    I64EnumAttrCase<"LE", 3>, I64EnumAttrCase<"GT", 4>, I64EnumAttrCase<"GE", 5>]> {
  let cppNamespace = "::pt2c::prim";
}

def Prim_CompareOp : Prim_Op<"compare", [Elementwise, SameTypeOperands, InferTypeOpAdaptor]> {
  let summary = "elementwise comparison giving i1 (floats: NE is unordered, the rest ordered)";
  let arguments = (ins Prim_CompareDirection:$direction, Prim_Tensor:$lhs, Prim_Tensor:$rhs);
  let results = (outs Prim_BoolTensor:$result);
  let assemblyFormat = "$direction `,` $lhs `,` $rhs attr-dict `:` type($lhs)";
}

def Prim_SelectOp : Prim_Op<"select", [Elementwise, DeclareOpInterfaceMethods<InferTypeOpInterface>,
    AllTypesMatch<["on_true", "on_false", "result"]>]> {
  let summary = "pred ? on_true : on_false, elementwise";
  let arguments = (ins Prim_BoolTensor:$pred, Prim_Tensor:$on_true, Prim_Tensor:$on_false);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $pred `,` $on_true `,` $on_false attr-dict `:` type($pred) `,` type($result)
  }];
}

def Prim_ConvertOp : Prim_Op<"convert", [Elementwise]> {
  let summary = "elementwise element-type conversion (torch semantics: float -> int "
                "truncates, x -> bool is x != 0)";
  let description = [{
    The result type is the op's parameter (it names the target dtype); the
    Elementwise trait checks that the shape stays the same.
  }];
  let arguments = (ins Prim_Tensor:$operand);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Data movement and contraction
//===----------------------------------------------------------------------===//

def Prim_BroadcastInDimOp : Prim_Op<"broadcast_in_dim"> {
  let summary = "broadcasts operand dim i to result dim broadcast_dimensions[i]";
  let description = [{
    Operand dim i maps to result dim `broadcast_dimensions[i]` and must have size 1
    (expanded) or the result's size there; the other result dims are new. The result
    type is the op's parameter; `dynamic_sizes` holds one index per dynamic result dim.
  }];
  let arguments = (ins Prim_Tensor:$operand, DenseI64ArrayAttr:$broadcast_dimensions,
                       Variadic<Index>:$dynamic_sizes);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $broadcast_dimensions (`sizes` `(` $dynamic_sizes^ `)`)?
    attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Prim_ReshapeOp : Prim_Op<"reshape"> {
  let summary = "row-major reshape to the result type";
  let description = [{
    The result type is the op's parameter; `dynamic_sizes` holds one index per dynamic
    result dim.
  }];
  let arguments = (ins Prim_Tensor:$operand, Variadic<Index>:$dynamic_sizes);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $operand (`sizes` `(` $dynamic_sizes^ `)`)? attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Prim_TransposeOp : Prim_Op<"transpose", [InferTypeOpAdaptor]> {
  let summary = "result dim i = operand dim permutation[i]";
  let arguments = (ins Prim_Tensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `permutation` `=` $permutation attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Prim_DotGeneralOp : Prim_Op<"dot_general", [InferTypeOpAdaptor]> {
  let summary = "generalized matrix product (StableHLO dot_general)";
  let description = [{
    Result dims: the batch dims (in lhs_batching_dimensions order), then the remaining
    lhs dims, then the remaining rhs dims, each in operand order. Batch and contracting
    sizes must agree; lhs and rhs have the same element type, as has the result.
  }];
  let arguments = (ins Prim_Tensor:$lhs, Prim_Tensor:$rhs,
                       DenseI64ArrayAttr:$lhs_batching_dimensions,
                       DenseI64ArrayAttr:$rhs_batching_dimensions,
                       DenseI64ArrayAttr:$lhs_contracting_dimensions,
                       DenseI64ArrayAttr:$rhs_contracting_dimensions);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `batch` `=` $lhs_batching_dimensions `x` $rhs_batching_dimensions
    `,` `contract` `=` $lhs_contracting_dimensions `x` $rhs_contracting_dimensions
    attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
  // Absorbs transposed operands into the dimension numbers.
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// One row times a matrix of at most kMaxSmallRowProduct elements: static shapes, no
    /// batch dims, one contracting dim, every free dim of lhs of size 1 (a squeeze-
    /// excitation gate, [1, C] x [C/r, C]). On the GPU such a product is a row reduction
    /// per output that joins its elementwise consumer (compiler/transforms/kernels/
    /// FormKernels.cpp); bigger matrices (a classifier head) stay with the GEMM library,
    /// whose matrix-vector kernels read them at full memory bandwidth.
    bool isSmallRowProduct();
    static constexpr int64_t kMaxSmallRowProduct = 1 << 18;
  }];
}

//===----------------------------------------------------------------------===//
// Reductions, indexing and generated values (attention, normalization, embeddings)
//===----------------------------------------------------------------------===//

def Prim_ReduceKind : I64EnumAttr<"ReduceKind", "reduction", [
    I64EnumAttrCase<"SUM", 0>, I64EnumAttrCase<"PROD", 1>, I64EnumAttrCase<"MAX", 2>,
    I64EnumAttrCase<"MIN", 3>, I64EnumAttrCase<"AND", 4>, I64EnumAttrCase<"OR", 5>]> {
  let cppNamespace = "::pt2c::prim";
}

def Prim_ReduceOp : Prim_Op<"reduce", [InferTypeOpAdaptor]> {
  let summary = "combines the elements along `dimensions` with `kind`, starting from `init`";
  let description = [{
    The result has the operand's dims without `dimensions` (in order), as StableHLO's
    reduce: a keepdim result is a reshape away. `init` is a rank-0 tensor of the
    operand's element type, the identity of `kind` in the usual case (0 for SUM, -inf
    for MAX). MAX and MIN propagate NaN like torch.amax; AND and OR are for i1.
    The order in which elements are combined is unspecified.
  }];
  let arguments = (ins Prim_ReduceKind:$kind, Prim_Tensor:$operand,
                       0DTensorOf<[AnyType]>:$init, DenseI64ArrayAttr:$dimensions);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $kind `,` $operand `,` $init `,` `dims` `=` $dimensions attr-dict `:`
    type($operand) `,` type($init) `->` type($result)
  }];
}

def Prim_AttentionOp : Prim_Op<"attention"> {
  let summary = "softmax(q k^T * scale + bias) v in one op, for targets with a fused kernel";
  let description = [{
    q [B, H, L, D], k [B, Hk, S, D], v [B, Hk, S, E] of one float type T; the result
    [B, H, L, E] is of type T. Hk divides H: with Hk < H (grouped-query attention) query
    head h reads key/value head h / (H / Hk), as sdpa with enable_gqa does, without the
    repeated heads ever being written (canonicalization absorbs a repeat of each k/v head
    into the op). Scores, softmax and the weighted sum are computed in f32.
    `bias`, when present, is f32 or T and added to the scaled scores (in f32); each of its four dims
    is 1 (broadcast) or the scores' size ([B, H, L, S]); -inf masks a key out. `causal`
    masks out key j for query i where j > i. A row whose keys are all masked out gives
    0, as the decomposition (decompose/Attention.cpp) and torch's CPU kernel give.
    `heads_inner` [q, k, v, result]: that tensor is laid out [B, len, H, dim] instead
    (the layout of a Linear's output split into heads, before the transpose that
    attention code applies; canonicalization absorbs such transposes into the op).
    `parts` [q, k, v], when present: where entry i is p >= 0, operand i (heads inner)
    is a packed [B, len, P, H, dim] tensor of which the op reads part p of dim 2 (a
    fused q/k/v projection's output, split by the model into P parts after its reshape;
    canonicalization absorbs such slices into the op); -1 keeps the operand as it is.
    Only the CUDA pipeline emits it (the decomposition of scaled_dot_product_attention
    in a module marked `pt2c.fused_ops`); every other target sees that formula
    as prim ops.
  }];
  let arguments = (ins Prim_FloatTensor:$query, Prim_FloatTensor:$key,
                       Prim_FloatTensor:$value, Optional<Prim_FloatTensor>:$bias,
                       F64Attr:$scale, BoolAttr:$causal, DenseBoolArrayAttr:$heads_inner,
                       OptionalAttr<DenseI64ArrayAttr>:$parts);
  let results = (outs Prim_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`bias` $bias^)? `,` `scale` `=` $scale `,` `causal` `=` $causal
    `,` `heads_inner` `=` $heads_inner (`,` `parts` `=` $parts^)? attr-dict `:` type(operands)
    `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The [B, H, len, dim] shape of q, k, v or the result (0..3), whatever its layout.
    llvm::SmallVector<int64_t, 4> logicalShape(unsigned which);
    /// The part of dim 2 that operand `which` (0..2) reads when it is packed, else -1.
    int64_t partOf(unsigned which);
  }];
}

def Prim_LayerNormOp : Prim_Op<"layer_norm", [AttrSizedOperandSegments]> {
  let summary = "layer norm over the last dim in one op, for targets with a fused kernel";
  let description = [{
    result = (x - mean) / sqrt(var + epsilon) * weight + bias over the last dim of x
    (mean and the biased variance of that dim), computed in f32 whatever the element
    types and rounded once to the result's type. x is `input`, or `input + residual`
    rounded to input's type when `residual` (input's type and shape) is present: the
    residual connection of a post-norm transformer block. weight and bias are optional,
    one value per element of the last dim. Canonicalization absorbs widening converts of
    the operands, a convert of the result and an add that only feeds the op. Only the
    CUDA pipeline emits it (the decomposition of native_layer_norm in a module marked
    `pt2c.fused_ops`).

    With `rms` (RMS norm: Llama, Mistral, T5, torch's rms_norm), nothing is centred:
    y = x / sqrt(mean(x^2) + epsilon), rounded to the result's type, then times weight
    (in f32, rounded again) plus bias, as those models write it (`weight *
    y.to(dtype)`); for an f32 result the roundings change nothing. Canonicalization of
    prim.rsqrt forms it from that formula in a module marked `pt2c.fused_ops`.
  }];
  let arguments = (ins Prim_FloatTensor:$input, Optional<Prim_FloatTensor>:$residual,
                       Optional<Prim_FloatTensor>:$weight, Optional<Prim_FloatTensor>:$bias,
                       F64Attr:$epsilon, UnitAttr:$rms);
  let results = (outs Prim_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`residual` $residual^)? (`weight` $weight^)? (`bias` $bias^)? `,` `epsilon` `=`
    $epsilon attr-dict `:` type(operands) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Prim_GatherOp : Prim_Op<"gather", [InferTypeOpAdaptor]> {
  let summary = "takes slices of `operand` along `axis` at the positions in `indices`";
  let description = [{
    TensorFlow's gather with batch dims: the first `batch_dims` dims of `indices`
    are shared with the operand's first dims (batch_dims <= axis), the rest of
    `indices` replaces the operand's dim `axis`:

      result.shape = operand.shape[:axis] ++ indices.shape[batch_dims:]
                     ++ operand.shape[axis+1:]
      result[p, j, s] = operand[p, indices[p[:batch_dims], j], s]

    embedding and index_select are batch_dims = 0; torch.gather along the last dim is
    batch_dims = axis. Indices outside [0, size) are clamped into it (as StableHLO
    clamps start indices): out-of-range reads must never leave the tensor.
  }];
  let arguments = (ins Prim_Tensor:$operand, RankedTensorOf<[AnySignlessInteger]>:$indices,
                       I64Attr:$axis, DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $indices `,` `axis` `=` $axis attr-dict `:`
    type($operand) `,` type($indices) `->` type($result)
  }];
}

def Prim_SliceOp : Prim_Op<"slice", [InferTypeOpAdaptor]> {
  let summary = "the elements start[i], start[i] + stride[i], ... < limit[i] of each dim";
  let description = [{
    StableHLO's slice: static `start_indices`, `limit_indices` and `strides`, one
    entry per dim, with 0 <= start <= limit <= size and stride >= 1. Result dim i has
    ceil((limit[i] - start[i]) / stride[i]) elements.
  }];
  let arguments = (ins Prim_Tensor:$operand, DenseI64ArrayAttr:$start_indices,
                       DenseI64ArrayAttr:$limit_indices, DenseI64ArrayAttr:$strides);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `start` `=` $start_indices `,` `limit` `=` $limit_indices `,`
    `strides` `=` $strides attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Prim_ConcatenateOp : Prim_Op<"concatenate", [InferTypeOpAdaptor]> {
  let summary = "joins the operands along `dimension`";
  let description = [{
    All operands have one element type and the same sizes outside `dimension`.
  }];
  let arguments = (ins Variadic<Prim_Tensor>:$inputs, I64Attr:$dimension);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dimension attr-dict `:` functional-type($inputs, $result)
  }];
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Static operands of one size along `dimension` (rotate_half's two halves): the
    /// result is then their stack along a new dim, reshaped, which the GPU lowering
    /// computes elementwise (fusible with the operands' producers and the consumers).
    bool joinsEqualStaticParts();
    /// At least two operands, all statically shaped: on the GPU the result is computed
    /// elementwise, each element read from the part its index falls in.
    bool joinsStaticParts();
  }];
}

def Prim_IotaOp : Prim_Op<"iota"> {
  let summary = "result[i] = i[iota_dimension], converted to the element type";
  let description = [{
    Counts 0, 1, 2, ... along `iota_dimension` (StableHLO's iota), constant along the
    other dims; the result type is the op's parameter; `dynamic_sizes` holds one index
    per dynamic result dim. arange is an iota scaled and shifted; tril/triu masks
    compare two iotas.
  }];
  let arguments = (ins I64Attr:$iota_dimension, Variadic<Index>:$dynamic_sizes);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $iota_dimension (`sizes` `(` $dynamic_sizes^ `)`)? attr-dict `:` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "int64_t":$iota_dimension), [{
      build($_builder, $_state, result, iota_dimension, ::mlir::ValueRange{});
    }]>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Windowed ops and padding: pooling, convolution (PrimWindowOps.cpp)
//===----------------------------------------------------------------------===//

def Prim_ReduceWindowOp : Prim_Op<"reduce_window", [InferTypeOpAdaptor]> {
  let summary = "reduces every window of the padded operand (pooling)";
  let description = [{
    `init` is a rank-0 tensor of the operand's element type. The operand is padded
    with `init` by `padding_low`/`padding_high` in each dim; a window of
    `window_dimensions` taps spaced `window_dilations` apart slides over it by
    `window_strides`. Result dim d has floor((padded_d - dil_d * (win_d - 1) - 1) /
    stride_d) + 1 elements, each `init` combined with its window's elements (as in
    prim.reduce). Every attribute has one entry per operand dim.
  }];
  let arguments = (ins Prim_ReduceKind:$kind, Prim_Tensor:$operand,
                       0DTensorOf<[AnyType]>:$init, DenseI64ArrayAttr:$window_dimensions,
                       DenseI64ArrayAttr:$window_strides,
                       DenseI64ArrayAttr:$window_dilations,
                       DenseI64ArrayAttr:$padding_low, DenseI64ArrayAttr:$padding_high);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $kind `,` $operand `,` $init `,` `window` `=` $window_dimensions `,`
    `strides` `=` $window_strides `,` `dilations` `=` $window_dilations `,`
    `low` `=` $padding_low `,` `high` `=` $padding_high attr-dict
    `:` type($operand) `,` type($init) `->` type($result)
  }];
}

def Prim_ConvolutionOp : Prim_Op<"convolution", [InferTypeOpAdaptor]> {
  let summary = "N-d convolution (cross-correlation) in torch's layouts, with groups";
  let description = [{
    lhs is [N, C, spatial...], rhs [O, C / G, kernel...], the result [N, O, out...]
    with G = `feature_group_count` (torch's NCHW / OIHW layouts). lhs is padded with
    zeros by `padding_low`/`padding_high` in each spatial dim; the kernel taps are
    `rhs_dilation` apart and move by `window_strides`, so out_d = floor((padded_d -
    dil_d * (k_d - 1) - 1) / stride_d) + 1. Output channel o of group g = o / (O / G)
    sums over input channels g * C / G + c, c < C / G:
      result[n, o, x...] = sum_{c, k...} lhs_padded[n, g*C/G + c, x*stride + k*dil]
                                         * rhs[o, c, k...]
    The spatial attributes have one entry per spatial dim; no bias (an add).
    With `channels_last` lhs is [N, spatial..., C] and the result [N, out..., O] (the
    GPU's convolution library reads and writes that layout directly; rhs stays
    [O, C / G, kernel...]).
  }];
  let arguments = (ins Prim_Tensor:$lhs, Prim_Tensor:$rhs,
                       DenseI64ArrayAttr:$window_strides,
                       DenseI64ArrayAttr:$padding_low, DenseI64ArrayAttr:$padding_high,
                       DenseI64ArrayAttr:$rhs_dilation, I64Attr:$feature_group_count,
                       UnitAttr:$channels_last);
  let results = (outs Prim_Tensor:$result);
  let extraClassDeclaration = [{
    /// A depthwise convolution (one input and one output channel per group) of static
    /// shapes and at most kMaxDirectTaps taps, channels-last or on the GPU (a module with
    /// the fused ops) in either layout: computed by a kernel of its own, one thread per
    /// output (lower/Convolution.cpp), rather than by cuDNN, whose legacy API offers
    /// only slow kernels for it (a grouped direct kernel at about 7 us for MobileViT-S's
    /// f32 ones on an H100). The CPU keeps its library's depthwise kernels for NCHW.
    bool isDirectDepthwise();
    /// A 1x1 filter moved by stride 1 over an unpadded input: a matrix product of the
    /// filter with each position's channels.
    bool isPointwise();
    static constexpr int64_t kMaxDirectTaps = 49;
    /// The transpose permutations between torch's [N, C, spatial...] and channels-last
    /// [N, spatial..., C], for tensors of `rank`.
    static ::llvm::SmallVector<int64_t> toChannelsLast(int64_t rank);
    static ::llvm::SmallVector<int64_t> fromChannelsLast(int64_t rank);
  }];
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `strides` `=` $window_strides `,` `low` `=` $padding_low `,`
    `high` `=` $padding_high `,` `dilations` `=` $rhs_dilation `,`
    `groups` `=` $feature_group_count attr-dict
    `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
}

def Prim_PadOp : Prim_Op<"pad", [InferTypeOpAdaptor]> {
  let summary = "surrounds the operand with `padding_value` (non-negative edge padding)";
  let description = [{
    `padding_value` is a rank-0 tensor of the operand's element type; result dim d
    has size_d + edge_padding_low[d] + edge_padding_high[d] elements.
  }];
  let arguments = (ins Prim_Tensor:$operand, 0DTensorOf<[AnyType]>:$padding_value,
                       DenseI64ArrayAttr:$edge_padding_low,
                       DenseI64ArrayAttr:$edge_padding_high);
  let results = (outs Prim_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $padding_value `,` `low` `=` $edge_padding_low `,`
    `high` `=` $edge_padding_high attr-dict `:` type($operand) `,` type($padding_value)
    `->` type($result)
  }];
  let hasFolder = 1;
}

#endif // PT2C_PRIM_OPS_TD
