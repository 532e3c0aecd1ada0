// col2im (F.fold): the sliding blocks of an unfolded image summed back into the image.
// Where each block element lands depends only on the sizes, so the whole fold is one
// product with a compile-time 0/1 matrix: [N, C, kh*kw*L] x [kh*kw*L, H*W], where row
// (kernel offset k, block l) has a 1 at the pixel that element covers (none if it
// falls in the padding). Overlapping blocks add up, as in ATen's loop.
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/Scatter.h"
#include "compiler/transforms/decompose/WindowArgs.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

Value col2im(aten::Col2imOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType(), in = tensorType(op.getSelf());
  auto et = dyn_cast<FloatType>(type.getElementType());
  if (!et || !type.hasStaticShape() || !in.hasStaticShape())
    return b.fail("col2im of non-float or dynamically sized tensors");
  SmallVector<int64_t> kernel = windowArg(op.getKernelSize(), 2, {});
  SmallVector<int64_t> dilation = windowArg(op.getDilation(), 2, {});
  SmallVector<int64_t> padding = windowArg(op.getPadding(), 2, {});
  SmallVector<int64_t> stride = windowArg(op.getStride(), 2, {});
  ArrayRef<int64_t> size = op.getOutputSize();
  if (kernel.empty() || dilation.empty() || padding.empty() || stride.empty() || size.size() != 2)
    return b.fail("col2im arguments need one or two entries each");
  bool batched = in.getRank() == 3;
  int64_t n = batched ? in.getDimSize(0) : 1, rows = in.getDimSize(batched ? 1 : 0),
          blocks = in.getDimSize(batched ? 2 : 1);
  int64_t taps = kernel[0] * kernel[1], channels = rows / taps, h = size[0], w = size[1];
  int64_t across[2];
  for (int i = 0; i < 2; ++i)
    across[i] = (size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) / stride[i] + 1;
  if (rows % taps != 0 || across[0] * across[1] != blocks)
    return b.fail("col2im input sizes do not match its kernel and output size");
  int64_t k = taps * blocks;
  if (k * h * w > kMaxScatterTable)
    return b.fail("col2im larger than pt2c's fold table (" + Twine(k) + " x " + Twine(h * w) + ")");
  SmallVector<APFloat> matrix(k * h * w, APFloat::getZero(et.getFloatSemantics()));
  APFloat one(et.getFloatSemantics(), 1);
  for (int64_t i = 0; i < kernel[0]; ++i)
    for (int64_t j = 0; j < kernel[1]; ++j)
      for (int64_t by = 0; by < across[0]; ++by)
        for (int64_t bx = 0; bx < across[1]; ++bx) {
          int64_t y = by * stride[0] - padding[0] + i * dilation[0];
          int64_t x = bx * stride[1] - padding[1] + j * dilation[1];
          if (y < 0 || y >= h || x < 0 || x >= w)
            continue;
          int64_t row = (i * kernel[1] + j) * blocks + by * across[1] + bx;
          matrix[row * h * w + y * w + x] = one;
        }
  Value table = b.create<prim::ConstantOp>(
      DenseElementsAttr::get(RankedTensorType::get({k, h * w}, et), matrix));
  // [N, C * taps, L] -> [N, C, taps * L]: each channel's rows are its kernel offsets.
  Value flat = b.reshape(op.getSelf(), RankedTensorType::get({n, channels, k}, et));
  Value image = b.dotGeneral(flat, table, {}, {}, {2}, {0}); // [N, C, H * W]
  return b.reshape(image, type);
}

} // namespace

void populateCol2ImDecompositions(DecompositionSet &set) { set.add<aten::Col2imOp>(col2im); }

} // namespace pt2c::decompose
