// im2col (F.unfold; ConvBERT's span-based dynamic convolution): the sliding blocks of
// an image as columns, [N, C, H, W] -> [N, C * kh * kw, L] with L = oh * ow blocks,
// row c * kh * kw + i * kw + j holding kernel tap (i, j) of channel c. Each tap is one
// strided slice of the zero-padded image (the pixels it meets in every block, in block
// order); the taps are joined after the channel dim, so rows come in ATen's order.
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/WindowArgs.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

Value im2col(aten::Im2colOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType(), in = tensorType(op.getSelf());
  Type et = type.getElementType();
  if (!type.hasStaticShape() || !in.hasStaticShape())
    return b.fail("im2col of dynamically sized tensors");
  SmallVector<int64_t> kernel = windowArg(op.getKernelSize(), 2, {});
  SmallVector<int64_t> dilation = windowArg(op.getDilation(), 2, {});
  SmallVector<int64_t> padding = windowArg(op.getPadding(), 2, {});
  SmallVector<int64_t> stride = windowArg(op.getStride(), 2, {});
  if (kernel.empty() || dilation.empty() || padding.empty() || stride.empty())
    return b.fail("im2col arguments need one or two entries each");
  bool batched = in.getRank() == 4;
  if (!batched && in.getRank() != 3)
    return b.fail("im2col of a 3-D or 4-D input");
  int64_t n = batched ? in.getDimSize(0) : 1, c = in.getDimSize(batched ? 1 : 0);
  int64_t h = in.getDimSize(batched ? 2 : 1), w = in.getDimSize(batched ? 3 : 2);
  int64_t across[2];
  int64_t size[2] = {h, w};
  for (int i = 0; i < 2; ++i) {
    across[i] = (size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) / stride[i] + 1;
    if (across[i] < 1)
      return b.fail("im2col kernel larger than the padded input");
  }
  Value image = b.reshape(op.getSelf(), RankedTensorType::get({n, c, h, w}, et));
  RankedTensorType scalar = RankedTensorType::get({}, et);
  Value zero = b.splat(0.0, scalar);
  Value padded = b.create<prim::PadOp>(image, zero, ArrayRef<int64_t>{0, 0, padding[0], padding[1]},
                                       ArrayRef<int64_t>{0, 0, padding[0], padding[1]});
  int64_t blocks = across[0] * across[1];
  auto tapType = RankedTensorType::get({n, c, 1, blocks}, et);
  SmallVector<Value> taps;
  for (int64_t i = 0; i < kernel[0]; ++i)
    for (int64_t j = 0; j < kernel[1]; ++j) {
      int64_t y = i * dilation[0], x = j * dilation[1];
      SmallVector<int64_t> start = {0, 0, y, x};
      SmallVector<int64_t> limit = {n, c, y + (across[0] - 1) * stride[0] + 1,
                                    x + (across[1] - 1) * stride[1] + 1};
      SmallVector<int64_t> steps = {1, 1, stride[0], stride[1]};
      Value tap = b.create<prim::SliceOp>(padded, start, limit, steps); // [N, C, oh, ow]
      taps.push_back(b.reshape(tap, tapType));
    }
  if (b.failed())
    return {};
  Value joined = taps.size() == 1 ? taps.front() : b.create<prim::ConcatenateOp>(taps, 2);
  return b.reshape(joined, type);
}

} // namespace

void populateIm2ColDecompositions(DecompositionSet &set) { set.add<aten::Im2colOp>(im2col); }

} // namespace pt2c::decompose
