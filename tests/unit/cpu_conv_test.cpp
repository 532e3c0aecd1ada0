// The CPU convolutions (runtime/src/cpu/cpu_conv.h) against a double-accumulated direct
// convolution, on every ISA this machine has: resnet-like shapes, strides, padding,
// dilation, groups, depthwise and 1-d, batch 2, with bias, residual and relu.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/src/cpu/cpu_conv.h"
#include "tests/unit/cpu_test_support.h"

using pt2c::testing::availableIsas;
using pt2c::testing::isaName;
using pt2c::testing::randomFloats;
using pt2c::testing::ScopedIsa;

namespace {

struct Shape {
  const char *name;
  int rank; // 1 or 2; a 1-d shape uses only the w entries
  uint64_t c, k, groups, h, w, kernel, stride, pad, dilation;
};

pt2c_plan_conv planConv(const Shape &s, uint64_t batch) {
  pt2c_plan_conv conv;
  std::memset(&conv, 0, sizeof(conv));
  conv.dtype = PT2C_F32;
  conv.spatial_rank = s.rank;
  conv.groups = (uint32_t)s.groups;
  conv.batch = batch;
  conv.in_channels = s.c;
  conv.out_channels = s.k;
  uint64_t in[2] = {s.h, s.w};
  for (int d = 0; d < PT2C_CONV_MAX_SPATIAL; ++d) {
    bool used = d < s.rank;
    uint64_t extent = s.rank == 2 ? in[d] : s.w;
    conv.input[d] = used ? extent : 1;
    conv.kernel[d] = used ? s.kernel : 1;
    conv.stride[d] = used ? s.stride : 1;
    conv.padding[d] = used ? s.pad : 0;
    conv.dilation[d] = used ? s.dilation : 1;
    conv.output[d] =
        used ? (extent + 2 * s.pad - s.dilation * (s.kernel - 1) - 1) / s.stride + 1 : 1;
  }
  return conv;
}

// y[n, k, oh, ow] over a 2-d view (a 1-d conv has height 1 and a 1-high kernel).
std::vector<double> referenceConv(const pt2c_plan_conv &conv, const std::vector<float> &x,
                                  const std::vector<float> &w, const float *bias, const float *z,
                                  pt2c_conv_activation activation) {
  bool two_d = conv.spatial_rank == 2;
  int64_t N = conv.batch, C = conv.in_channels, K = conv.out_channels, G = conv.groups;
  int64_t IH = two_d ? conv.input[0] : 1, IW = conv.input[two_d ? 1 : 0];
  int64_t OH = two_d ? conv.output[0] : 1, OW = conv.output[two_d ? 1 : 0];
  int64_t R = two_d ? conv.kernel[0] : 1, S = conv.kernel[two_d ? 1 : 0];
  int64_t sh = two_d ? conv.stride[0] : 1, sw = conv.stride[two_d ? 1 : 0];
  int64_t ph = two_d ? conv.padding[0] : 0, pw = conv.padding[two_d ? 1 : 0];
  int64_t dh = two_d ? conv.dilation[0] : 1, dw = conv.dilation[two_d ? 1 : 0];
  int64_t Cg = C / G, Kg = K / G;
  std::vector<double> y(N * K * OH * OW);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double sum = bias ? bias[k] : 0.0;
          int64_t g = k / Kg;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t r = 0; r < R; ++r)
              for (int64_t s = 0; s < S; ++s) {
                int64_t ih = oh * sh - ph + r * dh, iw = ow * sw - pw + s * dw;
                if (ih < 0 || ih >= IH || iw < 0 || iw >= IW)
                  continue;
                sum += (double)x[((n * C + g * Cg + c) * IH + ih) * IW + iw] *
                       w[((k * Cg + c) * R + r) * S + s];
              }
          int64_t at = ((n * K + k) * OH + oh) * OW + ow;
          if (z)
            sum += z[at];
          if (activation == PT2C_CONV_ACT_RELU && sum < 0)
            sum = 0;
          if (activation == PT2C_CONV_ACT_SILU)
            sum = sum / (1 + std::exp(-sum));
          y[at] = sum;
        }
  return y;
}

