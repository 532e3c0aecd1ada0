// grid_sampler_2d (F.grid_sample on 4-D input) with bilinear or nearest interpolation
// and zeros, border or reflection padding, following ATen's CPU kernel: grid
// coordinates in [-1, 1] are unnormalized to pixel positions (align_corners: -1 and 1
// are the corner pixels' centres; else their outer edges), moved inside by the padding
// mode, then each output pixel reads its 4 neighbours (bilinear; nearest: the one at
// the rounded position, halves to even) through a prim.gather of the input's flattened
// planes at run-time positions; a neighbour outside the input adds nothing.
#include <tuple>

#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

using Direction = prim::CompareDirection;

enum Interpolation { kBilinear = 0, kNearest = 1 };
enum Padding { kZeros = 0, kBorder = 1, kReflection = 2 };

/// Elementwise helpers over one tensor type (the coordinates' [N, Ho, Wo]). Each op is
/// built in its own statement: argument evaluation order is unspecified in C++, and
/// pt2c's output must be deterministic.
struct Coordinates {
  PrimBuilder &b;
  RankedTensorType type;

  Value c(double v) { return b.splat(v, type); }
  Value add(Value x, Value y) { return b.create<prim::AddOp>(x, y); }
  Value sub(Value x, Value y) { return b.create<prim::SubOp>(x, y); }
  Value mul(Value x, Value y) { return b.create<prim::MulOp>(x, y); }
  Value clamp(Value x, double hi) {
    Value low = b.create<prim::MaxOp>(x, c(0.0));
    return b.create<prim::MinOp>(low, c(hi));
  }
  Value cmp(Direction d, Value x, Value y) { return b.create<prim::CompareOp>(d, x, y); }
  Value both(Value p, Value q) {
    return b.create<prim::SelectOp>(p, q, b.splat(0.0, tensorType(p)));
  }

  /// ATen's reflect_coordinates: x mirrored into [low, high] (given doubled).
  Value reflect(Value x, int64_t twiceLow, int64_t twiceHigh) {
    if (twiceLow == twiceHigh)
      return c(0.0);
    double low = twiceLow / 2.0, span = (twiceHigh - twiceLow) / 2.0;
    Value in = b.create<prim::AbsOp>(sub(x, c(low)));
    Value extra = b.create<prim::RemOp>(in, c(span));
    Value flips = b.create<prim::FloorOp>(b.create<prim::DivOp>(in, c(span)));
    Value parity = b.create<prim::RemOp>(flips, c(2.0));
    Value even = cmp(Direction::EQ, parity, c(0.0));
    Value forward = add(extra, c(low));
    Value mirrored = sub(c(span), extra);
    Value backward = add(mirrored, c(low));
    return b.create<prim::SelectOp>(even, forward, backward);
  }

  /// A normalized coordinate as a pixel position along a dim of `size` pixels.
  Value pixel(Value g, int64_t size, bool alignCorners, int64_t padding) {
    Value one = c(1.0);
    Value shifted = add(g, one); // in [0, 2]
    Value x;
    if (alignCorners) {
      x = mul(shifted, c((size - 1) / 2.0));
    } else {
      Value scaled = mul(shifted, c((double)size));
      Value edge = sub(scaled, one);
      x = mul(edge, c(0.5));
    }
    if (padding == kReflection)
      x = alignCorners ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1);
    if (padding != kZeros)
      x = clamp(x, (double)(size - 1));
    return x;
  }
};

