#include "compiler/codegen/dense/GemmEpilogues.h"

#include "compiler/codegen/dense/KernelBody.h"
#include "mlir/IR/BuiltinTypes.h"

namespace pt2c {
namespace {

using dense::argumentIndex;
using dense::gemmDtype;
using dense::gemmShape;
using dense::i64Array;
using dense::is;
using dense::split;

// A ReLU's 0 in a GEMM dtype.
bool isZeroSplat(mlir::Value value) {
  return dense::isPositiveZeroFloatSplat(value) &&
         gemmDtype(mlir::cast<mlir::ShapedType>(value.getType()).getElementType());
}

// Reads one epilogue function: its result's type is the type of x and z.
class EpilogueReader {
public:
  explicit EpilogueReader(mlir::func::FuncOp func) : func(func) {}

  std::optional<GemmEpilogueKernel> read() {
    auto b = dense::body(func);
    if (!b)
      return std::nullopt;
    type = b->second.getType();
    auto shape = gemmShape(b->second);
    if (!shape || shape->empty())
      return std::nullopt;
    GemmEpilogueKernel e;
    e.n = shape->back();
    e.elements = dense::elementCount(*shape);
    mlir::Value sum = b->second;
    size_t extraOps = 0; // ops besides the bias's broadcast and add
    bool relu = is(sum.getDefiningOp(), "prim.max");
    if (relu) {
      auto parts = split(sum.getDefiningOp(), isZeroSplat);
      if (!parts)
        return std::nullopt;
      sum = parts->second;
      extraOps = 2; // the zero constant and the max
    } else if (mlir::Operation *add = sum.getDefiningOp(); is(add, "prim.add") &&
                                                           isArgument(add->getOperand(0)) &&
                                                           isArgument(add->getOperand(1))) {
      return residualOnly(e, add, b->first.size());
    }
    bool residual = !isBiasAdd(sum);
    if (residual) { // (x + bias) + z
      auto parts = residualOf(sum);
      if (!parts)
        return std::nullopt;
      e.residual = argumentIndex(func, parts->second);
      sum = parts->first;
      extraOps += 1; // the residual's add
    }
    e.epilogue = relu ? (residual ? PT2C_GEMM_EPILOGUE_BIAS_ADD_RELU : PT2C_GEMM_EPILOGUE_BIAS_RELU)
                      : (residual ? PT2C_GEMM_EPILOGUE_BIAS_ADD : PT2C_GEMM_EPILOGUE_BIAS);
    if (!isBiasAdd(sum) || b->first.size() != 2 + extraOps)
      return std::nullopt;
    auto [bcast, x] =
        *split(sum.getDefiningOp(), [&](mlir::Value v) { return isBroadcastBias(v); });
    e.input = argumentIndex(func, x);
    e.bias = argumentIndex(func, bcast.getDefiningOp()->getOperand(0));
    if (static_cast<int>(e.input) == e.bias || static_cast<int>(e.input) == e.residual ||
        e.bias == e.residual || func.getNumArguments() != (e.residual < 0 ? 2u : 3u))
      return std::nullopt;
    return e;
  }

private:
  bool isArgument(mlir::Value v) const {
    return argumentIndex(func, v) >= 0 && v.getType() == type;
  }

  // broadcast(bias) over the last dim, bias [N] an argument of x's element type.
  bool isBroadcastBias(mlir::Value v) const {
    mlir::Operation *op = v.getDefiningOp();
    if (!is(op, "prim.broadcast_in_dim") || v.getType() != type ||
        argumentIndex(func, op->getOperand(0)) < 0)
      return false;
    auto bias = gemmShape(op->getOperand(0));
    auto to = mlir::cast<mlir::RankedTensorType>(type);
    auto dims = i64Array(op, "broadcast_dimensions");
    return bias && bias->size() == 1 && (*bias)[0] == to.getShape().back() &&
           mlir::cast<mlir::ShapedType>(op->getOperand(0).getType()).getElementType() ==
               to.getElementType() &&
           dims.size() == 1 && dims[0] == to.getRank() - 1;
  }

  // x + broadcast(bias), x an argument.
  bool isBiasAdd(mlir::Value v) const {
    if (!is(v.getDefiningOp(), "prim.add") || v.getType() != type)
      return false;
    auto parts = split(v.getDefiningOp(), [&](mlir::Value w) { return isBroadcastBias(w); });
    return parts && isArgument(parts->second);
  }

  // (x + broadcast(bias), z) of `v` = (x + broadcast(bias)) + z, z an argument.
  std::optional<std::pair<mlir::Value, mlir::Value>> residualOf(mlir::Value v) const {
    mlir::Operation *add = v.getDefiningOp();
    if (!is(add, "prim.add"))
      return std::nullopt;
    auto residual = split(add, [&](mlir::Value w) { return isBiasAdd(w); });
    if (!residual || !isArgument(residual->second))
      return std::nullopt;
    return residual;
  }

  // x + z of two arguments and nothing else (ADD); which one is the product, the plan
  // decides.
  std::optional<GemmEpilogueKernel> residualOnly(GemmEpilogueKernel e, mlir::Operation *add,
                                                 size_t numOps) {
    e.epilogue = PT2C_GEMM_EPILOGUE_ADD;
    e.input = argumentIndex(func, add->getOperand(0));
    e.residual = argumentIndex(func, add->getOperand(1));
    e.commutes = true;
    if (numOps != 1 || func.getNumArguments() != 2 || static_cast<int>(e.input) == e.residual)
      return std::nullopt;
    return e;
  }

  mlir::func::FuncOp func;
  mlir::Type type;
};

} // namespace

std::optional<GemmEpilogueKernel> matchGemmEpilogue(mlir::func::FuncOp func) {
  return EpilogueReader(func).read();
}

} // namespace pt2c
