// aten.convolution -> prim.convolution (symmetric padding) plus the bias as a
// broadcast add; a patch embedding (windows that tile the input) -> a matrix product;
// transposed convolutions in TransposedConvolution.cpp.
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/TransposedConvolution.h"
#include "compiler/transforms/decompose/WindowArgs.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// A convolution whose windows tile the input exactly (stride = kernel size > 1, no
/// padding or dilation, one group, static sizes that the kernel divides): the patch
/// embedding of ViT-style models. Each output position reads its own patch, so the
/// convolution is one matrix product of the patches [N * out, C * kernel] (the input
/// reshaped and transposed once) with the weight [O, C * kernel], the bias added to the
/// product's rows (a GEMM epilogue), then back to [N, O, out...]. Convolution libraries
/// run a 16 x 16 / 16 patch embedding as a general convolution, several times slower
/// than the product. Null where that does not apply.
Value patchConvolution(aten::ConvolutionOp op, Value input, Value weight, ArrayRef<int64_t> stride,
                       ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation, PrimBuilder &b) {
  auto x = cast<RankedTensorType>(input.getType());
  auto w = cast<RankedTensorType>(weight.getType());
  RankedTensorType type = b.resultType();
  size_t spatial = stride.size();
  if (op.getGroupsAttr().getInt() != 1 || !x.hasStaticShape() || !w.hasStaticShape() ||
      !type.hasStaticShape())
    return {};
  int64_t n = x.getDimSize(0), c = x.getDimSize(1), o = w.getDimSize(0), window = 1, out = 1;
  SmallVector<int64_t> split = {n, c}, outShape = {n};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t k = w.getDimSize(2 + i), size = x.getDimSize(2 + i);
    if (stride[i] != k || padding[i] != 0 || dilation[i] != 1 || size % k != 0)
      return {};
    split.append({size / k, k});
    outShape.push_back(size / k);
    window *= k;
    out *= size / k;
  }
  if (window == 1)
    return {};
  // [N, C, O1, k1, ..., Od, kd] -> [N, O1, ..., Od, C, k1, ..., kd] -> [N * out, C * window]
  SmallVector<int64_t> perm = {0};
  for (size_t i = 0; i < spatial; ++i)
    perm.push_back(2 + 2 * i);
  perm.push_back(1);
  for (size_t i = 0; i < spatial; ++i)
    perm.push_back(3 + 2 * i);
  Type element = type.getElementType();
  Value patches = b.reshape(input, RankedTensorType::get(split, element));
  patches = b.transpose(patches, perm);
  patches = b.reshape(patches, RankedTensorType::get({n * out, c * window}, element));
  Value filters = b.reshape(weight, RankedTensorType::get({o, c * window}, element));
  Value product = b.dotGeneral(patches, filters, {}, {}, {1}, {1});
  if (op.getBias()) {
    Value bias = b.convert(op.getBias(), element);
    auto rows = cast<RankedTensorType>(product.getType());
    product = b.create<prim::AddOp>(product, b.broadcastInDim(bias, rows, {1}));
  }
  outShape.push_back(o);
  product = b.reshape(product, RankedTensorType::get(outShape, element));
  SmallVector<int64_t> back = {0, static_cast<int64_t>(spatial) + 1};
  for (size_t i = 0; i < spatial; ++i)
    back.push_back(1 + i);
  return b.transpose(product, back);
}

Value convolution(aten::ConvolutionOp op, PrimBuilder &b) {
  if (op.getTransposed())
    return transposedConvolution(op, b);
  RankedTensorType type = b.resultType();
  size_t spatial = type.getRank() - 2;
  SmallVector<int64_t> stride = windowArg(op.getStride(), spatial, {1});
  SmallVector<int64_t> padding = windowArg(op.getPadding(), spatial, {0});
  SmallVector<int64_t> dilation = windowArg(op.getDilation(), spatial, {1});
  if (stride.empty() || padding.empty() || dilation.empty())
    return b.fail("stride, padding and dilation need one entry per spatial dim");
  Value input = b.convert(op.getInput(), type.getElementType());
  Value weight = b.convert(op.getWeight(), type.getElementType());
  if (Value product = patchConvolution(op, input, weight, stride, padding, dilation, b))
    return product;
  Value result = b.create<prim::ConvolutionOp>(input, weight, stride, padding, padding, dilation,
                                               op.getGroupsAttr().getInt());
  if (!op.getBias())
    return result;
  Value bias = b.convert(op.getBias(), type.getElementType());
  return b.create<prim::AddOp>(result, b.broadcastInDim(bias, type, {1}, result));
}

} // namespace

void populateConvolutionDecompositions(DecompositionSet &set) {
  set.add<aten::ConvolutionOp>(convolution);
}

} // namespace pt2c::decompose