Value gridSampler2d(aten::GridSampler2dOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType(), in = tensorType(op.getInput());
  RankedTensorType gridType = tensorType(op.getGrid());
  int64_t mode = op.getInterpolationModeAttr().getInt();
  int64_t padding = op.getPaddingModeAttr().getInt();
  bool alignCorners = op.getAlignCorners();
  auto et = dyn_cast<FloatType>(type.getElementType());
  if (!et || !type.hasStaticShape() || !in.hasStaticShape() || gridType.getElementType() != et)
    return b.fail("grid_sampler_2d of non-float or dynamically sized tensors");
  if (mode != kBilinear && mode != kNearest)
    return b.fail("grid_sampler_2d: bicubic interpolation is not supported");
  if (padding < kZeros || padding > kReflection)
    return b.fail("grid_sampler_2d: unknown padding mode");
  int64_t n = in.getDimSize(0), channels = in.getDimSize(1), h = in.getDimSize(2),
          w = in.getDimSize(3), oh = type.getDimSize(2), ow = type.getDimSize(3);
  auto coordType = RankedTensorType::get({n, oh, ow}, et);
  Coordinates c{b, coordType};
  // The grid's x (width) and y (height) planes.
  auto component = [&](int64_t i) {
    Value slice =
        b.create<prim::SliceOp>(op.getGrid(), ArrayRef<int64_t>{0, 0, 0, i},
                                ArrayRef<int64_t>{n, oh, ow, i + 1}, ArrayRef<int64_t>{1, 1, 1, 1});
    return b.reshape(slice, coordType);
  };
  Value ix = c.pixel(component(0), w, alignCorners, padding);
  Value iy = c.pixel(component(1), h, alignCorners, padding);

  // [N, C, H * W] read at flat positions [N, Ho * Wo] per batch element.
  Value planes = b.reshape(op.getInput(), RankedTensorType::get({n, channels, h * w}, et));
  auto i64 = IntegerType::get(op.getContext(), 64), i1 = IntegerType::get(op.getContext(), 1);
  // The input at pixel (x, y) (whole numbers) times `weight` (none: 1), or 0 outside it.
  auto tap = [&](Value x, Value y, Value weight) -> Value {
    auto within = [&](Value v, int64_t size) {
      Value atLeast0 = c.cmp(Direction::GE, v, c.c(0.0));
      Value atMostLast = c.cmp(Direction::LE, v, c.c((double)(size - 1)));
      return c.both(atLeast0, atMostLast);
    };
    Value insideX = within(x, w);
    Value insideY = within(y, h);
    Value inside = c.both(insideX, insideY);
    Value clampedY = c.clamp(y, (double)(h - 1));
    Value row = c.mul(clampedY, c.c((double)w));
    Value clampedX = c.clamp(x, (double)(w - 1));
    Value flat = c.add(row, clampedX);
    Value positions = b.reshape(b.convert(flat, i64), RankedTensorType::get({n, oh * ow}, i64));
    Value sampled = b.create<prim::GatherOp>(planes, positions, 2, 1); // [N, C, Ho * Wo]
    Value values = b.reshape(sampled, type);
    Value spreadInside = b.broadcastInDim(inside, type.clone(i1), {0, 2, 3});
    Value zero = b.splat(0.0, type);
    if (!weight)
      return b.create<prim::SelectOp>(spreadInside, values, zero);
    Value spreadWeight = b.broadcastInDim(weight, type, {0, 2, 3});
    Value weighted = b.create<prim::MulOp>(values, spreadWeight);
    return b.create<prim::SelectOp>(spreadInside, weighted, zero);
  };
  if (mode == kNearest) {
    Value x = b.create<prim::RoundOp>(ix);
    Value y = b.create<prim::RoundOp>(iy);
    return tap(x, y, Value());
  }
  Value west = b.create<prim::FloorOp>(ix), north = b.create<prim::FloorOp>(iy);
  Value east = c.add(west, c.c(1.0)), south = c.add(north, c.c(1.0));
  Value toEast = c.sub(east, ix), fromWest = c.sub(ix, west);
  Value toSouth = c.sub(south, iy), fromNorth = c.sub(iy, north);
  // ATen's order: nw + ne + sw + se.
  Value result;
  for (auto [x, y, wx, wy] :
       {std::tuple{west, north, toEast, toSouth}, std::tuple{east, north, fromWest, toSouth},
        std::tuple{west, south, toEast, fromNorth}, std::tuple{east, south, fromWest, fromNorth}}) {
    Value weight = c.mul(wx, wy);
    Value term = tap(x, y, weight);
    result = result ? b.create<prim::AddOp>(result, term) : term;
  }
  return result;
}

} // namespace

void populateGridSampleDecompositions(DecompositionSet &set) {
  set.add<aten::GridSampler2dOp>(gridSampler2d);
}

} // namespace pt2c::decompose
