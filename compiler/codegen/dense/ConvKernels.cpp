#include "compiler/codegen/dense/ConvKernels.h"

#include <algorithm>

#include "compiler/codegen/dense/KernelBody.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace pt2c {
namespace {

using dense::argumentIndex;
using dense::body;
using dense::i64Array;
using dense::is;
using dense::isPositiveZeroFloatSplat;
using dense::split;

// The pt2c_dtype of a statically shaped f32/f16/bf16 tensor, or 0.
uint32_t floatDtype(mlir::Value value) {
  auto type = mlir::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  mlir::Type element = type.getElementType();
  return element.isF32() ? PT2C_F32 : element.isF16() ? PT2C_F16 : element.isBF16() ? PT2C_BF16 : 0;
}

llvm::ArrayRef<int64_t> shapeOf(mlir::Value value) {
  return mlir::cast<mlir::RankedTensorType>(value.getType()).getShape();
}

// A kernel that is one convolution of two arguments, with the layout cuDNN takes.
std::optional<ConvKernel> matchConv(mlir::func::FuncOp func, const ConvMatchOptions &options) {
  auto b = body(func);
  if (!b || b->first.size() != 1)
    return std::nullopt;
  mlir::Operation *conv = b->first.front();
  if (!is(conv, "prim.convolution") || conv->getResult(0) != b->second)
    return std::nullopt;
  // Our own kernel computes it better than any algorithm cuDNN's API offers.
  if (auto typed = mlir::dyn_cast<prim::ConvolutionOp>(conv); typed && typed.isDirectDepthwise())
    return std::nullopt;
  int x = argumentIndex(func, conv->getOperand(0)), w = argumentIndex(func, conv->getOperand(1));
  uint32_t dtype = floatDtype(conv->getResult(0));
  if (x < 0 || w < 0 || x == w || dtype == 0 || floatDtype(conv->getOperand(0)) != dtype ||
      floatDtype(conv->getOperand(1)) != dtype)
    return std::nullopt;
  auto in = shapeOf(conv->getOperand(0)), filter = shapeOf(conv->getOperand(1));
  auto out = shapeOf(conv->getResult(0));
  size_t spatial = in.size() - 2;
  auto strides = i64Array(conv, "window_strides"), low = i64Array(conv, "padding_low");
  auto high = i64Array(conv, "padding_high"), dilations = i64Array(conv, "rhs_dilation");
  auto groupsAttr = conv->getAttrOfType<mlir::IntegerAttr>("feature_group_count");
  bool channelsLast = conv->hasAttr("channels_last");
  if (channelsLast && !options.channelsLast)
    return std::nullopt;
  // Channels and spatial sizes of x and y in [N, C, spatial...] order.
  std::vector<int64_t> inDims(in.begin(), in.end()), outDims(out.begin(), out.end());
  if (channelsLast && in.size() >= 3 && out.size() == in.size()) {
    std::rotate(inDims.begin() + 1, inDims.end() - 1, inDims.end());
    std::rotate(outDims.begin() + 1, outDims.end() - 1, outDims.end());
  }
  if (in.size() < 3 || in.size() > 2 + PT2C_CONV_MAX_SPATIAL || filter.size() != in.size() ||
      out.size() != in.size() || strides.size() != spatial || low != high ||
      low.size() != spatial || dilations.size() != spatial || !groupsAttr)
    return std::nullopt;
  pt2c_plan_conv c{};
  c.dtype = dtype;
  c.epilogue = PT2C_CONV_EPILOGUE_NONE;
  c.spatial_rank = spatial;
  c.layout = channelsLast ? PT2C_CONV_LAYOUT_CHANNELS_LAST : PT2C_CONV_LAYOUT_NCHW;
  int64_t groups = groupsAttr.getInt();
  c.batch = in[0];
  c.in_channels = inDims[1];
  c.out_channels = filter[0];
  if (groups < 1 || inDims[1] % groups != 0 || filter[0] % groups != 0 ||
      filter[1] * groups != inDims[1] || out[0] != in[0] || outDims[1] != filter[0])
    return std::nullopt;
  c.groups = groups;
  for (size_t d = 0; d < PT2C_CONV_MAX_SPATIAL; ++d) {
    bool used = d < spatial;
    c.input[d] = used ? inDims[2 + d] : 1;
    c.kernel[d] = used ? filter[2 + d] : 1;
    c.output[d] = used ? outDims[2 + d] : 1;
    c.stride[d] = used ? strides[d] : 1;
    c.padding[d] = used ? low[d] : 0;
    c.dilation[d] = used ? dilations[d] : 1;
    if (used && (inDims[2 + d] < 1 || filter[2 + d] < 1 || outDims[2 + d] < 1 || strides[d] < 1 ||
                 low[d] < 0 || dilations[d] < 1))
      return std::nullopt;
  }
  // cuDNN takes sizes and strides as int: every tensor's element count must fit.
  for (mlir::Value v : {conv->getOperand(0), conv->getOperand(1), mlir::Value(conv->getResult(0))})
    if (mlir::cast<mlir::RankedTensorType>(v.getType()).getNumElements() > INT32_MAX)
      return std::nullopt;
  ConvKernel kernel;
  kernel.conv = c;
  kernel.input = x;
  kernel.weight = w;
  return kernel;
}

// s * sigmoid(s) (prim's SiLU): s, else null.
mlir::Value siluOperand(mlir::Value v) {
  mlir::Operation *mul = v.getDefiningOp();
  if (!is(mul, "prim.mul"))
    return {};
  for (int i = 0; i < 2; ++i) {
    mlir::Value s = mul->getOperand(i);
    mlir::Operation *sigmoid = mul->getOperand(1 - i).getDefiningOp();
    if (is(sigmoid, "prim.sigmoid") && sigmoid->getOperand(0) == s)
      return s;
  }
  return {};
}

// max(x + broadcast(bias) [+ z], 0), x + broadcast(bias), or (with options.siluEpilogue)
// silu(x + broadcast(bias)), every operand an argument.
std::optional<ConvEpilogueKernel> matchEpilogue(mlir::func::FuncOp func,
                                                const ConvMatchOptions &options) {
  auto b = body(func);
  if (!b)
    return std::nullopt;
  ConvEpilogueKernel e;
  e.dtype = floatDtype(b->second);
  if (e.dtype == 0)
    return std::nullopt;
  mlir::Type type = b->second.getType();
  auto shape = shapeOf(b->second);
  if (shape.size() < 3 || shape.size() > 2 + PT2C_CONV_MAX_SPATIAL)
    return std::nullopt;
  auto isArgument = [&](mlir::Value v) {
    return argumentIndex(func, v) >= 0 && v.getType() == type;
  };
  auto isBroadcastBias = [&](mlir::Value v) {
    mlir::Operation *op = v.getDefiningOp();
    if (!is(op, "prim.broadcast_in_dim") || argumentIndex(func, op->getOperand(0)) < 0)
      return false;
    auto bias = mlir::dyn_cast<mlir::RankedTensorType>(op->getOperand(0).getType());
    auto dims = i64Array(op, "broadcast_dimensions");
    // Channels at dim 1, or last (a channels-last product, where the target takes one).
    int64_t channelDim = dims.size() == 1 ? dims[0] : -1;
    bool last = channelDim == static_cast<int64_t>(shape.size()) - 1;
    if (channelDim != 1 && !(last && options.channelsLast))
      return false;
    e.channelsLast = last;
    return bias && bias.getRank() == 1 && bias.getDimSize(0) == shape[channelDim] &&
           bias.getElementType() == mlir::cast<mlir::RankedTensorType>(type).getElementType();
  };
  auto isBiasAdd = [&](mlir::Value v) {
    return is(v.getDefiningOp(), "prim.add") && v.getType() == type &&
           split(v.getDefiningOp(), isBroadcastBias) && split(v.getDefiningOp(), isArgument);
  };
  mlir::Value sum = b->second;
  size_t expectedOps = 2; // the broadcast and the add
  if (mlir::Value s = options.siluEpilogue ? siluOperand(sum) : mlir::Value()) {
    sum = s;
    e.epilogue = PT2C_CONV_EPILOGUE_BIAS_SILU;
    expectedOps += 2; // the sigmoid and the product
  } else if (is(sum.getDefiningOp(), "prim.max")) {
    auto relu = split(sum.getDefiningOp(), isPositiveZeroFloatSplat);
    if (!relu)
      return std::nullopt;
    sum = relu->second;
    e.epilogue = PT2C_CONV_EPILOGUE_BIAS_RELU;
    expectedOps += 2;      // the zero constant and the max
    if (!isBiasAdd(sum)) { // (x + bias) + z
      auto residual = is(sum.getDefiningOp(), "prim.add") ? split(sum.getDefiningOp(), isBiasAdd)
                                                          : std::nullopt;
      if (!residual || !isArgument(residual->second))
        return std::nullopt;
      e.epilogue = PT2C_CONV_EPILOGUE_BIAS_ADD_RELU;
      e.residual = argumentIndex(func, residual->second);
      sum = residual->first;
      expectedOps += 1;
    }
  }
  if (!isBiasAdd(sum) || b->first.size() != expectedOps)
    return std::nullopt;
  mlir::Operation *add = sum.getDefiningOp();
  auto [bcast, x] = *split(add, isBroadcastBias);
  if (!isArgument(x))
    return std::nullopt;
  e.input = argumentIndex(func, x);
  e.bias = argumentIndex(func, bcast.getDefiningOp()->getOperand(0));
  if (e.input == e.bias || static_cast<int>(e.input) == e.residual ||
      static_cast<int>(e.bias) == e.residual ||
      func.getNumArguments() != (e.residual < 0 ? 2u : 3u))
    return std::nullopt;
  e.shape.assign(shape.begin(), shape.end());
  return e;
}

} // namespace

ConvKernelTable findConvKernels(mlir::ModuleOp kernels, const ConvMatchOptions &options) {
  return findLibraryKernels<ConvKernel, ConvEpilogueKernel>(
      kernels, [&](mlir::func::FuncOp func) { return matchConv(func, options); },
      [&](mlir::func::FuncOp func) { return matchEpilogue(func, options); });
}

} // namespace pt2c
