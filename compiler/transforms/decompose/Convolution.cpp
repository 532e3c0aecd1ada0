// aten.convolution -> prim.convolution (symmetric padding) plus the bias as a
// broadcast add. Transposed convolution is not supported yet.
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/WindowArgs.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

Value convolution(aten::ConvolutionOp op, PrimBuilder &b) {
  if (op.getTransposed())
    return b.fail("transposed convolution is not supported yet");
  RankedTensorType type = b.resultType();
  size_t spatial = type.getRank() - 2;
  SmallVector<int64_t> stride = windowArg(op.getStride(), spatial, {1});
  SmallVector<int64_t> padding = windowArg(op.getPadding(), spatial, {0});
  SmallVector<int64_t> dilation = windowArg(op.getDilation(), spatial, {1});
  if (stride.empty() || padding.empty() || dilation.empty())
    return b.fail("stride, padding and dilation need one entry per spatial dim");
  Value input = b.convert(op.getInput(), type.getElementType());
  Value weight = b.convert(op.getWeight(), type.getElementType());
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
