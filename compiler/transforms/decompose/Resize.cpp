// Resizing (F.interpolate on NCHW): upsample_nearest2d, upsample_bilinear2d and
// upsample_bicubic2d become prim.gathers along H and W. The source positions and bilinear weights
// depend only on the static sizes and the scale arguments, so they are computed here, at compile
// time, with the same float arithmetic as ATen's CPU kernels (UpSample.h): the results
// then pick exactly the pixels eager picks, which recomputing the index arithmetic in
// the kernel could not promise at rounding boundaries (floor(dst * 1/scale)).
#include <algorithm>
#include <cmath>

#include "compiler/transforms/decompose/DecompositionSet.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// ATen's compute_scales_value: the source step per output pixel, 1 / scale when the
/// caller gave a positive scale (F.interpolate's scale_factor), else in / out.
template <typename T> T sourceStep(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? (T)(1.0 / *scale) : (T)in / (T)out;
}

/// nearest_idx: the source index of each output index along one dim.
SmallVector<int64_t> nearestIndices(int64_t in, int64_t out, std::optional<double> scale) {
  SmallVector<int64_t> indices(out);
  float step = sourceStep<float>(scale, in, out);
  for (int64_t i = 0; i < out; ++i) {
    if (out == in)
      indices[i] = i;
    else if (out == 2 * in)
      indices[i] = i >> 1;
    else
      indices[i] = std::min((int64_t)std::floor((float)i * step), in - 1);
  }
  return indices;
}

/// The two source indices and their weights of each output index along one dim
/// (compute_indices_weights_linear), in ATen's opmath type T.
struct LinearTaps {
  SmallVector<int64_t> index0, index1;
  SmallVector<double> weight0, weight1;
};
template <typename T>
LinearTaps linearTaps(int64_t in, int64_t out, std::optional<double> scale, bool alignCorners) {
  T step =
      alignCorners ? (out > 1 ? (T)(in - 1) / (T)(out - 1) : T(0)) : sourceStep<T>(scale, in, out);
  LinearTaps taps;
  for (int64_t i = 0; i < out; ++i) {
    T source = alignCorners ? step * (T)i : step * ((T)i + T(0.5)) - T(0.5);
    if (source < 0)
      source = 0;
    int64_t i0 = std::min((int64_t)std::floor(source), in - 1);
    T lambda1 = std::min(std::max(source - (T)i0, T(0)), T(1));
    taps.index0.push_back(i0);
    taps.index1.push_back(i0 + (i0 < in - 1 ? 1 : 0));
    taps.weight0.push_back((double)(T(1) - lambda1));
    taps.weight1.push_back((double)lambda1);
  }
  return taps;
}