const Shape kShapes[] = {
    {"3x3 s1 p1", 2, 16, 24, 1, 13, 11, 3, 1, 1, 1},
    {"7x7 s2 p3 (resnet stem)", 2, 3, 16, 1, 29, 30, 7, 2, 3, 1},
    {"1x1 s1 (pointwise)", 2, 40, 33, 1, 9, 7, 1, 1, 0, 1},
    {"1x1 s2 (downsample)", 2, 32, 48, 1, 14, 15, 1, 2, 0, 1},
    {"depthwise 3x3 s2 p1 (channel blocks)", 2, 24, 24, 24, 15, 16, 3, 2, 1, 1},
    {"depthwise 3x3 s1 p1", 2, 8, 8, 8, 40, 37, 3, 1, 1, 1},
    // Stride 2 on planes: both phases split in one pass, odd and even padding, odd width.
    {"depthwise 3x3 s2 p1 (planes, odd width)", 2, 8, 8, 8, 21, 37, 3, 2, 1, 1},
    {"depthwise 5x5 s2 p2 (planes)", 1, 4, 4, 4, 20, 40, 5, 2, 2, 1},
    // Plane blocks of 4 rows x 1 vector (13 rows: a partial block) and 1 row x 4 vectors
    // (117 columns: a full and a partial block).
    {"depthwise 3x3 s1 p1 on 13x14 (4 rows a block)", 2, 8, 8, 8, 13, 14, 3, 1, 1, 1},
    {"depthwise 5x5 s1 p2 on 6x117 (4 vectors a block)", 1, 4, 4, 4, 6, 117, 5, 1, 2, 1},
    {"3x3 s2 p1 (phases, odd width)", 1, 5, 7, 1, 9, 17, 3, 2, 1, 1},
    {"3x3 s3 p1 (three phases)", 1, 3, 5, 1, 10, 20, 3, 3, 1, 1},
    // Channel-major on the padded input read in place (conv_direct.c): a grid wider
    // than the output (junk columns dropped), phases of uneven sizes, and a 1x1 stride 2
    // whose grid is the output itself (the GEMM writes y).
    {"3x3 s2 p1 on 30x30 (direct, wider grid)", 1, 8, 16, 1, 30, 30, 3, 2, 1, 1},
    {"5x5 s2 p3 dilation 2 (direct, uneven phases)", 1, 4, 8, 1, 23, 21, 5, 2, 3, 2},
    {"1x1 s2 on 40x40 (direct, grid = output)", 1, 16, 8, 1, 40, 40, 1, 2, 0, 1},
    // Rows of at most 8 outputs run on channel blocks (a partial block here).
    {"depthwise 5x5 p4 dilation 2 on 7x7", 2, 20, 20, 20, 7, 7, 5, 1, 4, 2},
    {"grouped 3x3 (4 groups)", 2, 16, 32, 4, 10, 9, 3, 1, 1, 1},
    {"dilation 2, 3x3 p2", 2, 8, 12, 1, 12, 12, 3, 1, 2, 2},
    {"1-d k5 s1 p2", 1, 12, 20, 1, 1, 50, 5, 1, 2, 1},
    {"1-d k3 s2 dilation 2", 1, 6, 10, 1, 1, 41, 3, 2, 1, 2},
    {"1-d depthwise k3", 1, 10, 10, 10, 1, 33, 3, 1, 1, 1},
    // 1x1 on x with groups: each group's channels are a slice of x.
    {"grouped 1x1 (2 groups, on x)", 2, 16, 24, 2, 9, 8, 1, 1, 0, 1},
    // Few pixels, many channels: the pixel-major orientation (GEMMs on y^T, transposed
    // back with residual and relu), on im2col panels of MR pixels, on x, and per group.
    {"3x3 s1 p1 on 7x7 (pixel-major)", 2, 24, 64, 1, 7, 7, 3, 1, 1, 1},
    {"1x1 on 7x7 (pixel-major, on x)", 2, 40, 96, 1, 7, 7, 1, 1, 0, 1},
    {"grouped 3x3 s2 to 7x7 (pixel-major, phases)", 2, 32, 128, 2, 14, 13, 3, 2, 1, 1},
};

} // namespace

TEST_CASE("conv matches the direct reference with every epilogue on every ISA") {
  const uint64_t batch = 2;
  for (pt2c_cpu_isa isa : availableIsas()) {
    SECTION(isaName(isa)) {
      ScopedIsa scoped(isa);
      uint32_t seed = 0;
      for (const Shape &s : kShapes) {
        pt2c_plan_conv conv = planConv(s, batch);
        int64_t taps = conv.kernel[0] * conv.kernel[1];
        int64_t in_plane = conv.input[0] * conv.input[1];
        int64_t out_plane = conv.output[0] * conv.output[1];
        auto w = randomFloats(s.k * (s.c / s.groups) * taps, ++seed);
        auto x = randomFloats(batch * s.c * in_plane, ++seed);
        auto bias = randomFloats(s.k, ++seed);
        auto z = randomFloats(batch * s.k * out_plane, ++seed);
        pt2c_conv_prepacked *packed = pt2c_conv_prepack(&conv, w.data());
        REQUIRE(packed != nullptr);
        // Every combination of bias and residual, with no activation, relu and SiLU.
        for (int epilogue = 0; epilogue < 12; ++epilogue) {
          bool with_bias = epilogue & 1, with_z = epilogue & 2;
          auto activation = static_cast<pt2c_conv_activation>(epilogue / 4);
          INFO(s.name << " bias=" << with_bias << " residual=" << with_z
                      << " activation=" << activation);
          std::vector<float> y(batch * s.k * out_plane, 777.0f);
          pt2c_conv_run(packed, x.data(), with_bias ? bias.data() : nullptr,
                        with_z ? z.data() : nullptr, activation, y.data());
          auto ref = referenceConv(conv, x, w, with_bias ? bias.data() : nullptr,
                                   with_z ? z.data() : nullptr, activation);
          double tol = 1e-5 * std::sqrt((double)(s.c / s.groups * taps)) * 4;
          int64_t bad = 0;
          for (size_t i = 0; i < y.size(); ++i)
            if (!(std::fabs(y[i] - ref[i]) <= tol) && bad++ < 5)
              FAIL_CHECK("y[" << i << "] = " << y[i] << ", expected " << ref[i]);
          CHECK(bad == 0);
        }
        pt2c_conv_prepacked_free(packed);
      }
    }
  }
}

TEST_CASE("conv declines what it does not serve") {
  Shape s{"3-d", 2, 4, 4, 1, 5, 5, 3, 1, 1, 1};
  pt2c_plan_conv conv = planConv(s, 1);
  std::vector<float> w(4 * 4 * 9);
  conv.spatial_rank = 3;
  CHECK(pt2c_conv_prepack(&conv, w.data()) == nullptr);
  conv = planConv(s, 1);
  conv.dtype = PT2C_F16;
  CHECK(pt2c_conv_prepack(&conv, w.data()) == nullptr);
}
