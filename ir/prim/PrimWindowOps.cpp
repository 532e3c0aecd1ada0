// Type inference and folders of prim's windowed ops (reduce_window, convolution) and
// pad: result sizes computed from window, stride, dilation and padding attributes.
// Dynamic sizes stay dynamic (the lowering computes them at run time).
#include "ir/contract/ModelContract.h"
#include "ir/prim/PrimDialect.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace pt2c::prim;

namespace {

constexpr int64_t kDyn = ShapedType::kDynamic;

/// `init` (a rank-0 tensor) holds elements of the operand's type.
LogicalResult checkInitType(std::optional<Location> loc, StringRef what, Value init,
                            Type elementType) {
  Type type = cast<RankedTensorType>(init.getType()).getElementType();
  if (type != elementType)
    return emitOptionalError(loc, what, " has element type ", type, ", expected the operand's ",
                             elementType);
  return success();
}

LogicalResult checkLength(std::optional<Location> loc, StringRef what, ArrayRef<int64_t> values,
                          int64_t expected) {
  if ((int64_t)values.size() != expected)
    return emitOptionalError(loc, "expects ", expected, " entries in ", what, ", got ",
                             values.size());
  return success();
}

LogicalResult checkAtLeast(std::optional<Location> loc, StringRef what, ArrayRef<int64_t> values,
                           int64_t minimum) {
  for (int64_t v : values)
    if (v < minimum)
      return emitOptionalError(loc, what, " must be >= ", minimum, ", got ", v);
  return success();
}

/// The number of positions of a `window`-tap window with taps `dilation` apart that
/// slides by `stride` over `size` elements padded by `low` and `high`.
FailureOr<int64_t> windowCount(std::optional<Location> loc, int64_t size, int64_t low, int64_t high,
                               int64_t window, int64_t stride, int64_t dilation) {
  if (ShapedType::isDynamic(size) || ShapedType::isDynamic(window))
    return kDyn;
  int64_t span = size + low + high - dilation * (window - 1);
  if (span < 1)
    return emitOptionalError(loc, "window of ", window, " taps (dilation ", dilation,
                             ") does not fit in ", size + low + high, " padded elements");
  return (span - 1) / stride + 1;
}

} // namespace

LogicalResult ReduceWindowOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                               Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getOperand().getType());
  int64_t rank = in.getRank();
  ArrayRef<int64_t> window = adaptor.getWindowDimensions(), strides = adaptor.getWindowStrides(),
                    dilations = adaptor.getWindowDilations(), low = adaptor.getPaddingLow(),
                    high = adaptor.getPaddingHigh();
  if (failed(checkInitType(loc, "init", adaptor.getInit(), in.getElementType())) ||
      failed(checkLength(loc, "window_dimensions", window, rank)) ||
      failed(checkLength(loc, "window_strides", strides, rank)) ||
      failed(checkLength(loc, "window_dilations", dilations, rank)) ||
      failed(checkLength(loc, "padding_low", low, rank)) ||
      failed(checkLength(loc, "padding_high", high, rank)) ||
      failed(checkAtLeast(loc, "window size", window, 1)) ||
      failed(checkAtLeast(loc, "stride", strides, 1)) ||
      failed(checkAtLeast(loc, "dilation", dilations, 1)) ||
      failed(checkAtLeast(loc, "padding", low, 0)) || failed(checkAtLeast(loc, "padding", high, 0)))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    FailureOr<int64_t> n =
        windowCount(loc, in.getDimSize(d), low[d], high[d], window[d], strides[d], dilations[d]);
    if (failed(n))
      return failure();
    shape.push_back(*n);
  }
  types.push_back(in.clone(shape));
  return success();
}

bool ConvolutionOp::isDirectDepthwise() {
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType();
  if (!(getChannelsLast() || pt2c::inFusedOpsModule(*this)) || !lhs.hasStaticShape() ||
      !rhs.hasStaticShape() || !getType().hasStaticShape() ||
      !isa<FloatType>(getType().getElementType()))
    return false;
  int64_t groups = getFeatureGroupCount(), taps = 1;
  for (int64_t k : rhs.getShape().drop_front(2))
    taps *= k;
  int64_t channels = lhs.getDimSize(getChannelsLast() ? lhs.getRank() - 1 : 1);
  return groups > 1 && channels == groups && rhs.getDimSize(0) == groups && taps <= kMaxDirectTaps;
}