/// The four source indices (clamped to the border) and weights of each output index
/// along one dim (compute_indices_weights_cubic), in ATen's opmath type T: Keys' cubic
/// convolution with A = -0.75, the source position not clamped at 0 as linear's is.
struct CubicTaps {
  SmallVector<int64_t> index[4];
  SmallVector<double> weight[4];
};
template <typename T>
CubicTaps cubicTaps(int64_t in, int64_t out, std::optional<double> scale, bool alignCorners) {
  const T a = -0.75;
  // cubic_convolution1 for |x| <= 1, cubic_convolution2 for 1 < |x| < 2.
  auto near = [&](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [&](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  T step =
      alignCorners ? (out > 1 ? (T)(in - 1) / (T)(out - 1) : T(0)) : sourceStep<T>(scale, in, out);
  CubicTaps taps;
  for (int64_t i = 0; i < out; ++i) {
    T source = alignCorners ? step * (T)i : step * ((T)i + T(0.5)) - T(0.5);
    int64_t i0 = std::min((int64_t)std::floor(source), in - 1);
    T t = std::min(std::max(source - (T)i0, T(0)), T(1));
    T weights[4] = {far(t + T(1)), near(t), near(T(1) - t), far(T(1) - t + T(1))};
    for (int k = 0; k < 4; ++k) {
      taps.index[k].push_back(std::clamp<int64_t>(i0 - 1 + k, 0, in - 1));
      taps.weight[k].push_back((double)weights[k]);
    }
  }
  return taps;
}

/// Whether `indices` are 0, 1, ..., in - 1: a gather at them is no resize (H or W
/// kept as it is).
bool isIdentity(ArrayRef<int64_t> indices, int64_t in) {
  return (int64_t)indices.size() == in && llvm::all_of(llvm::enumerate(indices), [](auto entry) {
           return entry.value() == (int64_t)entry.index();
         });
}

/// `value` times the constant per-position `weights` along `dim`.
Value weighAlong(PrimBuilder &b, Value value, int64_t dim, ArrayRef<double> weights) {
  RankedTensorType type = tensorType(value);
  auto weightType = RankedTensorType::get({(int64_t)weights.size()}, type.getElementType());
  SmallVector<Attribute> entries;
  for (double w : weights)
    entries.push_back(b.scalarAttr(w, type.getElementType()));
  Value constant = b.create<prim::ConstantOp>(DenseElementsAttr::get(weightType, entries));
  return b.create<prim::MulOp>(value, b.broadcastInDim(constant, type, {dim}));
}

/// The input, its static spatial sizes and the result's, or failure.
bool spatialSizes(PrimBuilder &b, Value input, int64_t (&in)[2], int64_t (&out)[2]) {
  RankedTensorType inputType = tensorType(input), resultType = b.resultType();
  if (inputType.getRank() != 4 || resultType.getRank() != 4) {
    b.fail("2-D resizing of a tensor that is not NCHW");
    return false;
  }
  for (int i = 0; i < 2; ++i) {
    if (inputType.isDynamicDim(2 + i) || resultType.isDynamicDim(2 + i)) {
      b.fail("resizing a dynamic spatial size");
      return false;
    }
    in[i] = inputType.getDimSize(2 + i), out[i] = resultType.getDimSize(2 + i);
  }
  return true;
}

Value nearest2d(PrimBuilder &b, Value input, std::optional<double> scaleH,
                std::optional<double> scaleW) {
  int64_t in[2], out[2];
  if (!spatialSizes(b, input, in, out))
    return {};
  std::optional<double> scales[2] = {scaleH, scaleW};
  Value result = input;
  for (int i = 0; i < 2; ++i) {
    SmallVector<int64_t> indices = nearestIndices(in[i], out[i], scales[i]);
    if (!isIdentity(indices, in[i]))
      result = b.gatherAt(result, 2 + i, indices);
  }
  return result;
}

/// What an interpolating resize (bilinear, bicubic) starts from: the spatial sizes, the
/// float type it accumulates in, and the input converted to that type.
struct InterpolationInput {
  int64_t in[2], out[2];
  Type elementType;
  Value value;
};

/// Null after b.fail where the sizes are not static NCHW or the type is not a float.
std::optional<InterpolationInput> interpolationInput(PrimBuilder &b, Value input, StringRef kind) {
  InterpolationInput r;
  if (!spatialSizes(b, input, r.in, r.out))
    return std::nullopt;
  r.elementType = accumulationType(b.resultElementType());
  if (!isa<FloatType>(r.elementType)) {
    b.fail(kind + " resizing of a non-float tensor");
    return std::nullopt;
  }
  r.value = b.convert(input, r.elementType);
  return r;
}

Value bilinear2d(PrimBuilder &b, Value input, bool alignCorners, std::optional<double> scaleH,
                 std::optional<double> scaleW) {
  std::optional<InterpolationInput> start = interpolationInput(b, input, "bilinear");
  if (!start)
    return {};
  auto &[in, out, elementType, result] = *start;
  std::optional<double> scales[2] = {scaleH, scaleW};
  for (int i = 0; i < 2; ++i) {
    LinearTaps taps = elementType.isF64()
                          ? linearTaps<double>(in[i], out[i], scales[i], alignCorners)
                          : linearTaps<float>(in[i], out[i], scales[i], alignCorners);
    if (isIdentity(taps.index0, in[i]) &&
        llvm::all_of(taps.weight1, [](double w) { return w == 0; }))
      continue;
    int64_t dim = 2 + i;
    Value near = weighAlong(b, b.gatherAt(result, dim, taps.index0), dim, taps.weight0);
    Value far = weighAlong(b, b.gatherAt(result, dim, taps.index1), dim, taps.weight1);
    result = b.create<prim::AddOp>(near, far);
  }
  return b.convert(result, b.resultElementType());
}

/// Bicubic: along W, then along H, as ATen's kernel nests its sums (per output pixel,
/// the H taps' weighted sum of the W taps' weighted sums, each added up in tap order).
Value bicubic2d(PrimBuilder &b, Value input, bool alignCorners, std::optional<double> scaleH,
                std::optional<double> scaleW) {
  std::optional<InterpolationInput> start = interpolationInput(b, input, "bicubic");
  if (!start)
    return {};
  auto &[in, out, elementType, result] = *start;
  std::optional<double> scales[2] = {scaleH, scaleW};
  for (int i = 1; i >= 0; --i) {
    CubicTaps taps = elementType.isF64() ? cubicTaps<double>(in[i], out[i], scales[i], alignCorners)
                                         : cubicTaps<float>(in[i], out[i], scales[i], alignCorners);
    bool identity = isIdentity(taps.index[1], in[i]) &&
                    llvm::all_of(taps.weight[1], [](double w) { return w == 1; });
    for (int k : {0, 2, 3})
      identity &= llvm::all_of(taps.weight[k], [](double w) { return w == 0; });
    if (identity)
      continue;
    int64_t dim = 2 + i;
    Value sum;
    for (int k = 0; k < 4; ++k) {
      Value picked = b.gatherAt(result, dim, taps.index[k]);
      Value weighed = weighAlong(b, picked, dim, taps.weight[k]);
      sum = sum ? b.create<prim::AddOp>(sum, weighed) : weighed;
    }
    result = sum;
  }
  return b.convert(result, b.resultElementType());
}

/// The optional scale of one dim from a .vec form's scale_factors.
std::optional<double> vecScale(std::optional<ArrayRef<double>> factors, int i) {
  if (!factors || factors->size() != 2)
    return std::nullopt;
  return (*factors)[i];
}

std::optional<double> toDouble(std::optional<APFloat> value) {
  if (!value)
    return std::nullopt;
  return value->convertToDouble();
}

Value upsampleNearest2d(aten::UpsampleNearest2dOp op, PrimBuilder &b) {
  return nearest2d(b, op.getSelf(), toDouble(op.getScalesH()), toDouble(op.getScalesW()));
}

Value upsampleNearest2dVec(aten::UpsampleNearest2dVecOp op, PrimBuilder &b) {
  return nearest2d(b, op.getInput(), vecScale(op.getScaleFactors(), 0),
                   vecScale(op.getScaleFactors(), 1));
}

Value upsampleBilinear2d(aten::UpsampleBilinear2dOp op, PrimBuilder &b) {
  return bilinear2d(b, op.getSelf(), op.getAlignCorners(), toDouble(op.getScalesH()),
                    toDouble(op.getScalesW()));
}

Value upsampleBilinear2dVec(aten::UpsampleBilinear2dVecOp op, PrimBuilder &b) {
  return bilinear2d(b, op.getInput(), op.getAlignCorners(), vecScale(op.getScaleFactors(), 0),
                    vecScale(op.getScaleFactors(), 1));
}

Value upsampleBicubic2d(aten::UpsampleBicubic2dOp op, PrimBuilder &b) {
  return bicubic2d(b, op.getSelf(), op.getAlignCorners(), toDouble(op.getScalesH()),
                   toDouble(op.getScalesW()));
}

Value upsampleBicubic2dVec(aten::UpsampleBicubic2dVecOp op, PrimBuilder &b) {
  return bicubic2d(b, op.getInput(), op.getAlignCorners(), vecScale(op.getScaleFactors(), 0),
                   vecScale(op.getScaleFactors(), 1));
}

} // namespace

void populateResizeDecompositions(DecompositionSet &set) {
  set.add<aten::UpsampleNearest2dOp>(upsampleNearest2d)
      .add<aten::UpsampleNearest2dVecOp>(upsampleNearest2dVec)
      .add<aten::UpsampleBilinear2dOp>(upsampleBilinear2d)
      .add<aten::UpsampleBilinear2dVecOp>(upsampleBilinear2dVec)
      .add<aten::UpsampleBicubic2dOp>(upsampleBicubic2d)
      .add<aten::UpsampleBicubic2dVecOp>(upsampleBicubic2dVec);
}

} // namespace pt2c::decompose