bool ConvolutionOp::isPointwise() {
  auto isOne = [](int64_t v) { return v == 1; };
  auto isZero = [](int64_t v) { return v == 0; };
  return llvm::all_of(getRhs().getType().getShape().drop_front(2), isOne) &&
         llvm::all_of(getWindowStrides(), isOne) && llvm::all_of(getPaddingLow(), isZero) &&
         llvm::all_of(getPaddingHigh(), isZero);
}

SmallVector<int64_t> ConvolutionOp::toChannelsLast(int64_t rank) {
  SmallVector<int64_t> perm = {0};
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  perm.push_back(1);
  return perm;
}

SmallVector<int64_t> ConvolutionOp::fromChannelsLast(int64_t rank) {
  SmallVector<int64_t> perm = {0, rank - 1};
  for (int64_t d = 1; d < rank - 1; ++d)
    perm.push_back(d);
  return perm;
}

LogicalResult ConvolutionOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getRhs().getType());
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "lhs and rhs element types differ");
  if (lhs.getRank() < 3 || lhs.getRank() != rhs.getRank())
    return emitOptionalError(loc, "expects lhs [N, C, spatial...] and rhs [O, C/G, "
                                  "kernel...] of the same rank >= 3");
  int64_t spatial = lhs.getRank() - 2;
  ArrayRef<int64_t> strides = adaptor.getWindowStrides(), low = adaptor.getPaddingLow(),
                    high = adaptor.getPaddingHigh(), dilations = adaptor.getRhsDilation();
  if (failed(checkLength(loc, "window_strides", strides, spatial)) ||
      failed(checkLength(loc, "padding_low", low, spatial)) ||
      failed(checkLength(loc, "padding_high", high, spatial)) ||
      failed(checkLength(loc, "rhs_dilation", dilations, spatial)) ||
      failed(checkAtLeast(loc, "stride", strides, 1)) ||
      failed(checkAtLeast(loc, "dilation", dilations, 1)) ||
      failed(checkAtLeast(loc, "padding", low, 0)) || failed(checkAtLeast(loc, "padding", high, 0)))
    return failure();
  // [N, C, spatial...], or channels-last [N, spatial..., C].
  bool channelsLast = adaptor.getChannelsLast();
  int64_t firstSpatial = channelsLast ? 1 : 2;
  int64_t groups = adaptor.getFeatureGroupCount();
  int64_t channels = lhs.getDimSize(channelsLast ? lhs.getRank() - 1 : 1),
          perGroup = rhs.getDimSize(1), outChannels = rhs.getDimSize(0);
  if (groups < 1)
    return emitOptionalError(loc, "feature_group_count must be >= 1, got ", groups);
  if (!ShapedType::isDynamic(outChannels) && outChannels % groups != 0)
    return emitOptionalError(loc, outChannels, " output channels do not split into ", groups,
                             " groups");
  if (!ShapedType::isDynamic(channels) && !ShapedType::isDynamic(perGroup) &&
      channels != perGroup * groups)
    return emitOptionalError(loc, "lhs has ", channels, " channels, but rhs expects ", groups,
                             " groups of ", perGroup);
  SmallVector<int64_t> shape = {lhs.getDimSize(0)};
  if (!channelsLast)
    shape.push_back(outChannels);
  for (int64_t d = 0; d < spatial; ++d) {
    FailureOr<int64_t> n = windowCount(loc, lhs.getDimSize(d + firstSpatial), low[d], high[d],
                                       rhs.getDimSize(d + 2), strides[d], dilations[d]);
    if (failed(n))
      return failure();
    shape.push_back(*n);
  }
  if (channelsLast)
    shape.push_back(outChannels);
  types.push_back(lhs.clone(shape));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getOperand().getType());
  ArrayRef<int64_t> low = adaptor.getEdgePaddingLow(), high = adaptor.getEdgePaddingHigh();
  if (failed(checkInitType(loc, "padding_value", adaptor.getPaddingValue(), in.getElementType())) ||
      failed(checkLength(loc, "edge_padding_low", low, in.getRank())) ||
      failed(checkLength(loc, "edge_padding_high", high, in.getRank())) ||
      failed(checkAtLeast(loc, "padding", low, 0)) || failed(checkAtLeast(loc, "padding", high, 0)))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < in.getRank(); ++d)
    shape.push_back(in.isDynamicDim(d) ? kDyn : in.getDimSize(d) + low[d] + high[d]);
  types.push_back(in.clone(shape));
  return success();
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (llvm::all_of(getEdgePaddingLow(), [](int64_t p) { return p == 0; }) &&
      llvm::all_of(getEdgePaddingHigh(), [](int64_t p) { return p == 0; }))
    return getOperand();
  return {};
}
